import { type Address, parseEther } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createApiClient } from '../../src/api/client.js'
import { getDeltaOrderByHash } from '../../src/api/delta/get-delta-order-by-hash.js'
import { getDeltaOrders } from '../../src/api/delta/get-delta-orders.js'
import { ApiServerError } from '../../src/api/errors.js'
import { getContracts } from '../../src/api/resources/get-contracts.js'
import { createChainClients } from '../../src/chain/chain-clients.js'
import type { DeploymentContracts } from '../../src/chain/deployment.js'
import { orderIdOf } from '../../src/domain/order-id.js'
import type { IntentResult } from '../../src/domain/order-views.js'
import { failureReasonOf } from '../../src/exec/executor/execution-errors.js'
import { createExecutor } from '../../src/exec/executor/executor.js'
import { createExecutorContext, type ExecutorContext } from '../../src/exec/executor/executor-context.js'
import { riskLimitsSchema } from '../../src/exec/risk/risk-limits-schema.js'
import { decimalsFromTokenList } from '../../src/feed/token-decimals.js'
import { openJournal } from '../../src/journal/journal.js'
import { createLogger } from '../../src/log/logger.js'
import { createBot } from '../../src/runtime/bot.js'
import { createOrderEventTracker } from '../../src/runtime/order-event-tracker.js'
import { createStrategyDispatch } from '../../src/runtime/strategy-dispatch.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js'
import { defineStrategy } from '../../src/strategy/define-strategy.js'
import { createSafeStrategy } from '../../src/strategy/safe-strategy.js'
import { systemClock } from '../../src/time/clock.js'
import ladder from '../../strategies/ladder/index.js'
import { type LadderState, ladderStateSchema } from '../../strategies/ladder/ladder-state.js'
import { sandboxToken, useSandbox } from '../helpers/sandbox.js'
import { createTempDirectory } from '../helpers/temp-directory.js'
import { waitFor as waitUntil } from '../helpers/wait-for.js'

/** waitFor with this file's bounds. */
const waitFor = <T>(what: string, read: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000) =>
  waitUntil(what, read, timeoutMs, 50)

const directory = createTempDirectory('deltaflow-intent-failure-')
afterAll(() => directory.cleanup())

const logger = createLogger({ level: 'silent' })
const submission = '/v2/delta/orders'
const lookupByHash = '/v2/delta/orders/hash/'

/**
 * What the venue's transport does to the bot's requests: `error` answers 500 without the venue seeing the request;
 * `truncate` lets the venue act, then cuts its 200 answer in half (unreadable JSON), as a dropped connection would.
 */
type Faults = {
  prices: 'pass' | 'error'
  submissions: 'pass' | 'error' | 'truncate'
  lookups: 'pass' | 'truncate'
}

/** The global fetch with `faults` injected, counting the submissions that reach the venue. */
function faultyFetch(faults: Faults) {
  const reached = { submissions: 0 }
  const serverError = () =>
    new Response(JSON.stringify({ error: 'Internal Server Error' }), { status: 500, headers: { 'content-type': 'application/json' } })
  const truncated = async (answer: Response) => {
    const text = await answer.text()
    if (answer.status !== 200) return new Response(text, { status: answer.status, headers: answer.headers })
    return new Response(text.slice(0, Math.floor(text.length / 2)), { status: 200, headers: { 'content-type': 'application/json' } })
  }
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const url = new URL(String(input))
    const method = init?.method ?? 'GET'
    if (url.pathname === '/v2/delta/prices' && faults.prices === 'error') return serverError()
    if (method === 'POST' && url.pathname === submission) {
      if (faults.submissions === 'error') return serverError()
      reached.submissions += 1
      const answer = await globalThis.fetch(input, init)
      return faults.submissions === 'truncate' ? truncated(answer) : answer
    }
    if (url.pathname.startsWith(lookupByHash) && faults.lookups === 'truncate') return truncated(await globalThis.fetch(input, init))
    return globalThis.fetch(input, init)
  }
  return { fetch, reached }
}

let contracts: DeploymentContracts | undefined

/** An executor context over the sandbox whose API client goes through `fetch` (short retry delays) and a journal file. */
async function executorContext(
  sandbox: RunningSandbox,
  { accountIndex, journalFile, fetch }: { accountIndex: number; journalFile: string; fetch?: typeof globalThis.fetch },
): Promise<ExecutorContext> {
  const account = privateKeyToAccount(developmentAccounts[accountIndex]?.privateKey ?? '0x')
  const api = createApiClient({ baseUrl: sandbox.url, retry: { retries: 2, minDelayMs: 5, maxDelayMs: 20 }, fetch })
  contracts ??= Object.fromEntries((await getContracts(api)).chains)
  return createExecutorContext({
    api,
    chains: createChainClients({
      chains: sandbox.chains.map((chain) => ({ chainId: chain.chainId, rpcUrls: [chain.rpcUrl] })),
      account,
      pollingIntervalMs: 50,
    }),
    contracts,
    account,
    journal: openJournal({ file: journalFile, clock: systemClock }),
    clock: systemClock,
    limits: riskLimitsSchema.parse({}),
  })
}

/** The venue's copy of an order, asked without faults; undefined when the venue does not hold it (404). */
async function venueOrder(sandbox: RunningSandbox, orderHash: string | null) {
  const api = createApiClient({ baseUrl: sandbox.url })
  return getDeltaOrderByHash(api, { orderHash: orderHash as `0x${string}` }).catch((error: { status?: number }) => {
    if (error.status === 404) return undefined
    throw error
  })
}

/** The failed result a strategy hears for an error of the venue's transport, as its journaled reason names it. */
const failedWith = (reason: RegExp) => ({ status: 'failed', reason: expect.stringMatching(reason) })
const serverErrorReason = /^ApiServerError \(retryable\): POST \/v2\/delta\/orders failed on the service side \(500\)$/
const unreadableReason = /^Api\w*Error \((retryable|fatal)\): .*POST \/v2\/delta\/orders/

describe('failureReasonOf', () => {
  it('names the error, its class and code, and keeps only the scheme and host of a URL', () => {
    const served = new ApiServerError({
      endpoint: 'POST /v2/delta/orders',
      path: '/v2/delta/orders',
      status: 503,
      message: 'down',
      extra: {},
    })
    expect(failureReasonOf(served)).toBe('ApiServerError (retryable): POST /v2/delta/orders failed on the service side (503)')
    const rpc = Object.assign(new Error('request to https://operator:pw-1@rpc.example.org/v3/key-2?apikey=key-3 failed\nURL: x'), {
      code: 'ECONNRESET',
    })
    expect(failureReasonOf(rpc)).toBe('Error (code ECONNRESET): request to https://rpc.example.org failed')
    expect(failureReasonOf('a string')).toBe('a string')
    expect(failureReasonOf(new Error('x'.repeat(2_000))).length).toBe(500)
  })
})

describe('an intent whose execution throws', () => {
  const sandbox = useSandbox({ chainIds: [1] })
  let weth: { address: Address; decimals: number }
  let usdc: { address: Address; decimals: number }
  beforeAll(() => {
    weth = sandboxToken(sandbox(), 1, 'WETH')
    usdc = sandboxToken(sandbox(), 1, 'USDC')
  })

  /** A strategy placing one LIMIT sell of 0.01 WETH far above the market on start, and recording its intent results. */
  function oneLimit(results: IntentResult[], key = 'one') {
    return defineStrategy({
      apiVersion: 1,
      name: 'one-limit',
      configSchema: z.strictObject({ chainId: z.literal(1) }),
      subscriptions: () => [],
      onStart: () => ({
        key,
        intent: {
          kind: 'limit',
          chainId: 1,
          srcToken: weth.address,
          destToken: usdc.address,
          srcAmount: parseEther('0.01'),
          destAmount: 1_000_000_000n,
          validitySeconds: 3600,
        },
      }),
      onIntentResult: (event) => {
        results.push(event)
      },
    })
  }

  /** The dispatch the bot and the backtest share, over one strategy and `execute`. */
  function dispatchOf(context: ExecutorContext, results: IntentResult[], execute = createExecutor(context).execute, key = 'one') {
    const strategy = createSafeStrategy(oneLimit(results, key), {
      config: { chainId: 1 },
      clock: systemClock,
      journal: context.journal,
      logger,
    })
    const tracker = createOrderEventTracker(context.journal, ['one-limit'])
    return createStrategyDispatch({ strategies: [strategy], execute, tracker, logger })
  }

  it('journals a 500 on pricing as failed before acceptance and tells the strategy', async () => {
    const faults: Faults = { prices: 'error', submissions: 'pass', lookups: 'pass' }
    const context = await executorContext(sandbox(), {
      accountIndex: 7,
      journalFile: directory.path('pricing.sqlite'),
      ...faultyFetch(faults),
    })
    const results: IntentResult[] = []
    const dispatch = dispatchOf(context, results)
    await dispatch.start()
    await dispatch.settle()

    expect(results).toEqual([
      expect.objectContaining({
        status: 'failed',
        orderId: null,
        reason: expect.stringMatching(/^ApiServerError \(retryable\): GET \/v2\/delta\/prices/),
      }),
    ])
    const [intent] = context.journal.intentsOf('one-limit')
    expect(intent).toMatchObject({ id: results[0]?.intentId, status: 'failed', refusalLimit: 'pricing', refusalReason: results[0]?.reason })
    expect(context.journal.listOrders()).toEqual([])
    expect(dispatch.stats()).toMatchObject({ executions: { failed: 1 }, executionErrors: 0, intentResults: 1 })
    context.journal.close()
  })

  it('journals an RPC error as failed with the error’s name, never the RPC URL’s credentials or key', async () => {
    const context = await executorContext(sandbox(), { accountIndex: 7, journalFile: directory.path('rpc.sqlite') })
    const rpcUrl = 'http://operator:rpc-password@127.0.0.1:9/v3/rpc-key-123'
    const offline: ExecutorContext = {
      ...context,
      chains: createChainClients({ chains: [{ chainId: 1, rpcUrls: [rpcUrl] }], account: context.account, pollingIntervalMs: 50 }),
    }
    const results: IntentResult[] = []
    const dispatch = dispatchOf(offline, results, createExecutor(offline).execute, 'rpc')
    await dispatch.start()
    await dispatch.settle()

    expect(results).toEqual([
      expect.objectContaining({ status: 'failed', orderId: null, reason: expect.stringMatching(/^\w+Error\b.*: /) }),
    ])
    const [intent] = context.journal.intentsOf('one-limit')
    expect(intent).toMatchObject({ status: 'failed', refusalLimit: 'execution', refusalReason: results[0]?.reason })
    for (const secret of ['rpc-password', 'rpc-key-123', 'operator']) expect(results[0]?.reason).not.toContain(secret)
    context.journal.close()
  })

  it('resolves an unreadable answer to a submission the venue took by its hash at once: accepted, one order', async () => {
    const faults: Faults = { prices: 'pass', submissions: 'truncate', lookups: 'pass' }
    const { fetch, reached } = faultyFetch(faults)
    const context = await executorContext(sandbox(), { accountIndex: 7, journalFile: directory.path('truncated.sqlite'), fetch })
    const results: IntentResult[] = []
    const dispatch = dispatchOf(context, results)
    await dispatch.start()
    await dispatch.settle()

    expect(results).toEqual([expect.objectContaining({ status: 'accepted', reason: null })])
    const order = context.journal.getOrder({ id: orderIdOf(results[0]?.intentId ?? '') })
    // Live at the venue: PENDING until the sandbox's next round activates the LIMIT order, ACTIVE after it.
    const history = context.journal.orderHistory(order?.id ?? '')
    expect(order?.submitted, JSON.stringify(history)).toBe(true)
    expect(['PENDING', 'ACTIVE'], JSON.stringify(history)).toContain(order?.status)
    expect(reached.submissions).toBeGreaterThanOrEqual(1)
    const atVenue = await venueOrder(sandbox(), order?.orderHash ?? null)
    expect(atVenue?.id).toBe(order?.venueId)
    context.journal.close()
  })

  it('fails the intent when nothing the venue answers can be read; a restart takes the venue’s copy without sending it again', async () => {
    const journalFile = directory.path('unreadable.sqlite')
    const faults: Faults = { prices: 'pass', submissions: 'truncate', lookups: 'truncate' }
    const { fetch, reached } = faultyFetch(faults)
    const context = await executorContext(sandbox(), { accountIndex: 8, journalFile, fetch })
    const results: IntentResult[] = []
    const dispatch = dispatchOf(context, results)
    await dispatch.start()
    await dispatch.settle()

    expect(results).toEqual([expect.objectContaining(failedWith(unreadableReason))])
    const intentId = results[0]?.intentId ?? ''
    expect(context.journal.getIntent(intentId)).toMatchObject({
      status: 'failed',
      refusalLimit: 'submission',
      refusalReason: results[0]?.reason,
    })
    const inDoubt = context.journal.getOrder({ id: orderIdOf(intentId) })
    expect(inDoubt).toMatchObject({ submitted: false, status: 'SIGNED' })
    // The venue took it: its answers were lost, not the order.
    const atVenue = await venueOrder(sandbox(), inDoubt?.orderHash ?? null)
    expect(atVenue).toBeDefined()
    context.journal.close()

    // A restart over the same journal, the venue readable again: recovery finds the order by hash and follows it.
    const restarted = await executorContext(sandbox(), { accountIndex: 8, journalFile, fetch })
    faults.submissions = 'pass'
    faults.lookups = 'pass'
    const sent = reached.submissions
    const recovery = await createExecutor(restarted).recover()
    // Live at the venue either way: PENDING until the sandbox's next round activates the LIMIT order, ACTIVE after.
    const live = /^(PENDING|ACTIVE)$/
    expect(recovery).toEqual([
      {
        orderId: inDoubt?.id,
        mode: 'delta',
        outcome: 'submitted',
        detail: expect.stringMatching(new RegExp(`^at the venue as ${atVenue?.id}, (PENDING|ACTIVE)$`)),
      },
    ])
    expect(reached.submissions).toBe(sent)
    expect(restarted.journal.getOrder({ id: inDoubt?.id ?? '' })).toMatchObject({
      submitted: true,
      venueId: atVenue?.id,
      status: expect.stringMatching(live),
    })
    // The intent stays failed (its strategy was told so); its order is followed like any other.
    expect(restarted.journal.getIntent(intentId)?.status).toBe('failed')
    expect(restarted.journal.openOrders().map((order) => order.id)).toEqual([inDoubt?.id])
    expect(await createExecutor(restarted).recover()).toEqual([])
    restarted.journal.close()
  })

  it('tells the strategy `failed` with the error when execute itself rejects (the journal cannot record it)', async () => {
    const context = await executorContext(sandbox(), { accountIndex: 7, journalFile: directory.path('strategy.sqlite') })
    const broken = await executorContext(sandbox(), { accountIndex: 7, journalFile: directory.path('closed.sqlite') })
    broken.journal.close()
    const results: IntentResult[] = []
    const dispatch = dispatchOf(context, results, createExecutor(broken).execute, 'two')
    await dispatch.start()
    await dispatch.settle()

    expect(results).toEqual([
      expect.objectContaining({ status: 'failed', orderId: null, reason: 'TypeError: The database connection is not open' }),
    ])
    expect(dispatch.stats()).toMatchObject({
      executionErrors: 1,
      intentResults: 1,
      executions: { accepted: 0, refused: 0, failed: 0, done: 0 },
    })
    context.journal.close()
  })

  it('tells a ladder its levels failed on repeated 500s, journals why, and the ladder places them again once the venue recovers', async () => {
    const journalFile = directory.path('ladder.sqlite')
    const faults: Faults = { prices: 'pass', submissions: 'error', lookups: 'pass' }
    const { fetch, reached } = faultyFetch(faults)
    const context = await executorContext(sandbox(), { accountIndex: 9, journalFile, fetch })
    const results: IntentResult[] = []
    const recordingLadder = {
      ...ladder,
      onIntentResult: (event: IntentResult, strategyContext: Parameters<NonNullable<typeof ladder.onIntentResult>>[1]) => {
        results.push(event)
        return ladder.onIntentResult?.(event, strategyContext)
      },
    }
    const config = {
      chainId: 1,
      side: 'sell',
      base: weth,
      quote: usdc,
      lowerPrice: '100000',
      upperPrice: '100100',
      levels: 2,
      sizePerLevel: parseEther('0.01').toString(),
      validitySeconds: 3600,
      retrySeconds: 1,
    }
    const strategy = createSafeStrategy(recordingLadder, { config, clock: systemClock, journal: context.journal, logger })
    const bot = createBot({
      context,
      strategies: [strategy],
      feedIntervalMs: 1_000,
      reconcileIntervalMs: 200,
      decimalsOf: decimalsFromTokenList([
        { chainId: 1, ...weth },
        { chainId: 1, ...usdc },
      ]),
      logger,
    })
    const state = (): LadderState => ladderStateSchema.parse(context.journal.getStrategyState('ladder', 'ladder'))
    await bot.start()
    const [first, second] = state().levels.map((level) => level.intentId)

    const failed = await waitFor('both first orders failed', () => {
      const heard = results.filter((result) => result.intentId === first || result.intentId === second)
      return heard.length === 2 ? heard : undefined
    })
    for (const result of failed) {
      expect(result).toMatchObject({ ...failedWith(serverErrorReason), kind: 'limit', orderId: orderIdOf(result.intentId) })
      expect(context.journal.getIntent(result.intentId)).toMatchObject({
        status: 'failed',
        refusalLimit: 'submission',
        refusalReason: result.reason,
      })
    }
    expect(reached.submissions).toBe(0)

    // The venue recovers: each level is placed again as a later generation, and reaches the venue.
    faults.submissions = 'pass'
    const placed = await waitFor('both levels placed again and ACTIVE at the venue', () => {
      const levels = state().levels
      const orders = levels.map((level) => context.journal.getOrder({ id: orderIdOf(level.intentId) }))
      const ready = levels.every((level) => level.phase === 'open' && level.generation >= 1)
      return ready && orders.every((order) => order?.submitted && order.status === 'ACTIVE') ? orders : undefined
    })
    await bot.stop()
    expect(bot.stats()).toMatchObject({ executionErrors: 0 })
    expect(bot.stats().executions.failed).toBeGreaterThanOrEqual(2)
    expect(bot.stats().executions.accepted).toBeGreaterThanOrEqual(2)

    // At the venue: exactly the two current orders; none of the failed ones.
    const venue = await getDeltaOrders(context.api, { userAddress: context.account.address, limit: 100 })
    expect(venue.data.map((order) => order.orderHash.toLowerCase()).sort()).toEqual(placed.map((order) => order?.orderHash).sort())

    // The failed intents' orders the venue never received were looked up again at the bot's reconciliation passes and
    // closed unsent, never submitted late; a restart then has nothing in flight.
    expect(context.journal.inFlightOrders()).toEqual([])
    expect(await createExecutor(context).recover()).toEqual([])
    for (const result of failed) {
      const order = context.journal.getOrder({ id: orderIdOf(result.intentId) })
      expect(order).toMatchObject({ submitted: false, status: 'EXPIRED' })
      expect(context.journal.getIntent(result.intentId)?.status).toBe('failed')
      expect(await venueOrder(sandbox(), order?.orderHash ?? '')).toBeUndefined()
    }
    context.journal.close()
  })
})
