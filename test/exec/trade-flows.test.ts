import { type Address, decodeFunctionData, erc20Abi, getAddress, type Hex, type LocalAccount, parseEther, parseUnits, size } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, describe, expect, it } from 'vitest'
import { type ApiClient, createApiClient } from '../../src/api/client.js'
import { buildDeltaCancellation } from '../../src/api/delta/build-delta-cancellation.js'
import { buildDeltaOrder } from '../../src/api/delta/build-delta-order.js'
import { cancelDeltaOrders } from '../../src/api/delta/cancel-delta-orders.js'
import { getDeltaPrices } from '../../src/api/delta/get-delta-prices.js'
import { submitDeltaOrder } from '../../src/api/delta/submit-delta-order.js'
import { getContracts } from '../../src/api/resources/get-contracts.js'
import { type ChainClients, createChainClients, requireChainClients } from '../../src/chain/chain-clients.js'
import type { DeploymentContracts } from '../../src/chain/deployment.js'
import { signDeltaCancellation } from '../../src/chain/sign-delta-cancellation.js'
import { signDeltaOrder } from '../../src/chain/sign-delta-order.js'
import { resolveSpender } from '../../src/chain/spender.js'
import { createTransactionQueue } from '../../src/chain/transaction-queue.js'
import { createIntent } from '../../src/domain/intents/create-intent.js'
import { isFinalStatus } from '../../src/domain/order-status.js'
import { approveForTrade } from '../../src/exec/approve-for-trade.js'
import { createExecutor, type ExecutionOutcome } from '../../src/exec/executor/executor.js'
import type { ExecutorContext, ExecutorSettings } from '../../src/exec/executor/executor-context.js'
import type { TradeRequest } from '../../src/exec/quote-trade.js'
import type { JournalOrder } from '../../src/journal/orders.js'
import { reconcileOrders } from '../../src/journal/reconcile/reconcile-orders.js'
import { permit2Address } from '../../src/protocol/addresses.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { waitForLocalReceipt } from '../../src/sandbox/chains/receipt.js'
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js'
import { sandboxExecutorContext } from '../helpers/executor.js'
import { request, sandboxToken, sandboxWallet, useSandbox } from '../helpers/sandbox.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

// Trades as a bot makes them (intent → executor → journal, reconciled with the venue and the chains) and the trading
// client's lower layers (API client, approval plans, permits, signing) against the sandbox, with on-chain balances
// checked. Each test trades from its own development account.

const directory = createTempDirectory('deltaflow-trade-flows-')
const opened: ExecutorContext[] = []
afterAll(() => {
  for (const context of opened) context.journal.close()
  directory.cleanup()
})

/** What the client-level tests work with: the API, the chains, the deployment resource and a signing account. */
type ClientSession = {
  api: ApiClient
  chains: ReadonlyMap<number, ChainClients>
  contracts: DeploymentContracts
  account: LocalAccount
}

async function sessionFor(sandbox: RunningSandbox, index: number): Promise<ClientSession> {
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
  }
}

function trade(
  sandbox: RunningSandbox,
  session: ClientSession,
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

async function price(session: ClientSession, request: TradeRequest) {
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

function balanceOf(owner: Pick<ClientSession, 'chains' | 'account'>, chainId: number, token: Address): Promise<bigint> {
  return requireChainClients(owner.chains, chainId).publicClient.readContract({
    address: token,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [owner.account.address],
  })
}

/** Approves the Delta contract for `required` of `token` from the session's account; returns the spender and a deadline. */
async function approveDeltaFor(
  sandbox: RunningSandbox,
  session: ClientSession,
  token: Address,
  required: bigint,
  permitPreference?: 'permit',
) {
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

// Waits are measured on the sandbox clock (30× real time): ten sandbox minutes.
const waitMs = 600_000

describe('trading flows on the sandbox', () => {
  const sandbox = useSandbox({ chainIds: [1, 8453], speed: 30 })
  const token = (symbol: string, chainId = 1): Address => sandboxToken(sandbox(), chainId, symbol).address

  /** An executor trading from one development account, on the sandbox clock, with a journal of its own. */
  async function executorFor(accountIndex: number, settings: Partial<ExecutorSettings> = {}) {
    const context = await sandboxExecutorContext(sandbox(), {
      accountIndex,
      journalFile: directory.path(`account-${accountIndex}.sqlite`),
      clock: sandbox().venue.clock,
      settings,
    })
    opened.push(context)
    return { context, executor: createExecutor(context) }
  }

  /** A same-chain swap forced to Delta, as a strategy would ask for it. */
  function deltaSwap(
    key: string,
    fields: { srcToken: Address; destToken: Address; amount: bigint; side: 'SELL' | 'BUY'; maxSlippageBps: number },
  ) {
    return createIntent({
      clock: sandbox().venue.clock,
      key,
      content: {
        strategy: 'trade-flows',
        kind: 'swap',
        chainId: 1,
        mode: 'delta',
        maxPriceImpactPercent: 5,
        ...fields,
        amount: fields.amount.toString(),
      },
    })
  }

  /**
   * Reconciles the journal with the venue and the chains until the intent's order is final (or `waitMs` of sandbox
   * time passed); every run must check the fills against the chain without an error or a mismatch.
   */
  async function reconcileUntilFinal(context: ExecutorContext, outcome: ExecutionOutcome): Promise<JournalOrder> {
    expect(outcome.status, outcome.reason).toBe('accepted')
    const orderId = outcome.order?.id
    if (orderId === undefined) throw new Error(`intent ${outcome.intent.id} has no order`)
    const until = context.clock.now() + waitMs
    for (;;) {
      const report = await reconcileOrders({
        journal: context.journal,
        api: context.api,
        chains: context.chains,
        account: context.account.address,
        clock: context.clock,
      })
      expect(report.errors).toEqual([])
      expect(report.mismatches).toEqual([])
      const order = context.journal.getOrder({ id: orderId })
      if (!order) throw new Error(`order ${orderId} left the journal`)
      if (isFinalStatus(order.mode, order.status) || context.clock.now() >= until) return order
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }

  /** The permit the journaled order was signed with, checked against the order the venue stores. */
  function permitOf(order: JournalOrder): Hex {
    const permit = (order.signedPayload as { order?: { permit?: unknown } } | null)?.order?.permit
    if (typeof permit !== 'string' || !permit.startsWith('0x')) throw new Error(`order ${order.id} was signed without a permit field`)
    const stored = order.venueId === null ? undefined : sandbox().delta.store.get(order.venueId)
    expect(stored?.signed.kind === 'Order' ? stored.signed.order.permit.toLowerCase() : undefined).toBe(permit.toLowerCase())
    return permit as Hex
  }

  /** The approvals the journal says the account sent on chain 1, as the chain holds them (token, spender, amount). */
  async function approvalsSent(context: ExecutorContext) {
    const client = requireChainClients(context.chains, 1).publicClient
    const sent = context.journal.transactionsFrom(context.account.address, 1).filter((transaction) => transaction.purpose === 'approve')
    return Promise.all(
      sent.map(async ({ txHash }) => {
        const transaction = await client.getTransaction({ hash: txHash as Hex })
        const { functionName, args } = decodeFunctionData({ abi: erc20Abi, data: transaction.input })
        if (functionName !== 'approve') throw new Error(`${txHash} calls ${functionName}, not approve`)
        return { token: getAddress(transaction.to ?? '0x'), spender: getAddress(args[0]), amount: args[1] }
      }),
    )
  }

  const sum = (amounts: readonly bigint[]) => amounts.reduce((total, amount) => total + amount, 0n)

  it('sells with an EIP-2612 permit instead of an approval (224-byte permit, no transaction)', async () => {
    const { context, executor } = await executorFor(1, { permitPreference: 'permit' })
    const usdc = token('USDC')
    const client = requireChainClients(context.chains, 1).publicClient
    const before = await balanceOf(context, 1, usdc)
    const nonceBefore = await client.getTransactionCount({ address: context.account.address })
    const outcome = await executor.execute(
      deltaSwap('permit', { srcToken: usdc, destToken: token('WETH'), amount: parseUnits('300', 6), side: 'SELL', maxSlippageBps: 50 }),
    )
    const order = await reconcileUntilFinal(context, outcome)
    expect(order.status).toBe('COMPLETED')
    expect(size(permitOf(order))).toBe(224)
    expect(context.journal.transactionsFrom(context.account.address, 1)).toEqual([])
    expect(await client.getTransactionCount({ address: context.account.address })).toBe(nonceBefore)
    expect(before - (await balanceOf(context, 1, usdc))).toBe(parseUnits('300', 6))
  })

  it('sells through Permit2: the token approves Permit2 once, the order carries a Permit2 signature', async () => {
    const { context, executor } = await executorFor(2, { permitPreference: 'permit2' })
    const wbtc = token('WBTC')
    const before = await balanceOf(context, 1, wbtc)
    const outcome = await executor.execute(
      deltaSwap('permit2', { srcToken: wbtc, destToken: token('USDC'), amount: parseUnits('0.05', 8), side: 'SELL', maxSlippageBps: 50 }),
    )
    const order = await reconcileUntilFinal(context, outcome)
    expect(order.status).toBe('COMPLETED')
    expect([1, 96, 192]).toContain(size(permitOf(order)))
    expect(await approvalsSent(context)).toEqual([{ token: getAddress(wbtc), spender: permit2Address, amount: parseUnits('0.05', 8) }])
    expect(before - (await balanceOf(context, 1, wbtc))).toBe(parseUnits('0.05', 8))
  })

  it('buys an exact amount with an approval, spending no more than the signed maximum', async () => {
    const { context, executor } = await executorFor(3)
    const [usdc, wbtc] = [token('USDC'), token('WBTC')]
    const before = { usdc: await balanceOf(context, 1, usdc), wbtc: await balanceOf(context, 1, wbtc) }
    const outcome = await executor.execute(
      deltaSwap('buy', { srcToken: usdc, destToken: wbtc, amount: parseUnits('0.02', 8), side: 'BUY', maxSlippageBps: 100 }),
    )
    const order = await reconcileUntilFinal(context, outcome)
    expect(order.status).toBe('COMPLETED')
    const delta = resolveSpender({ contracts: context.contracts, chainId: 1, mode: 'delta' }).address
    expect(await approvalsSent(context)).toMatchObject([{ token: getAddress(usdc), spender: getAddress(delta) }])
    const fills = context.journal.fillsOf(order.id)
    const received = (await balanceOf(context, 1, wbtc)) - before.wbtc
    const spent = before.usdc - (await balanceOf(context, 1, usdc))
    expect(received).toBe(parseUnits('0.02', 8))
    expect(sum(fills.map((fill) => fill.receivedAmount))).toBe(received)
    expect(sum(fills.map((fill) => fill.spentAmount))).toBe(spent)
    const signedMaximum = BigInt(String((order.signedPayload as { order: { srcAmount: string } }).order.srcAmount))
    expect(spent).toBeGreaterThan(0n)
    expect(spent).toBeLessThanOrEqual(signedMaximum)
  })

  it('resets a USDT-style allowance to 0 before approving a new amount', async () => {
    const { context, executor } = await executorFor(4)
    const usdt = token('USDT')
    const delta = resolveSpender({ contracts: context.contracts, chainId: 1, mode: 'delta' }).address
    // A leftover allowance from outside the bot: USDT refuses to change it to another non-zero amount.
    const wallet = sandboxWallet(sandbox(), 1, 4)
    const leftover = await wallet.writeContract({ address: usdt, abi: erc20Abi, functionName: 'approve', args: [delta, 1n] })
    await waitForLocalReceipt(wallet, leftover)
    const before = await balanceOf(context, 1, usdt)
    const outcome = await executor.execute(
      deltaSwap('usdt', { srcToken: usdt, destToken: token('USDC'), amount: parseUnits('40', 6), side: 'SELL', maxSlippageBps: 50 }),
    )
    const order = await reconcileUntilFinal(context, outcome)
    expect(order.status).toBe('COMPLETED')
    expect(await approvalsSent(context)).toEqual([
      { token: getAddress(usdt), spender: getAddress(delta), amount: 0n },
      { token: getAddress(usdt), spender: getAddress(delta), amount: parseUnits('40', 6) },
    ])
    expect(before - (await balanceOf(context, 1, usdt))).toBe(parseUnits('40', 6))
  })

  it('completes a crosschain order: source leg on chain 1, USDC delivered on chain 8453', async () => {
    expect((await request(sandbox().url, 'POST', '/_sandbox/bridge', { failures: 'never' })).status).toBe(200)
    const { context, executor } = await executorFor(5)
    const [source, destination] = [token('USDC'), token('USDC', 8453)]
    const before = { source: await balanceOf(context, 1, source), destination: await balanceOf(context, 8453, destination) }
    const outcome = await executor.execute(
      createIntent({
        clock: sandbox().venue.clock,
        key: 'crosschain',
        content: {
          strategy: 'trade-flows',
          kind: 'crosschain',
          chainId: 1,
          destChainId: 8453,
          srcToken: source,
          destToken: destination,
          amount: parseUnits('120', 6).toString(),
          side: 'SELL',
          maxSlippageBps: 50,
          maxPriceImpactPercent: 5,
        },
      }),
    )
    const order = await reconcileUntilFinal(context, outcome)
    expect(order.status).toBe('COMPLETED')
    const fills = context.journal.fillsOf(order.id)
    expect(fills).toHaveLength(1)
    expect(fills[0]).toMatchObject({ chainId: 1, destinationChainId: 8453, destinationTxHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) })
    expect(before.source - (await balanceOf(context, 1, source))).toBe(parseUnits('120', 6))
    const received = (await balanceOf(context, 8453, destination)) - before.destination
    expect(received).toBeGreaterThan(0n)
    expect(fills[0]?.receivedAmount).toBe(received)
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
