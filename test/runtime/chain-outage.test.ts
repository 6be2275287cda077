import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createApiClient } from '../../src/api/client.js'
import { getDeltaOrders } from '../../src/api/delta/get-delta-orders.js'
import { getContracts } from '../../src/api/resources/get-contracts.js'
import { createChainClients } from '../../src/chain/chain-clients.js'
import { isFinalStatus } from '../../src/domain/order-status.js'
import { createExecutorContext, type ExecutorContext } from '../../src/exec/executor/executor-context.js'
import { riskLimitsSchema } from '../../src/exec/risk/risk-limits-schema.js'
import { decimalsFromTokenList } from '../../src/feed/token-decimals.js'
import { checkConservation } from '../../src/journal/conservation.js'
import { openJournal } from '../../src/journal/journal.js'
import { createLogger } from '../../src/log/logger.js'
import { type Bot, createBot } from '../../src/runtime/bot.js'
import { createBotMetrics } from '../../src/runtime/bot-metrics.js'
import { type ConnectionHealth, createConnectionHealth } from '../../src/runtime/connection-health.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { defineStrategy } from '../../src/strategy/define-strategy.js'
import { createSafeStrategy } from '../../src/strategy/safe-strategy.js'
import type { IntentResultEvent } from '../../src/strategy/strategy-events.js'
import { systemClock } from '../../src/time/clock.js'
import { sandboxToken, useSandbox } from '../helpers/sandbox.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

const directory = createTempDirectory('deltaflow-chain-outage-')
afterAll(() => directory.cleanup())
const logger = createLogger({ level: 'silent' })

/**
 * The anvil process listening on `rpcUrl`, among this process's descendants: the loopback socket's inode from
 * /proc/net/tcp, then the descendant holding it.
 */
function nodeProcessOf(rpcUrl: string): number {
  const port = Number(new URL(rpcUrl).port).toString(16).toUpperCase().padStart(4, '0')
  const listening = readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .find((fields) => fields[1]?.endsWith(`:${port}`) && fields[3] === '0A')
  const socket = `socket:[${listening?.[9]}]`
  for (const pid of descendantsOf(process.pid)) {
    try {
      if (readdirSync(`/proc/${pid}/fd`).some((fd) => readlinkSync(`/proc/${pid}/fd/${fd}`) === socket)) return pid
    } catch {
      // Gone meanwhile, or not readable: not the node.
    }
  }
  throw new Error(`no process of this test listens on ${rpcUrl}`)
}

function descendantsOf(root: number): number[] {
  const found: number[] = []
  const queue = [root]
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    let tasks: string[] = []
    try {
      tasks = readdirSync(`/proc/${pid}/task`)
    } catch {
      continue
    }
    for (const task of tasks) {
      const children = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
      found.push(...children)
      queue.push(...children)
    }
  }
  return found
}

async function waitFor<T>(read: () => T | undefined, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = read()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`waitFor: no ${what} within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** A strategy the test drives: each timer tick asks for the swaps the test queued, and every result is kept. */
function pacedStrategy() {
  const queued: { key: string; chainId: number }[] = []
  const results: IntentResultEvent[] = []
  const ids = new Map<string, string>()
  const definition = defineStrategy({
    apiVersion: 1,
    name: 'paced',
    configSchema: z.object({ tokens: z.record(z.string(), z.object({ usdc: z.string(), weth: z.string() })) }),
    subscriptions: () => [],
    timers: () => [1_000],
    onTimer: (_event, { config, intentIdOf }) =>
      queued.splice(0).map(({ key, chainId }) => {
        const tokens = config.tokens[String(chainId)]
        const request = {
          key,
          intent: {
            kind: 'swap' as const,
            chainId,
            srcToken: tokens?.usdc as `0x${string}`,
            destToken: tokens?.weth as `0x${string}`,
            amount: '25000000',
            side: 'SELL' as const,
            mode: 'delta' as const,
            maxSlippageBps: 100,
            maxPriceImpactPercent: 5,
          },
        }
        ids.set(key, intentIdOf(request))
        return request
      }),
    onIntentResult: (event) => {
      results.push(event)
    },
  })
  return {
    definition,
    ask: (key: string, chainId: number) => queued.push({ key, chainId }),
    /** The result of the intent asked for under `key`, once its strategy heard it. */
    resultOf: (key: string) => results.find((result) => result.intentId === ids.get(key)),
    results,
  }
}

describe('a chain whose node stops answering mid-run', () => {
  const sandbox = useSandbox({ chainIds: [1, 8453] })
  const accountIndex = 4
  let frozen: number | undefined

  afterAll(() => {
    // A stopped node never exits: let it go on before the sandbox stops it.
    if (frozen !== undefined) process.kill(frozen, 'SIGCONT')
  })

  /** The bot's context over the sandbox, its RPC and API transports feeding `connections` and the metrics. */
  async function openContext(connections: ConnectionHealth, metrics: ReturnType<typeof createBotMetrics>) {
    const running = sandbox()
    const account = privateKeyToAccount(developmentAccounts[accountIndex]?.privateKey ?? '0x')
    const api = createApiClient({
      baseUrl: running.url,
      timeoutMs: 5_000,
      retry: { retries: 2, minDelayMs: 50, maxDelayMs: 200 },
      observer: (event) => {
        connections.observeApi(event)
        metrics.observeApi(event)
      },
    })
    const chains = createChainClients({
      chains: running.chains.map((chain) => ({ chainId: chain.chainId, rpcUrls: [chain.rpcUrl] })),
      account,
      pollingIntervalMs: 50,
      // A stopped node answers nothing: each call gives up after 1.5 s (and one retry).
      timeoutMs: 1_500,
      observer: (event) => {
        connections.observeRpc(event)
        metrics.observeRpc(event)
      },
    })
    return createExecutorContext({
      api,
      chains,
      contracts: Object.fromEntries((await getContracts(api)).chains),
      account,
      journal: openJournal({ file: directory.path('outage.sqlite'), clock: systemClock }),
      clock: systemClock,
      limits: riskLimitsSchema.parse({}),
      settings: { approvalPolicy: 'unlimited' },
    })
  }

  function isSettled(context: ExecutorContext): true | undefined {
    return context.journal.listOrders().every((order) => isFinalStatus(order.mode, order.status)) ? true : undefined
  }

  it('pauses the chain (new intents fail, reconciliation skips it), resumes when it answers, and loses nothing', async () => {
    const running = sandbox()
    const connections = createConnectionHealth({ clock: systemClock, chainIds: [1, 8453], unhealthyAfterMs: 60_000 })
    let bot: Bot | undefined
    const metrics = createBotMetrics({
      journal: { orderCounts: () => [] },
      strategies: () => bot?.stats().strategies ?? {},
      connections,
    })
    const context = await openContext(connections, metrics)
    const paced = pacedStrategy()
    const tokenConfig = Object.fromEntries(
      [1, 8453].map((chainId) => [
        String(chainId),
        { usdc: sandboxToken(running, chainId, 'USDC').address, weth: sandboxToken(running, chainId, 'WETH').address },
      ]),
    )
    const strategy = createSafeStrategy(paced.definition, {
      config: { tokens: tokenConfig },
      clock: systemClock,
      journal: context.journal,
      logger,
    })
    bot = createBot({
      context,
      strategies: [strategy],
      feedIntervalMs: 1_000,
      reconcileIntervalMs: 250,
      decimalsOf: decimalsFromTokenList([]),
      logger,
      metrics,
      connections,
    })
    const accepted = (key: string) => paced.resultOf(key)?.status === 'accepted' || undefined
    await bot.start()
    try {
      paced.ask('before-1', 1)
      paced.ask('before-8453', 8453)
      await waitFor(() => accepted('before-1') && accepted('before-8453'), 'accepted swaps on both chains')

      // The node of chain 8453 stops (SIGSTOP: its state stays, connections hang without an answer).
      frozen = nodeProcessOf(running.chains.find((chain) => chain.chainId === 8453)?.rpcUrl ?? '')
      process.kill(frozen, 'SIGSTOP')
      await waitFor(() => (bot?.stats().unavailableChains.includes(8453) ? true : undefined), 'pause of chain 8453')
      expect(bot.stats().unavailableChains).toEqual([8453])
      paced.ask('during-8453', 8453)
      paced.ask('during-1', 1)
      const failed = await waitFor(() => paced.resultOf('during-8453'), 'result of the intent on the stopped chain')
      expect(failed).toMatchObject({ status: 'failed', orderId: null })
      expect(failed.reason).not.toContain('http://')
      expect(failed.reason).toMatch(/^ChainUnavailableError \(retryable\): chain 8453 is unavailable: its RPC has not answered since /)
      expect(context.journal.getIntent(failed.intentId)).toMatchObject({ status: 'failed' })
      await waitFor(() => accepted('during-1'), 'accepted swap on chain 1 during the outage')
      const skipsBefore = bot.stats().reconcileSkips
      await waitFor(() => (bot && bot.stats().reconcileSkips > skipsBefore ? true : undefined), 'a reconciliation that skips chain 8453')

      process.kill(frozen, 'SIGCONT')
      frozen = undefined
      await waitFor(() => (bot?.stats().unavailableChains.length === 0 ? true : undefined), 'chain 8453 answering again')
      paced.ask('after-8453', 8453)
      await waitFor(() => accepted('after-8453'), 'accepted swap on chain 8453 after the outage')
      await waitFor(() => isSettled(context), 'every order final', 20_000)
    } finally {
      if (frozen !== undefined) process.kill(frozen, 'SIGCONT')
      frozen = undefined
      await bot.stop()
    }

    // Every intent ended in a result its strategy heard; only the one on the stopped chain failed.
    expect(paced.results.map((result) => result.status).sort()).toEqual(['accepted', 'accepted', 'accepted', 'accepted', 'failed'])
    const rendered = await metrics.render()
    expect(rendered).toMatch(/^deltaflow_reconcile_skipped_total\{chain="8453"\} [1-9]/m)
    expect(rendered).toMatch(/^deltaflow_rpc_errors_total\{chain="8453",kind="timeout"\} [1-9]/m)
    expect(rendered).not.toMatch(/^deltaflow_rpc_errors_total\{chain="1",kind="timeout"\}/m)

    // Nothing lost: the venue holds exactly the journal's submitted orders, all final, and balances match to the wei.
    const account = context.account.address
    const journalOrders = context.journal.listOrders()
    expect(journalOrders).toHaveLength(4)
    const atVenue = await getDeltaOrders(createApiClient({ baseUrl: running.url }), { userAddress: account })
    expect(atVenue.data.map((order) => order.orderHash.toLowerCase()).sort()).toEqual(journalOrders.map((order) => order.orderHash).sort())
    expect(journalOrders.every((order) => order.submitted && order.status === 'COMPLETED')).toBe(true)
    const chains = new Map([...running.venue.chains].map(([chainId, chain]) => [chainId, { publicClient: chain.clients.publicClient }]))
    const balances = await checkConservation({ journal: context.journal, account, chains })
    expect(balances.tokens.map((token) => [token.chainId, token.token, token.difference])).toEqual(
      balances.tokens.map((token) => [token.chainId, token.token, 0n]),
    )
    expect(new Set(balances.tokens.map((token) => token.chainId))).toEqual(new Set([1, 8453]))
    expect(balances.balanced).toBe(true)
    context.journal.close()
  }, 45_000)
})
