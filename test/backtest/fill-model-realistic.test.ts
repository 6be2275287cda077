import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { tradesHashOf } from '../../src/backtest/backtest-results.js'
import { openQuoteReplay } from '../../src/backtest/quote-blocks.js'
import type { QuoteReplaySource } from '../../src/backtest/replay-source.js'
import { type BacktestRun, runBacktest } from '../../src/backtest/run-backtest.js'
import { ConfigError, loadConfigDocument, parseConfigDocument } from '../../src/config/load-config.js'
import { openJournal } from '../../src/journal/journal.js'
import { ManualClock } from '../../src/time/clock.js'
import { createTempDirectory } from '../helpers/temp-directory.js'
import {
  exampleConfigs,
  limitSellingWeth,
  openStrategiesStore,
  usdc,
  weth,
  writeFlatCandleQuotes,
  writeScriptedConfig,
} from './fixtures/backtest-inputs.js'

const directory = createTempDirectory('deltaflow-fill-model-')
afterAll(() => directory.cleanup())

/** The example configs' trades over ethusdt-strategies before the realistic model existed (tradesHash of each). */
const before = {
  dca: '468a6baece2d05efc5a8259dd0a856dc01ffb654a1dc1d14b18a75e0a96edc00',
  ladder: '6024fb5cb9f788a94d20a377bcc95f47c803fadd4d2a9eecad541089ee40e1d7',
  rebalancer: 'f87ee317b06fa86789abe000dce5f7d06b6a5a7457cfba22b475969e040930e0',
  'otc-poster': 'f79f96ea66b29b1667ac2e5d106604f25838d2013bacd4a9e3e22ac167ad7974',
} as const

let store: QuoteReplaySource
let journals = 0

beforeAll(async () => {
  store = await openStrategiesStore(directory)
}, 60_000)

type Overrides = { path: string; value: string }[]

/** Runs a config over `source` with its journal in a file, for the checks that read it afterwards. */
async function run(config: string, set: Overrides, source: QuoteReplaySource = store): Promise<{ run: BacktestRun; journal: string }> {
  const journal = directory.path(`journal-${journals++}.sqlite`)
  const document = loadConfigDocument(config, { set })
  return { run: await runBacktest({ document, source, journalFile: journal }), journal }
}

const model = (name: 'ideal' | 'realistic', seed?: number): Overrides => [
  { path: 'backtest.fill.model', value: name },
  ...(seed === undefined ? [] : [{ path: 'backtest.seed', value: String(seed) }]),
]

const intentSlices = z.object({ numSlices: z.number().int().positive() })

/**
 * Every fill of the journal against what its order signed: a SELL receives at least the signed minimum (a TWAP: of
 * each slice), a BUY spends at most the signed maximum, a LIMIT fills at no worse a rate than its own. Returns the
 * fills checked and those outside.
 */
function checkFillsAgainstSignedLimits(file: string): { checked: number; outside: string[]; byKind: Record<string, number> } {
  const journal = openJournal({ file, clock: new ManualClock(0) })
  const outside: string[] = []
  const byKind: Record<string, number> = {}
  let checked = 0
  try {
    for (const order of journal.listOrders()) {
      if (order.mode === 'otc') continue
      const intent = journal.getIntent(order.intentId)
      if (!intent) throw new Error(`order ${order.id} has no intent`)
      const slices = intent.kind === 'twap-sell' || intent.kind === 'twap-buy' ? BigInt(intentSlices.parse(intent.intent).numSlices) : 1n
      for (const fill of journal.fillsOf(order.id)) {
        checked += 1
        byKind[`${order.mode} ${intent.kind}`] = (byKind[`${order.mode} ${intent.kind}`] ?? 0) + 1
        const within =
          intent.kind === 'limit'
            ? fill.receivedAmount * order.srcAmount >= order.destAmount * fill.spentAmount
            : order.side === 'SELL'
              ? fill.receivedAmount >= order.destAmount / slices
              : fill.spentAmount <= order.srcAmount / slices
        if (!within) {
          outside.push(
            `${order.id} ${intent.kind} ${order.side}: spent ${fill.spentAmount} received ${fill.receivedAmount}, signed ${order.srcAmount} / ${order.destAmount}`,
          )
        }
      }
    }
  } finally {
    journal.close()
  }
  return { checked, outside, byKind }
}

describe('backtest.fill in the config', () => {
  it('refuses the former backtest.fillModel key at its line, naming backtest.fill', () => {
    const text = ['mode: paper', 'backtest:', '  seed: 3', '  fillModel:', '    delta: { auctionSeconds: 60 }', ''].join('\n')
    let error: unknown
    try {
      parseConfigDocument(text, 'old.yaml')
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).problems).toEqual([
      'old.yaml:4:3: unknown key "fillModel" in backtest; "fillModel" is now backtest.fill (the same figures, plus `model: ideal | realistic`): rename it',
    ])
  })

  it('takes the former figures under backtest.fill, and the model', () => {
    const text = ['mode: paper', 'backtest:', '  fill:', '    model: ideal', '    delta: { auctionSeconds: 60 }', ''].join('\n')
    const { fill } = parseConfigDocument(text, 'new.yaml').config.backtest
    expect(fill.model).toBe('ideal')
    expect(fill.delta).toEqual({ auctionSeconds: 60, improvementBps: 0, auctionStdDevBps: 3, limitMarginBps: 5 })
    expect(() => parseConfigDocument(text.replace('ideal', 'optimistic'), 'bad.yaml')).toThrow(/bad\.yaml:4:\d+: backtest\.fill\.model/)
  })
})

type Example = keyof typeof before
/** Runs of the example configs, by `name model seed` (seed '-': the config's own), each run once per file. */
const examples = new Map<string, Promise<{ run: BacktestRun; journal: string }>>()
function example(name: Example, fill: 'ideal' | 'realistic', seed?: number) {
  const key = `${name} ${fill} ${seed ?? '-'}`
  let done = examples.get(key)
  if (!done) {
    const set = model(fill, seed)
    // A lower grid, so that the ladder's LIMIT orders trade over these two days (test/fixtures/quotes/README.md).
    if (name === 'ladder' && fill === 'realistic') {
      set.push({ path: 'strategies.0.config.lowerPrice', value: '1900' }, { path: 'strategies.0.config.upperPrice', value: '2100' })
    }
    done = run(`${exampleConfigs}${name}.yaml`, set)
    examples.set(key, done)
  }
  return done
}

describe('fill model: ideal', () => {
  it.each(Object.entries(before) as [Example, string][])(
    'reproduces the %s example trades of the fixed-figure model, to the hash',
    async (name, hash) => {
      const { run: done } = await example(name, 'ideal')
      expect(tradesHashOf(done.venue.fills())).toBe(hash)
      expect(done.fillModel).toBe('ideal')
    },
  )
})

describe('fill model: realistic on the example configs', () => {
  it('is the default', () => {
    expect(loadConfigDocument(`${exampleConfigs}dca.yaml`).config.backtest.fill.model).toBe('realistic')
  })

  it('keeps every fill within its signed limit, seed after seed', async () => {
    const kinds: Record<string, number> = {}
    for (const seed of [undefined, 2, 3]) {
      for (const name of ['dca', 'ladder', 'rebalancer'] as const) {
        const { journal } = await example(name, 'realistic', seed)
        const { outside, byKind } = checkFillsAgainstSignedLimits(journal)
        expect(outside, `${name} seed ${seed ?? 'of the config'}`).toEqual([])
        for (const [kind, count] of Object.entries(byKind)) kinds[kind] = (kinds[kind] ?? 0) + count
      }
    }
    // Every kind of Delta fill was checked: TWAP slices, LIMIT fills and crosschain transfers.
    expect(kinds['delta twap-sell']).toBe(3 * 144)
    expect(kinds['delta limit']).toBeGreaterThanOrEqual(3)
    expect(kinds['delta crosschain']).toBeGreaterThanOrEqual(3)
  }, 60_000)

  it('gives the DCA slices a slippage of both signs around their own quotes, where ideal gives none', async () => {
    const { run: done } = await example('dca', 'realistic')
    const fills = done.venue.fills()
    expect(fills).toHaveLength(144)
    // Slippage of a slice against its own quote (received against planned, in bps; positive: worse).
    const slippage = fills.map((fill) => (Number(fill.planned.dest - fill.received) / Number(fill.planned.dest)) * 10_000)
    expect(slippage.filter((value) => value > 0.01).length).toBeGreaterThan(30)
    expect(slippage.filter((value) => value < -0.01).length).toBeGreaterThan(30)
    const mean = slippage.reduce((sum, value) => sum + value, 0) / slippage.length
    const deviation = Math.sqrt(slippage.reduce((sum, value) => sum + (value - mean) ** 2, 0) / slippage.length)
    // auctionStdDevBps 3 around improvementBps 0.
    expect(Math.abs(mean)).toBeLessThan(1)
    expect(deviation).toBeGreaterThan(2)
    expect(deviation).toBeLessThan(4)
    expect(done.ordersByStrategy['dca-weth']).toEqual({ COMPLETED: 24 })
    const { run: ideal } = await example('dca', 'ideal')
    expect(ideal.venue.fills().every((fill) => fill.received === fill.planned.dest)).toBe(true)
  })

  it('repeats its trades with the seed, and draws others with another seed', async () => {
    const hashOf = async (done: Promise<{ run: BacktestRun }>) => tradesHashOf((await done).run.venue.fills())
    const first = await hashOf(example('dca', 'realistic'))
    expect(await hashOf(run(`${exampleConfigs}dca.yaml`, model('realistic')))).toBe(first)
    expect(await hashOf(example('dca', 'realistic', 2))).not.toBe(first)
    expect(first).not.toBe(before.dca)
  })

  it('fails the same bridges under both models', async () => {
    const ideal = (await example('rebalancer', 'ideal')).run.ordersByStrategy['usdc-rebalancer']
    expect(ideal?.REFUNDED).toBeGreaterThan(0)
    expect((await example('rebalancer', 'realistic')).run.ordersByStrategy['usdc-rebalancer']).toEqual(ideal)
  })
})

// --- orders built to sit at their limit, on a synthetic path ---

/** Start of the synthetic path: ETH at 2000 for six 5-minute candles, then at 2004 (20 bps higher) for six more. */
const t0 = Date.UTC(2026, 0, 5, 12, 0, 0)
const stepAt = t0 + 6 * 300_000
let stepQuotes: QuoteReplaySource
/** The recorded Delta SELL quote of 1 WETH before and after the step (USDC raw units). */
let quoteBefore = 0n
let quoteAfter = 0n

beforeAll(async () => {
  const prices = Array.from({ length: 12 }, (_, index) => (index < 6 ? '2000' : '2004'))
  stepQuotes = await openQuoteReplay(await writeFlatCandleQuotes(directory, 'step', { from: t0, prices }))
  for await (const block of stepQuotes.blocks()) {
    for (let index = 0; index < block.length; index++) {
      const { request } = block.request(index)
      if (request.source !== 'delta' || request.side !== 'SELL' || request.srcToken.toLowerCase() !== weth.address.toLowerCase()) continue
      if (block.time(index) < stepAt) quoteBefore = block.destAmount(index)
      else quoteAfter ||= block.destAmount(index)
    }
  }
})

let scriptedConfigs = 0
/** The scripted strategy with `steps`, 10 WETH and 50,000 USDC, under backtest.fill `fill` and `seed`. */
function scriptedConfig(steps: unknown[], fill: Record<string, unknown>, seed: number): string {
  const balances = { weth: 10n * 10n ** 18n, usdc: 50_000_000_000n }
  return writeScriptedConfig(directory, `scripted-${scriptedConfigs++}`, { steps, balances, backtest: { fill, seed } })
}

/** Swaps of 0.1 WETH, one a minute from t0 + 1 min, each allowed `slippageBps` from its quote. */
function swaps(mode: 'delta' | 'market', side: 'SELL' | 'BUY', slippageBps: number, count: number) {
  return Array.from({ length: count }, (_, index) => ({
    at: t0 + (index + 1) * 60_000,
    key: `${mode}-${side}-${index}`,
    intent: {
      kind: 'swap',
      chainId: 1,
      srcToken: side === 'SELL' ? weth.address : usdc.address,
      destToken: side === 'SELL' ? usdc.address : weth.address,
      amount: String(10n ** 17n),
      side,
      mode,
      maxSlippageBps: slippageBps,
      maxPriceImpactPercent: 5,
    },
  }))
}

describe('fill model: realistic at the limit', () => {
  it('settles Delta swaps signed 1 bps from their quote only within it, some on a later quote', async () => {
    let fills = 0
    let later = 0
    for (const seed of [1, 2, 3, 4, 5]) {
      const steps = [...swaps('delta', 'SELL', 1, 10), ...swaps('delta', 'BUY', 1, 10)]
      const { run: done, journal } = await run(scriptedConfig(steps, { model: 'realistic' }, seed), [], stepQuotes)
      const { checked, outside, byKind } = checkFillsAgainstSignedLimits(journal)
      expect(outside, `seed ${seed}`).toEqual([])
      expect(byKind['delta swap']).toBe(checked)
      fills += checked
      // Placed on the minute, settled 30 s later unless that auction's outcome was beyond the limit.
      later += done.venue.fills().filter((fill) => (fill.at - t0) % 60_000 !== 30_000).length
    }
    expect(fills).toBeGreaterThan(50)
    expect(later).toBeGreaterThan(0)
  }, 60_000)

  it('fills a LIMIT order only once the price passes it by limitMarginBps', async () => {
    // The limit 2 bps under the quote before the step (crossed, but by less than 5 bps); the quote after is 20 bps higher.
    const limitDest = (quoteBefore * 10_000n) / 10_002n
    const limit = limitSellingWeth(limitDest, 1_800)
    const steps = [{ at: t0 + 60_000, key: 'limit', intent: limit }]
    expect(quoteAfter * 10_000n).toBeGreaterThan(limitDest * 10_005n)
    for (const [name, settles] of [
      ['ideal', (at: number) => at < stepAt],
      ['realistic', (at: number) => at >= stepAt],
    ] as const) {
      const { run: done, journal } = await run(scriptedConfig(steps, { model: name }, 1), [], stepQuotes)
      const fills = done.venue.fills()
      expect(fills, name).toHaveLength(1)
      expect(settles((fills[0] as (typeof fills)[0]).at), name).toBe(true)
      expect((fills[0] as (typeof fills)[0]).received).toBe(limitDest)
      expect(checkFillsAgainstSignedLimits(journal).outside).toEqual([])
    }
    // A margin of 25 bps is never reached: the order expires.
    const { run: strict } = await run(scriptedConfig(steps, { model: 'realistic', delta: { limitMarginBps: 25 } }, 1), [], stepQuotes)
    expect(strict.venue.fills()).toHaveLength(0)
    expect(strict.ordersByStrategy.scripted).toEqual({ EXPIRED: 1 })
  })

  it('reverts Market swaps whose drawn slippage breaks their own limit, and fills the others within it', async () => {
    const statuses: Record<string, number> = {}
    let gasOfReverted = 0
    for (const seed of [1, 2, 3]) {
      const steps = [...swaps('market', 'SELL', 1, 10), ...swaps('market', 'BUY', 1, 10)]
      const { run: done, journal } = await run(scriptedConfig(steps, { model: 'realistic' }, seed), [], stepQuotes)
      const { checked, outside } = checkFillsAgainstSignedLimits(journal)
      expect(outside, `seed ${seed}`).toEqual([])
      const counts = done.ordersByStrategy.scripted ?? {}
      for (const [status, count] of Object.entries(counts)) statuses[status] = (statuses[status] ?? 0) + count
      expect(checked).toBe(counts.mined ?? 0)
      expect(done.venue.fills().every((fill) => fill.mode === 'market')).toBe(true)
      // Gas is paid by every swap, mined or reverted: the recorded quote's 0.30 USD each.
      expect((counts.mined ?? 0) + (counts.reverted ?? 0)).toBe(20)
      expect(done.venue.gasUsd()).toBeCloseTo(0.3 * 20, 6)
      gasOfReverted += done.venue.gasUsd() - done.venue.fills().reduce((sum, fill) => sum + fill.gasUsd, 0)
    }
    // driftStdDevBps 5 against a 1 bps limit: about 4 in 10 swaps revert.
    expect(statuses.reverted).toBeGreaterThan(5)
    expect(statuses.mined).toBeGreaterThan(5)
    expect(gasOfReverted).toBeCloseTo(0.3 * (statuses.reverted ?? 0), 6)
  }, 60_000)
})
