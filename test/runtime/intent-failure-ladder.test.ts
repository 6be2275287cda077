import { parseEther } from 'viem'
import { afterAll, describe, expect, it } from 'vitest'
import type { IntentResult } from '../../src/domain/order-views.js'
import { openJournal } from '../../src/journal/journal.js'
import { createLogger } from '../../src/log/logger.js'
import { createSafeStrategy, type StrategyRun } from '../../src/strategy/safe-strategy.js'
import { ManualClock } from '../../src/time/clock.js'
import ladder from '../../strategies/ladder/index.js'
import { ladderStateSchema } from '../../strategies/ladder/ladder-state.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

const directory = createTempDirectory('deltaflow-ladder-failure-')
const journals: ReturnType<typeof openJournal>[] = []
afterAll(() => {
  for (const journal of journals) journal.close()
  directory.cleanup()
})

const logger = createLogger({ level: 'silent' })

/** Three sell levels of 0.1 WETH at 2000 / 2050 / 2100 USDC, retried every 30 s. */
const config = {
  chainId: 1,
  side: 'sell',
  base: { address: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2', decimals: 18 },
  quote: { address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', decimals: 6 },
  lowerPrice: '2000',
  upperPrice: '2100',
  levels: 3,
  sizePerLevel: parseEther('0.1').toString(),
  retrySeconds: 30,
}

function createLadder(settings: Record<string, unknown> = config, journal = openStore()) {
  const strategy = createSafeStrategy(ladder, { config: settings, clock: new ManualClock(1_000), journal, logger })
  const state = () => ladderStateSchema.parse(journal.getStrategyState('ladder', 'ladder'))
  return { strategy, journal, state }
}

function openStore() {
  const journal = openJournal({ file: directory.path(`state-${journals.length}.sqlite`), clock: new ManualClock(1_000) })
  journals.push(journal)
  return journal
}

function intentsOf(run: StrategyRun) {
  if (run.outcome !== 'handled') throw new Error(`expected the handler to succeed, got ${run.outcome}: ${JSON.stringify(run)}`)
  return run.intents
}

function result(intentId: string, status: IntentResult['status'], reason: string | null = null): IntentResult {
  return { intentId, kind: 'limit', status, reason, orderId: null }
}

const serverError = 'ApiServerError (retryable): POST /v2/delta/orders failed on the service side (500)'

describe('ladder: a level whose intent fails', () => {
  it('retries failed levels on a timer of retrySeconds', () => {
    expect(createLadder().strategy.timers).toEqual([30_000])
    expect(createLadder({ ...config, retrySeconds: undefined }).strategy.timers).toEqual([60_000])
  })

  it('is placed again at the next retry tick as its next generation, same side and price; the others are untouched', async () => {
    const { strategy, state } = createLadder()
    const placed = intentsOf(await strategy.start())
    const failing = placed[1]?.id as string
    expect(intentsOf(await strategy.handleIntentResult(result(failing, 'failed', serverError)))).toEqual([])
    expect(state().levels[1]).toMatchObject({ phase: 'failed', status: 'FAILED', generation: 0 })

    const [again, ...more] = intentsOf(await strategy.handleTimer(30_000))
    expect(more).toEqual([])
    expect(again).toMatchObject({ kind: 'limit', srcAmount: placed[1]?.kind === 'limit' ? placed[1].srcAmount : -1n })
    expect(again?.kind === 'limit' && again.destAmount).toBe(205_000_000n)
    expect(again?.id).not.toBe(failing)
    expect(state().levels[1]).toMatchObject({ phase: 'open', status: 'PLACED', generation: 1, side: 'sell', intentId: again?.id })
    expect(state().levels.map((level) => level.intentId)).toEqual([placed[0]?.id, again?.id, placed[2]?.id])
    // Nothing failed since: the next tick places nothing.
    expect(intentsOf(await strategy.handleTimer(30_000))).toEqual([])
  })

  it('ignores accepted results, results of intents no open level holds, and a second result of the same intent', async () => {
    const { strategy, state } = createLadder()
    const placed = intentsOf(await strategy.start())
    const before = state()
    await strategy.handleIntentResult(result(placed[0]?.id as string, 'accepted'))
    await strategy.handleIntentResult(result('someone-else', 'failed', serverError))
    expect(state()).toEqual(before)
    await strategy.handleIntentResult(result(placed[0]?.id as string, 'failed', serverError))
    const failed = state()
    await strategy.handleIntentResult(result(placed[0]?.id as string, 'failed', serverError))
    expect(state()).toEqual(failed)
  })

  it('halts a level a risk limit refuses: it is not retried', async () => {
    const { strategy, state } = createLadder()
    const placed = intentsOf(await strategy.start())
    await strategy.handleIntentResult(result(placed[2]?.id as string, 'refused', 'maxOpenOrdersPerStrategy: 3 open'))
    expect(state().levels[2]).toMatchObject({ phase: 'halted', status: 'REFUSED' })
    expect(intentsOf(await strategy.handleTimer(30_000))).toEqual([])
  })

  it('is not placed again while stopped, and is placed again by the next start', async () => {
    const journal = openStore()
    const { strategy, state } = createLadder(config, journal)
    const placed = intentsOf(await strategy.start())
    await strategy.stop()
    await strategy.handleIntentResult(result(placed[0]?.id as string, 'failed', serverError))
    expect(intentsOf(await strategy.handleTimer(30_000))).toEqual([])
    expect(state().levels[0]).toMatchObject({ phase: 'failed', generation: 0 })

    // A new run over the same state (retrySeconds changed: the ladder is kept): the open levels' intents again, then
    // the failed level as its next generation.
    const restarted = createLadder({ ...config, retrySeconds: 5 }, journal)
    const emitted = intentsOf(await restarted.strategy.start())
    expect(emitted.map((intent) => intent.id).slice(0, 2)).toEqual([placed[1]?.id, placed[2]?.id])
    expect(emitted).toHaveLength(3)
    expect(restarted.state()).toMatchObject({ epoch: 0 })
    expect(restarted.state().levels[0]).toMatchObject({ phase: 'open', generation: 1, intentId: emitted[2]?.id })
  })
})
