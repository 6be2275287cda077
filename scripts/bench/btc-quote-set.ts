import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Address } from 'viem'
import { defaultCandleQuoteModel } from '../../src/backtest/candle-quote-model.js'
import { openQuoteReplay } from '../../src/backtest/quote-blocks.js'
import { createQuoteStore } from '../../src/backtest/quote-store.js'
import { generateCandleQuotes } from '../../src/backtest/quotes-from-candles.js'
import type { RecordedQuoteJson } from '../../src/feed/recorded-quote.js'

// The quote set of the backtest benchmarks: 21 days of real BTC prices (the 30,240 1-minute candles of 1-21 March
// 2023, the USDC depeg included) made into quotes by the candle model: 8 requests (10 USDC and 0.1 WBTC, SELL and
// BUY, Market and Delta) at 4 points per candle, and copies of it end to end.

export const candles = '/work/shared/data/btcusdt-1m-binanceus-2023-03.csv'
export const wbtc = { symbol: 'WBTC', address: '0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599' as Address, decimals: 8 }
export const usdc = { symbol: 'USDC', address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' as Address, decimals: 6 }

/** Writes the candles' quotes; `spanMs` runs from the first candle's open to the last one's end. */
export async function writeMonth(file: string): Promise<{ seconds: number; quotes: number; spanMs: number }> {
  const started = performance.now()
  const store = createQuoteStore({
    file,
    header: {
      format: 'deltaflow-quotes',
      version: 1,
      startedAt: Date.UTC(2023, 2, 1),
      meta: { base: `WBTC ${wbtc.address}`, quote: `USDC ${usdc.address}`, chainId: 1 },
    },
    keepAnswers: false,
  })
  let quotes = 0
  let first: number | undefined
  let end = 0
  for await (const { candle, intervalMs, lines } of generateCandleQuotes(candles, {
    pair: { chainId: 1, base: wbtc, quote: usdc },
    sizes: [
      { token: 'quote', amount: 10_000_000n },
      { token: 'base', amount: 10_000_000n },
    ],
    sides: ['SELL', 'BUY'],
    sources: ['market', 'delta'],
    model: defaultCandleQuoteModel,
  })) {
    first ??= candle.openTime
    end = candle.openTime + intervalMs
    for (const line of lines) store.write(line)
    quotes += lines.length
  }
  await store.close()
  return { seconds: (performance.now() - started) / 1000, quotes, spanMs: end - (first ?? end) }
}

/**
 * The set `count` times in a row, each copy shifted by the set's span (`spanMs`), so that it starts where the one
 * before ends: no stretch of the larger set lacks quotes.
 */
export async function copyMonths(from: string, to: string, count: number, spanMs: number): Promise<void> {
  const source = await openQuoteReplay(from)
  const store = createQuoteStore({ file: to, header: source.header, keepAnswers: false })
  for (let copy = 0; copy < count; copy++) {
    const shift = copy * spanMs
    for await (const block of source.blocks()) {
      for (let index = 0; index < block.length; index++) {
        const { request } = block.request(index)
        const costs = block.costs(index)
        store.write({
          time: block.time(index) + shift,
          requestedAt: block.requestedAt(index) + shift,
          key: block.request(index).key,
          source: request.source,
          chainId: request.chainId,
          srcToken: request.srcToken,
          srcDecimals: block.request(index).srcDecimals,
          destToken: request.destToken,
          destDecimals: block.request(index).destDecimals,
          side: request.side,
          amount: request.amount.toString(),
          srcAmount: block.srcAmount(index).toString(),
          destAmount: block.destAmount(index).toString(),
          gas: {
            ...(costs.gasUsd === undefined ? {} : { usd: costs.gasUsd }),
            ...(costs.gasUnits === undefined ? {} : { units: costs.gasUnits.toString() }),
            ...(costs.gasWei === undefined ? {} : { wei: costs.gasWei.toString() }),
          },
          fees: costs.partnerPercent === undefined ? {} : { partnerPercent: costs.partnerPercent },
          // Written without answers (keepAnswers: false): only the answer's source is kept.
          answer: { source: request.source === 'delta' ? 'delta' : 'market' },
        } as RecordedQuoteJson)
      }
    }
  }
  await store.close()
}

/** What a benchmark's run on one size of the set reports: a rate per run and the peak RSS of its process. */
export type SizeReport = { rates: number[]; maxRssBytes: number }

/**
 * The skeleton of the backtest benchmarks: in a temp directory, writes the set (in a child), then for each size in
 * `copies` its copy (in a child) and `run` on it; `describe` adds each size's figures to `notes`, and the peak RSS of
 * each size is noted against the first. Returns the rates of the 1× set (the headline samples).
 */
export async function overSizesOfTheSet<R extends SizeReport>({
  name,
  copies,
  notes,
  inChild,
  run,
  describe,
}: {
  name: string
  copies: readonly number[]
  notes: Record<string, string>
  inChild: <T>(args: string[]) => Promise<T>
  run: (file: string, count: number, spanMs: number, directory: string) => Promise<R>
  describe: (label: string, report: R) => void
}): Promise<number[]> {
  const directory = mkdtempSync(join(tmpdir(), `deltaflow-bench-${name}-`))
  try {
    let samples: number[] = []
    let firstRss: number | undefined
    const base = join(directory, 'month.sqlite')
    const written = await inChild<{ seconds: number; quotes: number; spanMs: number }>(['write', base])
    notes['generate 1x'] =
      `${written.quotes} quotes over ${(written.spanMs / 86_400_000).toFixed(2)} days in ${written.seconds.toFixed(1)} s`
    for (const count of copies) {
      const file = count === 1 ? base : join(directory, `months-${count}.sqlite`)
      if (count !== 1) await inChild(['copy', base, file, String(count), String(written.spanMs)])
      const report = await run(file, count, written.spanMs, directory)
      const label = `${count}x`
      describe(label, report)
      firstRss ??= report.maxRssBytes
      if (count !== copies[0]) notes[`${label} RSS vs ${copies[0]}x`] = `${((report.maxRssBytes / firstRss - 1) * 100).toFixed(1)} %`
      if (count === 1) samples = report.rates
    }
    return samples
  } finally {
    rmSync(directory, { recursive: true, force: true })
  }
}

/** The guard's maxPrice of the benchmarks' DCA: 400,000 USDC per WBTC, above every quote of the set. */
export const dcaMaxPrice = { srcAmount: '40000000000', destAmount: '100000000' }

/**
 * The DCA both backtest benchmarks run (a strategies entry, `use` the strategy): 7,440 USDC on WBTC as 62 TWAP orders of
 * 12 slices over `count` copies of the set, with a Market price guard (`action: pause`) at `maxPrice`.
 */
export function dcaStrategyYaml(use: string, count: number, spanMs: number, maxPrice = dcaMaxPrice): string {
  return `  - name: dca-wbtc
    use: ${use}
    config:
      chainId: 1
      srcToken: "${usdc.address}"
      destToken: "${wbtc.address}"
      budget: "${dcaBudget}"
      periodSeconds: ${(spanMs / 1000) * count}
      orders: 62
      slicesPerOrder: 12
      maxSlippageBps: 50
      maxPriceImpactPercent: 2
      guard:
        source: market
        maxPrice: { srcAmount: "${maxPrice.srcAmount}", destAmount: "${maxPrice.destAmount}" }
        action: pause
        maxQuoteAgeSeconds: 120
      checkIntervalSeconds: 30`
}

/** What the benchmarks' DCA spends, in raw USDC. */
export const dcaBudget = 7_440_000_000n
