import { type Address, erc20Abi, type Hex, parseEther, parseUnits, size } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { createApiClient } from '../../src/api/client.js'
import { buildDeltaCancellation } from '../../src/api/delta/build-delta-cancellation.js'
import { buildDeltaOrder } from '../../src/api/delta/build-delta-order.js'
import { cancelDeltaOrders } from '../../src/api/delta/cancel-delta-orders.js'
import { getDeltaPrices } from '../../src/api/delta/get-delta-prices.js'
import { submitDeltaOrder } from '../../src/api/delta/submit-delta-order.js'
import { getContracts } from '../../src/api/resources/get-contracts.js'
import { createChainClients, requireChainClients } from '../../src/chain/chain-clients.js'
import { signDeltaCancellation } from '../../src/chain/sign-delta-cancellation.js'
import { signDeltaOrder } from '../../src/chain/sign-delta-order.js'
import { resolveSpender } from '../../src/chain/spender.js'
import { createTransactionQueue } from '../../src/chain/transaction-queue.js'
import type { Session } from '../../src/cli/session.js'
import { approveForTrade } from '../../src/exec/approve-for-trade.js'
import type { TradeRequest } from '../../src/exec/quote-trade.js'
import { swapWithDelta } from '../../src/exec/swap-with-delta.js'
import { createLogger } from '../../src/log/logger.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js'
import { request, sandboxToken, useSandbox } from '../helpers/sandbox.js'

// The trading client's layers together (API client, approval plans, permits, signing, transaction queue) against the
// sandbox, with on-chain balances checked.

async function sessionFor(sandbox: RunningSandbox, index: number): Promise<Session> {
  const key = developmentAccounts[index]?.privateKey
  if (!key) throw new Error(`no development account ${index}`)
  const account = privateKeyToAccount(key)
  const api = createApiClient({ baseUrl: sandbox.url, retry: { retries: 0 }, rateLimit: false })
  const deployment = await getContracts(api)
  return {
    api,
    chains: createChainClients({
      chains: sandbox.chains.map(({ chainId, rpcUrl }) => ({ chainId, rpcUrls: [rpcUrl] })),
      account,
      pollingIntervalMs: 50,
    }),
    contracts: Object.fromEntries(deployment.chains),
    account,
    accountSource: `development account ${index}`,
    clock: sandbox.venue.clock,
    logger: createLogger({ level: 'silent' }),
    sandbox,
    close: async () => {},
  }
}

function trade(
  sandbox: RunningSandbox,
  session: Session,
  sell: string,
  buy: string,
  amount: bigint,
  extra: Partial<TradeRequest> = {},
): TradeRequest {
  const destChainId = extra.destChainId ?? 1
  return {
    chainId: 1,
    destChainId,
    srcToken: sandboxToken(sandbox, 1, sell),
    destToken: sandboxToken(sandbox, destChainId, buy),
    amount,
    side: 'SELL',
    mode: 'delta',
    userAddress: session.account.address,
    ...extra,
  }
}

async function price(session: Session, request: TradeRequest) {
  return getDeltaPrices(session.api, {
    chainId: request.chainId,
    srcToken: request.srcToken.address,
    destToken: request.destToken.address,
    amount: request.amount,
    srcDecimals: request.srcToken.decimals,
    destDecimals: request.destToken.decimals,
    side: request.side,
    userAddress: request.userAddress,
    ...(request.destChainId === request.chainId ? {} : { destChainId: request.destChainId }),
  })
}

function balanceOf(session: Session, chainId: number, token: Address): Promise<bigint> {
  return requireChainClients(session.chains, chainId).publicClient.readContract({
    address: token,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [session.account.address],
  })
}

// Waits are measured on the sandbox clock (30× real time): ten sandbox minutes.
/** Approves the Delta contract for `required` of `token` from the session's account; returns the spender and a deadline. */
async function approveDeltaFor(sandbox: RunningSandbox, session: Session, token: Address, required: bigint, permitPreference?: 'permit') {
  const chain = requireChainClients(session.chains, 1)
  const queue = createTransactionQueue({ client: chain.publicClient, account: session.account })
  const spender = resolveSpender({ contracts: session.contracts, chainId: 1, mode: 'delta' })
  const deadline = Math.floor(sandbox.venue.clock.now() / 1000) + 3_600
  const { permit } = await approveForTrade({
    chain,
    account: session.account,
    queue,
    spender,
    token,
    required,
    deadline: BigInt(deadline),
    permitPreference,
  })
  return { spender, deadline, permit }
}

const waitMs = 600_000

describe('trading client flows on the sandbox', () => {
  const sandbox = useSandbox({ chainIds: [1, 8453], speed: 30 })

  it('sells with an EIP-2612 permit instead of an approval (224-byte permit, no transaction)', async () => {
    const session = await sessionFor(sandbox(), 1)
    const request = trade(sandbox(), session, 'USDC', 'WETH', parseUnits('300', 6))
    const before = await balanceOf(session, 1, request.srcToken.address)
    const result = await swapWithDelta(session, {
      trade: request,
      price: await price(session, request),
      slippageBps: 50,
      validForSeconds: 600,
      waitMs,
      permitPreference: 'permit',
    })
    expect(result.status).toBe('COMPLETED')
    expect(result.approvals).toEqual([])
    expect(size(result.permit)).toBe(224)
    expect(before - (await balanceOf(session, 1, request.srcToken.address))).toBe(parseUnits('300', 6))
  })

  it('sells through Permit2: the token approves Permit2 once, the order carries a Permit2 signature', async () => {
    const session = await sessionFor(sandbox(), 2)
    const request = trade(sandbox(), session, 'WBTC', 'USDC', parseUnits('0.05', 8))
    const before = await balanceOf(session, 1, request.srcToken.address)
    const result = await swapWithDelta(session, {
      trade: request,
      price: await price(session, request),
      slippageBps: 50,
      validForSeconds: 600,
      waitMs,
      permitPreference: 'permit2',
    })
    expect(result.status).toBe('COMPLETED')
    expect([1, 96, 192]).toContain(size(result.permit))
    expect(before - (await balanceOf(session, 1, request.srcToken.address))).toBe(parseUnits('0.05', 8))
  })

  it('buys an exact amount with an approval, spending no more than the signed maximum', async () => {
    const session = await sessionFor(sandbox(), 3)
    const request = trade(sandbox(), session, 'USDC', 'WBTC', parseUnits('0.02', 8), { side: 'BUY' })
    const before = {
      usdc: await balanceOf(session, 1, request.srcToken.address),
      wbtc: await balanceOf(session, 1, request.destToken.address),
    }
    const result = await swapWithDelta(session, {
      trade: request,
      price: await price(session, request),
      slippageBps: 100,
      validForSeconds: 600,
      waitMs,
    })
    expect(result.status).toBe('COMPLETED')
    expect(result.approvals).toHaveLength(1)
    expect((await balanceOf(session, 1, request.destToken.address)) - before.wbtc).toBe(parseUnits('0.02', 8))
    expect(before.usdc - (await balanceOf(session, 1, request.srcToken.address))).toBe(result.spent)
  })

  it('resets a USDT-style allowance to 0 before approving a new amount', async () => {
    const session = await sessionFor(sandbox(), 4)
    const usdt = sandboxToken(sandbox(), 1, 'USDT').address
    const chain = requireChainClients(session.chains, 1)
    const queue = createTransactionQueue({ client: chain.publicClient, account: session.account })
    const delta = resolveSpender({ contracts: session.contracts, chainId: 1, mode: 'delta' })
    await queue.send({ to: usdt, data: encodeApprove(delta.address, 1n) })
    const request = trade(sandbox(), session, 'USDT', 'USDC', parseUnits('40', 6))
    const result = await swapWithDelta(session, {
      trade: request,
      price: await price(session, request),
      slippageBps: 50,
      validForSeconds: 600,
      waitMs,
    })
    expect(result.status).toBe('COMPLETED')
    expect(result.approvals).toHaveLength(2)
  })

  it('completes a crosschain order: source leg on chain 1, USDC delivered on chain 8453', async () => {
    await request(sandbox().url, 'POST', '/_sandbox/bridge', { failures: 'never' })
    const session = await sessionFor(sandbox(), 5)
    const order = trade(sandbox(), session, 'USDC', 'USDC', parseUnits('120', 6), { destChainId: 8453 })
    const before = await balanceOf(session, 8453, order.destToken.address)
    const result = await swapWithDelta(session, {
      trade: order,
      price: await price(session, order),
      slippageBps: 50,
      validForSeconds: 900,
      waitMs,
    })
    expect(result.status).toBe('COMPLETED')
    expect(result.transactions[0]?.destinationTx).toMatch(/^0x[0-9a-f]{64}$/)
    expect((await balanceOf(session, 8453, order.destToken.address)) - before).toBe(result.received)
  })

  it('refuses a LIMIT order that carries a permit, and accepts it with an on-chain approval', async () => {
    const session = await sessionFor(sandbox(), 6)
    const request = trade(sandbox(), session, 'USDC', 'WETH', parseUnits('100', 6))
    const quoted = await price(session, request)
    const withPermit = await approveDeltaFor(sandbox(), session, request.srcToken.address, request.amount, 'permit')
    const limit = {
      route: quoted.route,
      side: quoted.side,
      owner: session.account.address,
      deadline: withPermit.deadline,
      type: 'LIMIT' as const,
      partiallyFillable: true,
    }
    await expect(buildDeltaOrder(session.api, { ...limit, permit: withPermit.permit as Hex })).rejects.toMatchObject({
      name: 'PermitNotAllowedError',
    })
    const { spender } = await approveDeltaFor(sandbox(), session, request.srcToken.address, request.amount)
    const built = await buildDeltaOrder(session.api, limit)
    const signed = await signDeltaOrder(session.account, { toSign: built.toSign, delta: spender, orderHash: built.orderHash })
    const order = await submitDeltaOrder(session.api, {
      chainId: 1,
      order: built.toSign.value,
      signature: signed.signature,
      type: 'LIMIT',
      partiallyFillable: true,
    })
    expect(order.onChainOrderType).toBe('FillableOrder')
    expect(order.type).toBe('LIMIT')
  })

  it('builds and submits a TWAP order funded by an approval', async () => {
    const session = await sessionFor(sandbox(), 7)
    const total = parseUnits('900', 6)
    const request = trade(sandbox(), session, 'USDC', 'WETH', total / 3n)
    const quoted = await price(session, request)
    const { spender, deadline } = await approveDeltaFor(sandbox(), session, request.srcToken.address, total)
    const built = await buildDeltaOrder(session.api, {
      route: quoted.route,
      side: quoted.side,
      owner: session.account.address,
      deadline,
      orderType: 'TWAPOrder',
      interval: 60,
      numSlices: 3,
      totalSrcAmount: total,
    })
    const signed = await signDeltaOrder(session.account, { toSign: built.toSign, delta: spender, orderHash: built.orderHash })
    const order = await submitDeltaOrder(session.api, { chainId: 1, order: built.toSign.value, signature: signed.signature })
    expect(order.onChainOrderType).toBe('TWAPOrder')
    expect(order.orderHash).toBe(built.orderHash)
  })

  it('cancels 100 orders with one signed cancellation', async () => {
    const session = await sessionFor(sandbox(), 8)
    const request = trade(sandbox(), session, 'DAI', 'USDC', parseEther('1'))
    const { spender, deadline } = await approveDeltaFor(sandbox(), session, request.srcToken.address, parseEther('100'))
    const quoted = await price(session, request)
    const ids: string[] = []
    for (let index = 0; index < 100; index++) {
      const built = await buildDeltaOrder(session.api, {
        route: quoted.route,
        side: quoted.side,
        owner: session.account.address,
        deadline,
        nonce: BigInt(index + 1),
      })
      const signed = await signDeltaOrder(session.account, { toSign: built.toSign, delta: spender, orderHash: built.orderHash })
      const excludeAgents = ['sandbox-alpha', 'sandbox-beta', 'sandbox-gamma']
      ids.push(
        (await submitDeltaOrder(session.api, { chainId: 1, order: built.toSign.value, signature: signed.signature, excludeAgents })).id,
      )
    }
    const cancellation = await buildDeltaCancellation(session.api, { orderIds: ids })
    const signed = await signDeltaCancellation(session.account, { toSign: cancellation.toSign, delta: spender })
    const cancelled = await cancelDeltaOrders(session.api, { orderIds: signed.orderIds, signature: signed.signature })
    expect([...cancelled.cancelled].sort()).toEqual([...ids].sort())
  })
})

function encodeApprove(spender: Address, amount: bigint): Hex {
  return `0x095ea7b3${spender.slice(2).toLowerCase().padStart(64, '0')}${amount.toString(16).padStart(64, '0')}` as Hex
}
