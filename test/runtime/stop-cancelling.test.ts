import { execFile } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { createApiClient } from '../../src/api/client.js'
import type { ExecutorContext } from '../../src/exec/executor/executor-context.js'
import { createKillSwitch, type KillSwitch } from '../../src/exec/risk/kill-switch.js'
import { decimalsFromTokenList } from '../../src/feed/token-decimals.js'
import { openJournal } from '../../src/journal/journal.js'
import { createLogger } from '../../src/log/logger.js'
import { type BotStopReport, createBot } from '../../src/runtime/bot.js'
import { settleOrders } from '../../src/runtime/settle-order.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { createSafeStrategy } from '../../src/strategy/safe-strategy.js'
import { type Clock, systemClock } from '../../src/time/clock.js'
import ladder from '../../strategies/ladder/index.js'
import { sandboxExecutorContext } from '../helpers/executor.js'
import { farLadderConfig } from '../helpers/far-ladder.js'
import { placeOpenLimitOrders } from '../helpers/open-limit-orders.js'
import { sandboxToken, useSandbox } from '../helpers/sandbox.js'
import { createTempDirectory } from '../helpers/temp-directory.js'
import { waitFor } from '../helpers/wait-for.js'
import { recordSampleOrder } from '../journal/journal-fixtures.js'

// At stop, orders still CANCELLING are followed until final for a bounded time of the venue's clock, and what is still
// pending is named; the kill switch cancels hundreds of open orders in batches the service accepts. The sandbox runs at
// a fifth of real time: its relayer confirms a cancellation after one sandbox second, five real seconds.

const root = fileURLToPath(new URL('../..', import.meta.url))
const run = promisify(execFile)
const directory = createTempDirectory('deltaflow-stop-')
const logger = createLogger({ level: 'silent' })
const opened: ExecutorContext[] = []
const switches: KillSwitch[] = []
afterAll(() => {
  for (const context of opened) context.journal.close()
  for (const killSwitch of switches) killSwitch.dispose()
  directory.cleanup()
})

const weth = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'
const usdc = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'

/** Sells 0.01 WETH at four prices far above any market: every level stays open until cancelled on stop. */
const farLadder = { ...farLadderConfig({ weth, usdc }), cancelOnStop: true }

describe('settleOrders', () => {
  it('follows for the venue time asked on a clock running at any speed, and names the orders still pending', async () => {
    const journal = openJournal({ file: directory.path('settle.sqlite'), clock: systemClock })
    try {
      const orderId = recordSampleOrder(journal, 'never-final')
      // Three times real time: 100 ms of it is 33.3 real ms.
      const clock: Clock & { speed: number } = { now: () => Math.floor(Date.now() * 3), speed: 3 }
      const session = {
        journal,
        api: createApiClient({ baseUrl: 'http://127.0.0.1:9', rateLimit: false, retry: false }),
        chains: new Map(),
        account: { address: developmentAccounts[0]?.address ?? '0x' } as ExecutorContext['account'],
        clock,
      }
      const settled = await settleOrders(session, { orderIds: [orderId], waitMs: 100, pollMs: 10 })
      expect(settled.final).toEqual([])
      expect(settled.pending.map((order) => [order.id, order.status])).toEqual([[orderId, 'SIGNED']])
      expect(settled.waitedMs).toBeGreaterThanOrEqual(100)
    } finally {
      journal.close()
    }
  })
})

describe('the bot over CANCELLING orders', () => {
  const sandbox = useSandbox({ chainIds: [1], speed: 0.2 })

  async function contextFor(accountIndex: number, killSwitch?: KillSwitch): Promise<ExecutorContext> {
    const s = sandbox()
    const context = await sandboxExecutorContext(s, {
      accountIndex,
      journalFile: directory.path(`account-${accountIndex}.sqlite`),
      clock: s.venue.clock,
      settings: { approvalPolicy: 'unlimited' },
      ...(killSwitch ? { killSwitch } : {}),
    })
    opened.push(context)
    // The sandbox has no rate limit: reading hundreds of orders one by one need not wait for the client's.
    return { ...context, api: createApiClient({ baseUrl: s.url, rateLimit: false, retry: { retries: 2 } }) }
  }

  const decimalsOf = () =>
    decimalsFromTokenList([
      { chainId: 1, ...sandboxToken(sandbox(), 1, 'WETH') },
      { chainId: 1, ...sandboxToken(sandbox(), 1, 'USDC') },
    ])

  it('follows the ladder’s cancels on stop until CANCELLED, and reports nothing pending', async () => {
    const context = await contextFor(6)
    const strategy = createSafeStrategy(ladder, { config: farLadder, clock: context.clock, journal: context.journal, logger })
    const bot = createBot({
      context,
      strategies: [strategy],
      feedIntervalMs: 1_000,
      reconcileIntervalMs: 200,
      decimalsOf: decimalsOf(),
      logger,
    })
    await bot.start()
    await waitFor('four open levels at the venue', () => {
      const orders = context.journal.listOrders({ strategy: 'ladder' })
      return orders.length === 4 && orders.every((order) => order.status === 'ACTIVE') ? orders : undefined
    })

    const report = await bot.stop()

    const orders = context.journal.listOrders({ strategy: 'ladder' })
    expect(orders.map((order) => order.status)).toEqual(['CANCELLED', 'CANCELLED', 'CANCELLED', 'CANCELLED'])
    expect(report).toMatchObject({ followed: 4, pending: [], stopWaitMs: 10_000 })
    expect(report.waitedMs).toBeLessThan(10_000)
    for (const order of orders) {
      const history = context.journal.orderHistory(order.id).map((change) => change.status)
      expect(history.slice(-2)).toEqual(['CANCELLING', 'CANCELLED'])
    }
  })

  it('the kill switch cancels 250 open orders in three batches; stop follows them until every one is CANCELLED', async () => {
    const killSwitch = createKillSwitch({ cancelOpenOrders: true })
    switches.push(killSwitch)
    const context = await contextFor(5, killSwitch)
    const tokens = { usdc: sandboxToken(sandbox(), 1, 'USDC').address, weth: sandboxToken(sandbox(), 1, 'WETH').address }
    const placed = await placeOpenLimitOrders(context, sandbox().url, { count: 250, key: 'kill', tokens })
    const bot = createBot({
      context,
      strategies: [],
      feedIntervalMs: 1_000,
      reconcileIntervalMs: 200,
      decimalsOf: decimalsOf(),
      logger,
      stopWaitMs: 60_000,
    })
    await bot.start()

    killSwitch.trip('drawdown alarm')
    const statusOf = (id: string) => context.journal.getOrder({ id })?.status
    await waitFor('every order cancelling', () =>
      placed.every((order) => ['CANCELLING', 'CANCELLED'].includes(statusOf(order.id) ?? '')) ? true : undefined,
    )
    const report: BotStopReport = await bot.stop()

    expect(report.pending).toEqual([])
    expect(placed.map((order) => statusOf(order.id)).filter((status) => status !== 'CANCELLED')).toEqual([])
    // One journaled batch per signed cancellation: 100, 100 and 50 orders.
    const batches = new Map<string, number>()
    for (const order of placed) {
      const reason = context.journal.orderHistory(order.id).find((change) => change.status === 'CANCELLING')?.reason ?? 'none'
      const batch = /^cancel requested: batch (\d\/\d) on chain 1 \(0x[0-9a-f]{64}\)$/.exec(reason)?.[1] ?? reason
      batches.set(batch, (batches.get(batch) ?? 0) + 1)
    }
    expect(Object.fromEntries(batches)).toEqual({ '1/3': 100, '2/3': 100, '3/3': 50 })
  })

  it('the kill switch tries a cancellation the venue refused again at the next pass', async () => {
    const killSwitch = createKillSwitch({ cancelOpenOrders: true })
    switches.push(killSwitch)
    const s = sandbox()
    const base = await contextFor(4, killSwitch)
    const tokens = { usdc: sandboxToken(s, 1, 'USDC').address, weth: sandboxToken(s, 1, 'WETH').address }
    const placed = await placeOpenLimitOrders(base, s.url, { count: 3, key: 'retry', tokens })
    // The venue is unavailable for the first cancel call (a fault the sandbox does not produce on demand).
    let cancelCalls = 0
    const flakyFetch: typeof fetch = (input, init) => {
      if (String(input instanceof Request ? input.url : input).endsWith('/v2/delta/orders/cancel') && ++cancelCalls === 1) {
        return Promise.resolve(new Response(JSON.stringify({ error: 'Service Unavailable' }), { status: 503 }))
      }
      return fetch(input, init)
    }
    const context = { ...base, api: createApiClient({ baseUrl: s.url, rateLimit: false, retry: false, fetch: flakyFetch }) }
    const bot = createBot({ context, strategies: [], feedIntervalMs: 1_000, reconcileIntervalMs: 200, decimalsOf: decimalsOf(), logger })
    await bot.start()

    killSwitch.trip('drawdown alarm')
    const statusOf = (id: string) => context.journal.getOrder({ id })?.status
    await waitFor('every order cancelling', () =>
      placed.every((order) => ['CANCELLING', 'CANCELLED'].includes(statusOf(order.id) ?? '')) ? true : undefined,
    )
    await bot.stop()
    expect(cancelCalls).toBe(2)
    expect(placed.map((order) => statusOf(order.id))).toEqual(['CANCELLED', 'CANCELLED', 'CANCELLED'])
  })

  it('deltaflow run names the orders still CANCELLING when --stop-wait is up, in its summary and its --json output', async () => {
    const s = sandbox()
    const runLadder = async (accountIndex: number, json: boolean) => {
      const journalFile = directory.path(`run-${accountIndex}.sqlite`)
      const config = directory.path(`run-${accountIndex}.yaml`)
      writeFileSync(
        config,
        [
          'mode: paper',
          `venue: { url: "${s.url}", requestsPerSecond: 1000 }`,
          `chains: { "1": { rpcUrls: ["${s.chains[0]?.rpcUrl}"] } }`,
          'wallet: { privateKeyEnv: STOP_TEST_KEY }',
          `db: ${journalFile}`,
          'reconcile: { intervalMs: 200 }',
          'strategies:',
          '  - name: far-ladder',
          '    use: ladder',
          `    config: ${JSON.stringify(farLadder)}`,
          '',
        ].join('\n'),
      )
      // A tenth of a sandbox second to follow them: the relayer needs a whole one.
      const args = ['bin/deltaflow.js', 'run', config, '--for', '6', '--stop-wait', '0.1', ...(json ? ['--json'] : [])]
      const { stdout } = await run(process.execPath, args, {
        cwd: root,
        env: { ...process.env, DELTAFLOW_LOG_LEVEL: 'warn', STOP_TEST_KEY: developmentAccounts[accountIndex]?.privateKey ?? '' },
        maxBuffer: 16 * 2 ** 20,
      })
      const journal = openJournal({ file: journalFile, clock: systemClock })
      try {
        return { stdout, orders: journal.listOrders({ strategy: 'far-ladder' }) }
      } finally {
        journal.close()
      }
    }
    const [text, json] = await Promise.all([runLadder(7, false), runLadder(8, true)])

    const document = JSON.parse(json.stdout) as { stop: BotStopReport }
    expect(document.stop).toMatchObject({ followed: 4, stopWaitMs: 100 })
    expect(document.stop.pending.map((order) => [order.id, order.strategy, order.status])).toEqual(
      json.orders.map((order) => [order.id, 'far-ladder', 'CANCELLING']),
    )
    expect(json.orders.map((order) => order.venueId)).toEqual(document.stop.pending.map((order) => order.venueId))

    expect(text.stdout).toContain('cancelling at stop: 4 order(s) followed')
    expect(text.stdout).toContain('still pending after 0.1 s (the next start or `deltaflow reconcile` follows them):')
    expect(text.orders).toHaveLength(4)
    for (const order of text.orders) {
      expect(order.status).toBe('CANCELLING')
      expect(text.stdout).toContain(`  ${order.id}  CANCELLING  strategy far-ladder  chain 1  venue id ${order.venueId}`)
    }
  })
})
