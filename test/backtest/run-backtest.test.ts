import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { backtestResultOf } from '../../src/backtest/backtest-results.js'
import { openQuoteReplay } from '../../src/backtest/quote-blocks.js'
import { createReplayBook, LookAheadError } from '../../src/backtest/replay-book.js'
import type { QuoteReplaySource } from '../../src/backtest/replay-source.js'
import { runBacktest } from '../../src/backtest/run-backtest.js'
import { loadConfigDocument } from '../../src/config/load-config.js'
import { ManualClock } from '../../src/time/clock.js'
import { createTempDirectory } from '../helpers/temp-directory.js'
import {
  exampleConfigs,
  limitSellingWeth,
  openStrategiesStore,
  strategiesQuoteSet,
  usdc,
  weth,
  writeFlatCandleQuotes,
  writeScriptedConfig,
} from './fixtures/backtest-inputs.js'
import { seen } from './fixtures/scripted.js'

const directory = createTempDirectory('deltaflow-backtest-')
afterAll(() => directory.cleanup())

/** Start of the synthetic path: ETH at 2000 for six 5-minute candles, then at 2400. */
const t0 = Date.UTC(2026, 0, 5, 12, 0, 0)
const jumpAt = t0 + 6 * 300_000
let jumpQuotes: string

beforeAll(async () => {
  const prices = Array.from({ length: 12 }, (_, index) => (index < 6 ? '2000' : '2400'))
  jumpQuotes = await writeFlatCandleQuotes(directory, 'jump', { from: t0, prices })
})

beforeEach(() => {
  seen.quotes.length = 0
  seen.fills.length = 0
  seen.results.length = 0
})

let configs_ = 0
/** The scripted strategy with `steps`, 2 WETH and 5,000 USDC, subscribed to Market quotes selling 1 WETH; `extra`: more backtest keys. */
function scriptedConfig(steps: unknown[], extra: Record<string, unknown> = {}): string {
  return writeScriptedConfig(directory, `scripted-${configs_++}`, {
    steps,
    balances: { weth: 2n * 10n ** 18n, usdc: 5_000_000_000n },
    backtest: extra,
    subscribe: [
      { source: 'market', chainId: 1, srcToken: weth.address, destToken: usdc.address, amount: String(10n ** 18n), side: 'SELL' },
    ],
  })
}

const sellWeth = (mode: 'market' | 'delta') => ({
  kind: 'swap',
  chainId: 1,
  srcToken: weth.address,
  destToken: usdc.address,
  amount: String(10n ** 18n),
  side: 'SELL',
  mode,
  maxSlippageBps: 100,
  maxPriceImpactPercent: 5,
})

async function run(config: string, quotes = jumpQuotes, source?: QuoteReplaySource) {
  const document = loadConfigDocument(config)
  const run = await runBacktest({ document, source: source ?? (await openQuoteReplay(quotes)) })
  return { run, result: backtestResultOf(run, { config, quotes, seed: document.config.backtest.seed }) }
}

const usdcOf = (raw: bigint) => Number(raw) / 1e6

describe('runBacktest: no look-ahead', () => {
  it('prices a swap asked for just before a jump at the price before it, and one just after at the new price', async () => {
    const config = scriptedConfig([
      { at: jumpAt - 30_000, key: 'before', intent: sellWeth('market') },
      { at: jumpAt + 30_000, key: 'after', intent: { ...sellWeth('market'), amount: String(10n ** 17n) } },
    ])
    const { result } = await run(config)
    expect(seen.fills).toHaveLength(2)
    const [before, after] = seen.fills as [(typeof seen.fills)[0], (typeof seen.fills)[0]]
    expect(before.now).toBeLessThan(jumpAt)
    expect(usdcOf(before.received)).toBeGreaterThan(1990)
    expect(usdcOf(before.received)).toBeLessThan(2000)
    expect(usdcOf(after.received) * 10).toBeGreaterThan(2390)
    expect(result.fills.map((fill) => fill.side)).toEqual(['SELL', 'SELL'])
  })

  it('delivers every quote once the clock has reached its time, never earlier', async () => {
    await run(scriptedConfig([]))
    expect(seen.quotes.length).toBe(48)
    for (const quote of seen.quotes) expect(quote.receivedAt).toBeLessThanOrEqual(quote.now)
    expect(new Set(seen.quotes.map((quote) => quote.receivedAt)).size).toBe(48)
  })

  it('refuses to show a quote stamped after the clock', async () => {
    const clock = new ManualClock(t0)
    const book = createReplayBook(clock)
    const source = await openQuoteReplay(jumpQuotes)
    for await (const block of source.blocks({ from: jumpAt })) {
      const id = book.update(block, 0)
      expect(() => book.latest(id)).toThrow(LookAheadError)
      clock.set(block.time(0))
      expect(book.latest(id)?.time).toBe(jumpAt)
      break
    }
  })
})

describe('runBacktest: fill model', () => {
  it('fills a Delta swap from the Market quotes of a recording that has no Delta quotes, and says so', async () => {
    const prices = Array.from({ length: 12 }, () => '2000')
    const marketOnly = await writeFlatCandleQuotes(directory, 'market-only', { from: t0, prices, sources: ['market'] })
    const { run: ran } = await run(scriptedConfig([{ at: t0 + 600_000, key: 'delta', intent: sellWeth('delta') }]), marketOnly)
    expect(ran.ordersByStrategy.scripted).toEqual({ COMPLETED: 1 })
    expect(seen.fills).toHaveLength(1)
    expect(usdcOf((seen.fills[0] as (typeof seen.fills)[0]).received)).toBeGreaterThan(1990)
    expect(ran.warnings.filter((warning) => warning.includes('came from market quotes'))).toHaveLength(1)
  })

  it('settles a Delta swap after the auction, at the quote of that moment improved by improvementBps', async () => {
    const config = scriptedConfig([{ at: jumpAt - 10_000, key: 'delta', intent: sellWeth('delta') }], {
      fill: { model: 'ideal', delta: { auctionSeconds: 60, improvementBps: 10 } },
    })
    await run(config)
    expect(seen.fills).toHaveLength(1)
    const fill = seen.fills[0] as (typeof seen.fills)[0]
    // Asked 10 s before the jump, settled 60 s later: after the jump, at its price (the signed minimum allowed it).
    expect(fill.now).toBeGreaterThanOrEqual(jumpAt)
    expect(usdcOf(fill.received)).toBeGreaterThan(2400)
  })

  it('fills a LIMIT order once the quotes cross its price, at the limit', async () => {
    const limit = limitSellingWeth(2_300_000_000n, 3600)
    await run(scriptedConfig([{ at: t0 + 60_000, key: 'limit', intent: limit }]))
    expect(seen.fills).toHaveLength(1)
    const fill = seen.fills[0] as (typeof seen.fills)[0]
    expect(fill.now).toBeGreaterThanOrEqual(jumpAt)
    expect(fill.received).toBe(2_300_000_000n)
  })

  it('charges Market swaps the model slippage and the quoted gas', async () => {
    const config = scriptedConfig([{ at: t0 + 60_000, key: 'm', intent: sellWeth('market') }], {
      fill: { model: 'ideal', market: { slippageBps: 20 } },
    })
    const { result } = await run(config)
    const quote = seen.quotes.find((item) => item.now >= t0 + 60_000)
    const fill = result.fills[0]
    expect(fill?.mode).toBe('market')
    expect(fill?.gas).toBeCloseTo(0.3, 6)
    // 20 bps below the quote heard at the time (the same request).
    expect(fill?.quoteAmount).toBeCloseTo((usdcOf(quote?.destAmount ?? 0n) * (10_000 - 20)) / 10_000, 4)
    expect(result.summary.gas).toBeCloseTo(0.3, 6)
  })

  it('fails an order the wallet cannot pay for, as the venue refuses it', async () => {
    const config = scriptedConfig([{ at: t0 + 60_000, key: 'big', intent: { ...sellWeth('delta'), amount: String(5n * 10n ** 18n) } }])
    await run(config)
    expect(seen.fills).toHaveLength(0)
    expect(seen.results).toEqual([expect.objectContaining({ status: 'failed', reason: expect.stringContaining('InsufficientBalance') })])
  })
})

describe('runBacktest: the built-in strategies and determinism', () => {
  let store: QuoteReplaySource
  beforeAll(async () => {
    store = await openStrategiesStore(directory)
  }, 60_000)

  it('runs the DCA example to its end: every TWAP completes and the budget is spent to the unit', async () => {
    const { run: done, result } = await run(`${exampleConfigs}dca.yaml`, strategiesQuoteSet, store)
    expect(result.summary.ordersByStatus).toEqual({ COMPLETED: 24 })
    const spent = done.venue.fills().reduce((sum, fill) => sum + fill.spent, 0n)
    expect(spent).toBe(1_000_000_000n)
    expect(done.venue.balanceOf(1, usdc.address)).toBe(0n)
    const received = done.venue.fills().reduce((sum, fill) => sum + fill.received, 0n)
    expect(done.venue.balanceOf(1, weth.address)).toBe(received)
    expect(result.summary.executionPrice).toBeGreaterThan(1847)
    expect(result.summary.executionPrice).toBeLessThan(2149)
  })

  it('gives the same trades, to the hash, from the JSONL recording and from its packed store, run after run', async () => {
    const first = await run(`${exampleConfigs}dca.yaml`, strategiesQuoteSet, store)
    const second = await run(`${exampleConfigs}dca.yaml`, strategiesQuoteSet, store)
    expect(second.result).toEqual(first.result)
    const jsonl = await run(`${exampleConfigs}dca.yaml`, strategiesQuoteSet)
    expect(jsonl.result.tradesHash).toBe(first.result.tradesHash)
  }, 60_000)

  it('repeats bridge failures with the seed, and draws others with another seed', async () => {
    const hashes = new Map<number, string[]>()
    for (const seed of [7, 7, 8]) {
      const config = directory.path(`rebalancer-${seed}-${hashes.size}.yaml`)
      const document = loadConfigDocument(`${exampleConfigs}rebalancer.yaml`, { set: [{ path: 'backtest.seed', value: String(seed) }] })
      const done = await runBacktest({ document, source: store })
      const result = backtestResultOf(done, { config, quotes: strategiesQuoteSet, seed })
      hashes.set(seed, [...(hashes.get(seed) ?? []), result.tradesHash])
      expect(result.summary.ordersByStatus.COMPLETED ?? 0).toBeGreaterThan(0)
    }
    const [a, b] = hashes.get(7) ?? []
    expect(a).toBe(b)
    expect(hashes.get(8)?.[0]).not.toBe(a)
  }, 60_000)
})
