import { type Address, erc20Abi, maxUint256, parseEther, parseUnits } from 'viem'
import { describe, expect, it } from 'vitest'
import { marketRouterAddress } from '../../src/protocol/addresses.js'
import { waitForLocalReceipt } from '../../src/sandbox/chains/receipt.js'
import { getContractArtifact } from '../../src/sandbox/contracts/compile.js'
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js'
import {
  approveDelta,
  type DeltaOrderJson,
  type DeltaWallet,
  deltaToken,
  deltaWallet,
  mustPlaceDeltaOrder,
  mustPrice,
  sandboxNow,
  signToSign,
  type ToSign,
} from '../helpers/delta.js'
import { request, useSandbox } from '../helpers/sandbox.js'

// Every Delta lifecycle path driven through the public API, as a client sees it, with on-chain balances checked
// against what the API reports.

type Fill = { originTx: string; destinationTx: string | null; spentAmount: string; receivedAmount: string; filledPercent: number }
type OrderView = DeltaOrderJson & { transactions: Fill[]; refunds: { tx: string; chainId: number; token: string; amount: string }[] }

const withAgents = { excludeAgents: [] }

async function readOrder(sandbox: RunningSandbox, id: string): Promise<OrderView> {
  const { status, json, text } = await request(sandbox.url, 'GET', `/v2/delta/orders/${id}`)
  expect(status, text).toBe(200)
  return json as OrderView
}

/** Polls the order until it reaches `status` (and fails on any other final status). */
async function waitForStatus(sandbox: RunningSandbox, id: string, status: string, timeoutMs = 15_000): Promise<OrderView> {
  const final = new Set(['COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED', 'REFUNDED'])
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const order = await readOrder(sandbox, id)
    if (order.status === status) return order
    if (final.has(order.status)) throw new Error(`order ${id} ended ${order.status}, expected ${status}`)
    if (Date.now() > deadline) throw new Error(`order ${id} still ${order.status} after ${timeoutMs} ms, expected ${status}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const balanceOf = (wallet: DeltaWallet, token: Address) =>
  wallet.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [wallet.account.address] })

const sum = (fills: Fill[], field: 'spentAmount' | 'receivedAmount') => fills.reduce((total, fill) => total + BigInt(fill[field]), 0n)

/** Pushes WETH's price up in the WETH/USDC pool with a large router buy from another account. */
async function pushWethPrice(sandbox: RunningSandbox, wallet: DeltaWallet, usdcIn: bigint): Promise<void> {
  const chain = sandbox.venue.chains.get(1)
  const pool = chain?.fixture.pools.find((candidate) => candidate.symbols.join('/') === 'WETH/USDC')
  const usdc = deltaToken(sandbox, 1, 'USDC').address
  const weth = deltaToken(sandbox, 1, 'WETH').address
  if (!chain || !pool) throw new Error('no WETH/USDC pool on chain 1')
  await waitForLocalReceipt(
    wallet,
    await wallet.writeContract({ address: usdc, abi: erc20Abi, functionName: 'approve', args: [marketRouterAddress, maxUint256] }),
  )
  const hash = await wallet.writeContract({
    address: marketRouterAddress,
    abi: getContractArtifact('MarketRouter').abi,
    functionName: 'swapExactAmountIn',
    args: [usdc, weth, usdcIn, 0n, [pool.address], wallet.account.address, 0n],
  })
  expect((await waitForLocalReceipt(wallet, hash)).status).toBe('success')
  await chain.refresh()
}

describe('Delta lifecycle through the API', () => {
  const sandbox = useSandbox({ chainIds: [1, 8453], speed: 60 })

  it('completes a same-chain SELL; the owner spends and receives exactly what transactions[] reports', async () => {
    const wallet = deltaWallet(sandbox(), 1, 1)
    const weth = deltaToken(sandbox(), 1, 'WETH').address
    const usdc = deltaToken(sandbox(), 1, 'USDC').address
    await approveDelta(wallet, weth)
    const before = { weth: await balanceOf(wallet, weth), usdc: await balanceOf(wallet, usdc) }
    const placed = await mustPlaceDeltaOrder(sandbox(), {
      wallet,
      quote: { chainId: 1, src: 'WETH', dest: 'USDC', amount: parseEther('1') },
      submit: withAgents,
    })
    expect(placed.status).toBe('PENDING')
    const done = await waitForStatus(sandbox(), placed.id, 'COMPLETED')
    const spent = before.weth - (await balanceOf(wallet, weth))
    const received = (await balanceOf(wallet, usdc)) - before.usdc
    expect(spent).toBe(parseEther('1'))
    expect(sum(done.transactions, 'spentAmount')).toBe(spent)
    expect(sum(done.transactions, 'receivedAmount')).toBe(received)
    expect(received).toBeGreaterThanOrEqual(BigInt(done.order.destAmount as string))
    expect(done.output.executedAmount).toBe(received.toString())
  })

  it('completes a same-chain BUY, spending no more than the signed maximum', async () => {
    const wallet = deltaWallet(sandbox(), 1, 2)
    const usdc = deltaToken(sandbox(), 1, 'USDC').address
    const wbtc = deltaToken(sandbox(), 1, 'WBTC').address
    await approveDelta(wallet, usdc)
    const before = { usdc: await balanceOf(wallet, usdc), wbtc: await balanceOf(wallet, wbtc) }
    const placed = await mustPlaceDeltaOrder(sandbox(), {
      wallet,
      quote: { chainId: 1, src: 'USDC', dest: 'WBTC', amount: parseUnits('0.1', 8), side: 'BUY' },
      submit: withAgents,
    })
    const done = await waitForStatus(sandbox(), placed.id, 'COMPLETED')
    const spent = before.usdc - (await balanceOf(wallet, usdc))
    expect((await balanceOf(wallet, wbtc)) - before.wbtc).toBe(parseUnits('0.1', 8))
    expect(sum(done.transactions, 'spentAmount')).toBe(spent)
    expect(spent).toBeLessThanOrEqual(BigInt(done.order.srcAmount as string))
  })

  it('rests a LIMIT order as ACTIVE until the market crosses its limit, then fills it at or above the limit', async () => {
    const wallet = deltaWallet(sandbox(), 1, 3)
    const weth = deltaToken(sandbox(), 1, 'WETH').address
    const usdc = deltaToken(sandbox(), 1, 'USDC').address
    await approveDelta(wallet, weth)
    const price = await mustPrice(sandbox(), { chainId: 1, src: 'WETH', dest: 'USDC', amount: parseEther('2') })
    const limitAmount = (BigInt(price.route.destination.output.amount) * 103n) / 100n
    const before = await balanceOf(wallet, usdc)
    const placed = await mustPlaceDeltaOrder(sandbox(), {
      wallet,
      quote: { chainId: 1, src: 'WETH', dest: 'USDC', amount: parseEther('2') },
      build: { type: 'LIMIT', orderType: 'FillableOrder', limitAmount: limitAmount.toString(), deadline: sandboxNow(sandbox()) + 86_400 },
      submit: { ...withAgents, type: 'LIMIT', partiallyFillable: true },
    })
    await waitForStatus(sandbox(), placed.id, 'ACTIVE')
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect((await readOrder(sandbox(), placed.id)).transactions).toHaveLength(0)
    await pushWethPrice(sandbox(), deltaWallet(sandbox(), 1, 9), parseUnits('900000', 6))
    const done = await waitForStatus(sandbox(), placed.id, 'COMPLETED')
    const received = (await balanceOf(wallet, usdc)) - before
    expect(sum(done.transactions, 'receivedAmount')).toBe(received)
    expect(received).toBeGreaterThanOrEqual(limitAmount)
  })

  it('fills a TWAP order one slice per interval until it completes', async () => {
    const wallet = deltaWallet(sandbox(), 1, 4)
    const usdc = deltaToken(sandbox(), 1, 'USDC').address
    await approveDelta(wallet, usdc)
    const total = parseUnits('3000', 6)
    const before = await balanceOf(wallet, usdc)
    const placed = await mustPlaceDeltaOrder(sandbox(), {
      wallet,
      quote: { chainId: 1, src: 'USDC', dest: 'WETH', amount: total / 3n },
      build: {
        orderType: 'TWAPOrder',
        interval: 60,
        numSlices: 3,
        totalSrcAmount: total.toString(),
        deadline: sandboxNow(sandbox()) + 3_600,
      },
      submit: withAgents,
    })
    expect(placed.onChainOrderType).toBe('TWAPOrder')
    const done = await waitForStatus(sandbox(), placed.id, 'COMPLETED', 20_000)
    expect(done.transactions).toHaveLength(3)
    expect(before - (await balanceOf(wallet, usdc))).toBe(total)
    expect(sum(done.transactions, 'spentAmount')).toBe(total)
  })

  it('cancels a waiting order: CANCELLING, then CANCELLED', async () => {
    const wallet = deltaWallet(sandbox(), 1, 5)
    await approveDelta(wallet, deltaToken(sandbox(), 1, 'DAI').address)
    const placed = await mustPlaceDeltaOrder(sandbox(), {
      wallet,
      quote: { chainId: 1, src: 'DAI', dest: 'USDC', amount: parseEther('100') },
    })
    const built = await request(sandbox().url, 'POST', '/v2/delta/orders/build/cancellation', { orderIds: [placed.id] })
    expect(built.status, built.text).toBe(200)
    const signature = await signToSign(wallet, (built.json as { toSign: ToSign }).toSign)
    const cancelled = await request(sandbox().url, 'POST', '/v2/delta/orders/cancel', { orderIds: [placed.id], signature })
    expect(cancelled.json).toEqual({ cancelled: [placed.id] })
    const done = await waitForStatus(sandbox(), placed.id, 'CANCELLED')
    expect(done.transactions).toHaveLength(0)
  })

  it('suspends an order whose owner revokes the allowance and resumes it once restored', async () => {
    const wallet = deltaWallet(sandbox(), 1, 6)
    const usdt = deltaToken(sandbox(), 1, 'USDT').address
    await approveDelta(wallet, usdt)
    const placed = await mustPlaceDeltaOrder(sandbox(), {
      wallet,
      quote: { chainId: 1, src: 'USDT', dest: 'USDC', amount: parseUnits('50', 6) },
    })
    await approveDelta(wallet, usdt, 0n)
    await waitForStatus(sandbox(), placed.id, 'SUSPENDED')
    await approveDelta(wallet, usdt)
    await waitForStatus(sandbox(), placed.id, 'PENDING')
  })

  it('expires an order nobody fills before its deadline', async () => {
    const wallet = deltaWallet(sandbox(), 1, 7)
    await approveDelta(wallet, deltaToken(sandbox(), 1, 'USDC').address)
    const placed = await mustPlaceDeltaOrder(sandbox(), {
      wallet,
      quote: { chainId: 1, src: 'USDC', dest: 'DAI', amount: parseUnits('10', 6) },
      build: { deadline: sandboxNow(sandbox()) + 30 },
    })
    const done = await waitForStatus(sandbox(), placed.id, 'EXPIRED')
    expect(done.transactions).toHaveLength(0)
  })

  it('completes a crosschain order: the source leg on chain 1, the destination leg on chain 8453', async () => {
    await request(sandbox().url, 'POST', '/_sandbox/bridge', { failures: 'never' })
    const wallet = deltaWallet(sandbox(), 1, 8)
    const baseWallet = deltaWallet(sandbox(), 8453, 8)
    const usdc = deltaToken(sandbox(), 1, 'USDC').address
    const baseUsdc = deltaToken(sandbox(), 8453, 'USDC').address
    await approveDelta(wallet, usdc)
    const before = { source: await balanceOf(wallet, usdc), destination: await balanceOf(baseWallet, baseUsdc) }
    const placed = await mustPlaceDeltaOrder(sandbox(), {
      wallet,
      quote: { chainId: 1, src: 'USDC', dest: 'USDC', destChainId: 8453, amount: parseUnits('500', 6) },
      submit: withAgents,
    })
    const done = await waitForStatus(sandbox(), placed.id, 'COMPLETED', 20_000)
    const fill = done.transactions[0]
    expect(fill?.destinationTx).toMatch(/^0x[0-9a-f]{64}$/)
    expect(before.source - (await balanceOf(wallet, usdc))).toBe(parseUnits('500', 6))
    expect((await balanceOf(baseWallet, baseUsdc)) - before.destination).toBe(BigInt(fill?.receivedAmount ?? -1))
  })

  it('refunds a crosschain order on the source chain when the bridge fails', async () => {
    await request(sandbox().url, 'POST', '/_sandbox/bridge', { failures: 'always' })
    const wallet = deltaWallet(sandbox(), 1, 0)
    const usdc = deltaToken(sandbox(), 1, 'USDC').address
    await approveDelta(wallet, usdc)
    const before = await balanceOf(wallet, usdc)
    const placed = await mustPlaceDeltaOrder(sandbox(), {
      wallet,
      quote: { chainId: 1, src: 'USDC', dest: 'USDC', destChainId: 8453, amount: parseUnits('200', 6) },
      submit: withAgents,
    })
    const done = await waitForStatus(sandbox(), placed.id, 'REFUNDED', 20_000)
    expect(done.refunds).toHaveLength(1)
    expect(done.refunds[0]).toMatchObject({ chainId: 1, token: usdc.toLowerCase(), amount: parseUnits('200', 6).toString() })
    expect(await balanceOf(wallet, usdc)).toBe(before)
    await request(sandbox().url, 'POST', '/_sandbox/bridge', { failures: 'random' })
  })
})

describe('Delta cancel during an auction, through the API', () => {
  // Real-time clock: the 2-second auction window is long enough to cancel inside it.
  const sandbox = useSandbox({ chainIds: [1], speed: 1 })

  it('queues a cancel that arrives while the auction runs; the fill that wins the auction stands', async () => {
    const wallet = deltaWallet(sandbox(), 1, 1)
    const usdc = deltaToken(sandbox(), 1, 'USDC').address
    await approveDelta(wallet, usdc)
    const placed = await mustPlaceDeltaOrder(sandbox(), {
      wallet,
      quote: { chainId: 1, src: 'USDC', dest: 'WETH', amount: parseUnits('1000', 6) },
      submit: withAgents,
    })
    // Wait for the engine to open the auction (the API does not expose it), then cancel through the API.
    while (!sandbox().delta.store.get(placed.id)?.auctionInFlight) await new Promise((resolve) => setTimeout(resolve, 10))
    const built = await request(sandbox().url, 'POST', '/v2/delta/orders/build/cancellation', { orderIds: [placed.id] })
    const signature = await signToSign(wallet, (built.json as { toSign: ToSign }).toSign)
    const cancelled = await request(sandbox().url, 'POST', '/v2/delta/orders/cancel', { orderIds: [placed.id], signature })
    expect(cancelled.json).toEqual({ cancelled: [placed.id] })
    expect((await readOrder(sandbox(), placed.id)).status).toBe('PENDING')
    const done = await waitForStatus(sandbox(), placed.id, 'COMPLETED')
    expect(done.transactions).toHaveLength(1)
  })
})
