import { afterAll, describe, expect, it } from 'vitest'
import { isFinalStatus } from '../../src/domain/order-status.js'
import { decimalsFromTokenList } from '../../src/feed/token-decimals.js'
import { createLogger } from '../../src/log/logger.js'
import { createBot } from '../../src/runtime/bot.js'
import { createSafeStrategy } from '../../src/strategy/safe-strategy.js'
import { systemClock } from '../../src/time/clock.js'
import example from '../../strategies/example/index.js'
import { sandboxExecutorContext } from '../helpers/executor.js'
import { sandboxToken, useSandbox } from '../helpers/sandbox.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

const directory = createTempDirectory('deltaflow-bot-')
afterAll(() => directory.cleanup())

const logger = createLogger({ level: 'silent' })

async function waitFor<T>(read: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = read()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`waitFor: nothing after ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe('createBot', () => {
  const sandbox = useSandbox({ chainIds: [1] })
  const journalFile = directory.path('bot.sqlite')

  // The example take-profit strategy, plus a record of the order updates it hears (kept in its journal state).
  const recordingExample = {
    ...example,
    onOrderUpdate: (
      event: { order: { id: string; status: string } },
      { state }: { state: { get: (key: string) => unknown; set: (key: string, value: unknown) => void } },
    ) => {
      const seen = (state.get('updates') as string[] | undefined) ?? []
      state.set('updates', [...seen, `${event.order.id}:${event.order.status}`])
    },
  }

  async function createTestBot() {
    const s = sandbox()
    const usdc = sandboxToken(s, 1, 'USDC')
    const weth = sandboxToken(s, 1, 'WETH')
    const context = await sandboxExecutorContext(s, { accountIndex: 6, journalFile })
    const strategy = createSafeStrategy(recordingExample, {
      config: { chainId: 1, srcToken: usdc.address, destToken: weth.address, amount: '1000000000', minDestAmount: '1' },
      clock: systemClock,
      journal: context.journal,
      logger,
    })
    const bot = createBot({
      context,
      strategies: [strategy],
      feedIntervalMs: 200,
      reconcileIntervalMs: 300,
      decimalsOf: decimalsFromTokenList([
        { chainId: 1, ...usdc },
        { chainId: 1, ...weth },
      ]),
      logger,
    })
    return { bot, context, strategy }
  }

  it('executes the take-profit intent once, reconciles its order to a final status and tells the strategy', async () => {
    const { bot, context } = await createTestBot()
    await bot.start()
    const order = await waitFor(() => {
      const [only] = context.journal.listOrders({ strategy: 'example' })
      return only && isFinalStatus(only.mode, only.status) ? only : undefined
    }, 20_000)
    // The strategy hears the final status at the pass that reconciled it.
    const updates = await waitFor(() => {
      const seen = context.journal.getStrategyState('example', 'updates') as string[] | undefined
      return seen?.includes(`${order.id}:${order.status}`) ? seen : undefined
    }, 5_000)
    await bot.stop()

    expect(order).toMatchObject({ mode: 'delta', status: 'COMPLETED' })
    expect(context.journal.fillsOf(order.id).length).toBeGreaterThan(0)
    expect(updates.every((update) => update.startsWith(`${order.id}:`))).toBe(true)
    expect(context.journal.getStrategyState('example', 'soldAt')).toEqual(expect.any(Number))
    const stats = bot.stats()
    expect(stats.running).toBe(false)
    expect(stats.quotes).toBeGreaterThan(0)
    expect(stats.executions.accepted).toBe(1)
    expect(stats.executionErrors).toBe(0)
    expect(stats.delivered.orderUpdates).toBeGreaterThan(0)
    expect(stats.delivered.fills).toBe(context.journal.fillsOf(order.id).length)
    expect(stats.reconcilePasses).toBeGreaterThan(0)
    expect(stats.strategies.example?.failures).toBe(0)
    context.journal.close()
  }, 30_000)

  it('places no second order when a new bot starts over the same journal', async () => {
    const { bot, context, strategy } = await createTestBot()
    const before = context.journal.listOrders()
    expect(before).toHaveLength(1)
    await bot.start()
    await waitFor(() => (strategy.stats().eventsHandled >= 3 && bot.stats().reconcilePasses >= 2 ? true : undefined), 10_000)
    await bot.stop()

    expect(context.journal.listOrders()).toEqual(before)
    const stats = bot.stats()
    expect(stats.quotes).toBeGreaterThan(0)
    expect(stats.intentsQueued).toBe(0)
    // Nothing old is delivered again after a restart.
    expect(stats.delivered.orderUpdates).toBe(0)
    context.journal.close()
  }, 30_000)

  it('places no second order when the strategy forgot it sold: the intent id is the same', async () => {
    const { bot, context } = await createTestBot()
    const before = context.journal.listOrders()
    context.journal.deleteStrategyState('example', 'soldAt')
    await bot.start()
    await waitFor(() => (bot.stats().intentsQueued >= 1 && bot.stats().reconcilePasses >= 1 ? true : undefined), 10_000)
    await bot.stop()

    const stats = bot.stats()
    expect(stats.executions.accepted).toBe(0)
    expect(stats.executions.done).toBeGreaterThan(0)
    expect(context.journal.listOrders()).toEqual(before)
    expect(context.journal.intentsOf('example')).toHaveLength(1)
    context.journal.close()
  }, 30_000)
})
