import { type Address, erc20Abi } from 'viem'
import { describe, expect, it } from 'vitest'
import { deltaAddress } from '../../src/protocol/addresses.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { waitForLocalReceipt } from '../../src/sandbox/chains/receipt.js'
import { useSandbox } from '../helpers/sandbox.js'
import {
  addSignedOrder,
  approveDelta,
  balanceOf,
  deltaAbi,
  ownerWallet,
  poolQuote,
  sandboxSleep,
  standardOrder,
  swapOnPool,
  token,
  waitFor,
  waitForStatus,
} from './delta-engine-fixture.js'

const chainId = 1
const address = (index: number) => developmentAccounts[index]?.address as Address
const weth = 10n ** 18n
const usdc = 10n ** 6n

describe('Delta engine: LIMIT orders', () => {
  const sandbox = useSandbox({ chainIds: [chainId], speed: 60, market: 'still' })

  it('rests ACTIVE while the market is below the limit and fills in full once it crosses', async () => {
    const s = sandbox()
    const [wethToken, usdcToken] = [token(s, chainId, 'WETH'), token(s, chainId, 'USDC')]
    await approveDelta(s, chainId, 1, wethToken)
    const quote = await poolQuote(s, chainId, wethToken, usdcToken, weth, 'SELL')
    const order = standardOrder(s, {
      chainId,
      ownerIndex: 1,
      srcToken: wethToken,
      destToken: usdcToken,
      srcAmount: weth,
      destAmount: (quote * 102n) / 100n,
      kind: 0,
    })
    const stored = await addSignedOrder(s, { kind: 'Order', order }, { chainId, ownerIndex: 1, type: 'LIMIT' })
    await waitForStatus(stored, 'ACTIVE')
    await sandboxSleep(s, 20_000)
    expect(stored.status).toBe('ACTIVE')
    expect(stored.transactions).toHaveLength(0)
    const [wethBefore, usdcBefore] = await Promise.all([
      balanceOf(s, chainId, wethToken, address(1)),
      balanceOf(s, chainId, usdcToken, address(1)),
    ])

    // Buying WETH with 500k USDC lifts its price by about 5 %.
    await swapOnPool(s, chainId, 9, 'USDC', 'WETH', 500_000n * usdc)
    await waitForStatus(stored, 'COMPLETED')

    const [wethAfter, usdcAfter] = await Promise.all([
      balanceOf(s, chainId, wethToken, address(1)),
      balanceOf(s, chainId, usdcToken, address(1)),
    ])
    const [fill] = stored.transactions
    expect(stored.transactions).toHaveLength(1)
    expect(fill?.receivedAmount).toBeGreaterThanOrEqual(order.destAmount)
    expect(wethBefore - wethAfter).toBe(fill?.spentAmount)
    expect(usdcAfter - usdcBefore).toBe(fill?.receivedAmount)
    expect(stored.history.map((entry) => entry.status)).toEqual(['PENDING', 'ACTIVE', 'COMPLETED'])
  })

  it('fills only the part the market allows of a partially fillable order and leaves the rest ACTIVE', async () => {
    const s = sandbox()
    const [wethToken, usdcToken] = [token(s, chainId, 'WETH'), token(s, chainId, 'USDC')]
    await approveDelta(s, chainId, 2, wethToken)
    const srcAmount = 60n * weth
    const perWeth = await poolQuote(s, chainId, wethToken, usdcToken, weth, 'SELL')
    const order = standardOrder(s, {
      chainId,
      ownerIndex: 2,
      srcToken: wethToken,
      destToken: usdcToken,
      srcAmount,
      destAmount: (perWeth * 60n * 101n) / 100n,
      kind: 0,
    })
    const stored = await addSignedOrder(s, { kind: 'Order', order }, { chainId, ownerIndex: 2, type: 'LIMIT', partiallyFillable: true })
    await waitForStatus(stored, 'ACTIVE')
    expect(stored.onChainOrderType).toBe('FillableOrder')

    // About +1.3 %: enough for part of the order (some 25 WETH), not for 60 WETH at once.
    await swapOnPool(s, chainId, 8, 'USDC', 'WETH', 130_000n * usdc)
    await waitFor('a first fill', () => stored.transactions.length > 0)
    const firstFill = stored.transactions[0]
    await sandboxSleep(s, 20_000)

    expect(stored.status).toBe('ACTIVE')
    expect(stored.transactions).toHaveLength(1)
    expect(stored.filledSrcAmount).toBeGreaterThan(0n)
    expect(stored.filledSrcAmount).toBeLessThan(srcAmount)
    // The fill met the order's price pro rata.
    expect(stored.filledDestAmount * srcAmount).toBeGreaterThanOrEqual(order.destAmount * stored.filledSrcAmount)
    const filledOnChain = await s.venue.chains.get(chainId)?.clients.publicClient.readContract({
      address: deltaAddress,
      abi: deltaAbi(),
      functionName: 'filledAmount',
      args: [stored.orderHash],
    })
    expect(filledOnChain).toBe(stored.filledSrcAmount)
    expect(firstFill?.filledPercent).toBe(Number((stored.filledSrcAmount * 10_000n) / srcAmount) / 100)
  })

  it('completes a partially fillable order over several fills as the market keeps crossing', async () => {
    const s = sandbox()
    const [wethToken, usdcToken] = [token(s, chainId, 'WETH'), token(s, chainId, 'USDC')]
    await approveDelta(s, chainId, 3, wethToken)
    const srcAmount = 100n * weth
    const perWeth = await poolQuote(s, chainId, wethToken, usdcToken, weth, 'SELL')
    const order = standardOrder(s, {
      chainId,
      ownerIndex: 3,
      srcToken: wethToken,
      destToken: usdcToken,
      srcAmount,
      destAmount: (perWeth * 100n * 1005n) / 1000n,
      kind: 0,
    })
    const stored = await addSignedOrder(s, { kind: 'Order', order }, { chainId, ownerIndex: 3, type: 'LIMIT', partiallyFillable: true })
    await waitForStatus(stored, 'ACTIVE')

    for (let push = 0; push < 6 && stored.status !== 'COMPLETED'; push++) {
      await swapOnPool(s, chainId, 7, 'USDC', 'WETH', 150_000n * usdc)
      await sandboxSleep(s, 5_000)
    }
    await waitForStatus(stored, 'COMPLETED')

    expect(stored.transactions.length).toBeGreaterThan(1)
    expect(stored.filledSrcAmount).toBe(srcAmount)
    expect(stored.transactions.reduce((sum, fill) => sum + fill.spentAmount, 0n)).toBe(srcAmount)
    expect(stored.filledDestAmount).toBeGreaterThanOrEqual(order.destAmount)
  })

  it('turns a cancel into CANCELLING, then CANCELLED once the relayer confirms', async () => {
    const s = sandbox()
    const [wethToken, usdcToken] = [token(s, chainId, 'WETH'), token(s, chainId, 'USDC')]
    await approveDelta(s, chainId, 4, wethToken)
    const quote = await poolQuote(s, chainId, wethToken, usdcToken, weth, 'SELL')
    const order = standardOrder(s, {
      chainId,
      ownerIndex: 4,
      srcToken: wethToken,
      destToken: usdcToken,
      srcAmount: weth,
      destAmount: quote * 2n,
      kind: 0,
    })
    const stored = await addSignedOrder(s, { kind: 'Order', order }, { chainId, ownerIndex: 4, type: 'LIMIT' })
    await waitForStatus(stored, 'ACTIVE')

    // What the API's cancel does to an order without an auction in flight.
    expect(stored.auctionInFlight).toBe(false)
    s.delta.store.setStatus(stored, 'CANCELLING', s.venue.clock.now())
    await waitForStatus(stored, 'CANCELLED')

    expect(stored.history.map((entry) => entry.status)).toEqual(['PENDING', 'ACTIVE', 'CANCELLING', 'CANCELLED'])
    const [cancelling, cancelled] = stored.history.slice(-2)
    expect((cancelled?.at ?? 0) - (cancelling?.at ?? 0)).toBeGreaterThanOrEqual(1_000)
  })

  it('suspends an order whose owner revokes the allowance and resumes it once restored', async () => {
    const s = sandbox()
    const [wethToken, usdcToken] = [token(s, chainId, 'WETH'), token(s, chainId, 'USDC')]
    await approveDelta(s, chainId, 5, usdcToken)
    const srcAmount = 1_000n * usdc
    const quote = await poolQuote(s, chainId, usdcToken, wethToken, srcAmount, 'SELL')
    const order = standardOrder(s, {
      chainId,
      ownerIndex: 5,
      srcToken: usdcToken,
      destToken: wethToken,
      srcAmount,
      destAmount: quote * 2n,
      kind: 0,
    })
    const stored = await addSignedOrder(s, { kind: 'Order', order }, { chainId, ownerIndex: 5, type: 'LIMIT' })
    await waitForStatus(stored, 'ACTIVE')

    await approveDelta(s, chainId, 5, usdcToken, 0n)
    await waitForStatus(stored, 'SUSPENDED')
    expect(stored.history.at(-1)?.reason).toBe('InsufficientAllowance')

    await approveDelta(s, chainId, 5, usdcToken, srcAmount)
    await waitForStatus(stored, 'ACTIVE')
    expect(stored.history.map((entry) => entry.status)).toEqual(['PENDING', 'ACTIVE', 'SUSPENDED', 'ACTIVE'])
  })

  it('suspends an order whose owner moves its balance away and resumes it once it is back', async () => {
    const s = sandbox()
    const [wethToken, daiToken] = [token(s, chainId, 'WETH'), token(s, chainId, 'DAI')]
    await approveDelta(s, chainId, 6, daiToken)
    const srcAmount = 1_000n * 10n ** 18n
    const quote = await poolQuote(s, chainId, daiToken, wethToken, srcAmount, 'SELL')
    const order = standardOrder(s, {
      chainId,
      ownerIndex: 6,
      srcToken: daiToken,
      destToken: wethToken,
      srcAmount,
      destAmount: quote * 2n,
      kind: 0,
    })
    const stored = await addSignedOrder(s, { kind: 'Order', order }, { chainId, ownerIndex: 6, type: 'LIMIT' })
    await waitForStatus(stored, 'ACTIVE')
    const wallet = ownerWallet(s, chainId, 6)
    const holding = await balanceOf(s, chainId, daiToken, address(6))
    const move = async (from: typeof wallet, to: Address, amount: bigint) =>
      waitForLocalReceipt(
        from,
        await from.writeContract({ address: daiToken, abi: erc20Abi, functionName: 'transfer', args: [to, amount] }),
      )

    await move(wallet, address(0), holding)
    await waitForStatus(stored, 'SUSPENDED')
    expect(stored.history.at(-1)?.reason).toBe('InsufficientBalance')

    await move(ownerWallet(s, chainId, 0), address(6), holding)
    await waitForStatus(stored, 'ACTIVE')
  })
})
