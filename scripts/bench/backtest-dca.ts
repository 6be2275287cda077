import { join } from 'node:path'
import { openQuoteReplay } from '../../src/backtest/quote-blocks.js'
import { runBacktest } from '../../src/backtest/run-backtest.js'
import { parseConfigDocument } from '../../src/config/load-config.js'
import { forkBenchChild } from './bench-child.js'
import { copyMonths, dcaBudget, dcaStrategyYaml, overSizesOfTheSet, usdc, writeMonth } from './btc-quote-set.js'
import { type BenchResult, median, summarize } from './summary.js'

/**
 * The DCA strategy spends 7,440 USDC on WBTC as 62 TWAP orders of 12 slices over the whole set, with a Market price
 * guard, checking its schedule every 30 s, against 21 days of real BTC prices (the 30,240 1-minute candles of 1-21
 * March 2023, the USDC depeg included) made into quotes by the candle model: 8 requests (10 USDC and 0.1 WBTC, SELL
 * and BUY, Market and Delta) at 4 points per candle; the DCA hears one request of the eight (its guard quote). A
 * larger set repeats those quotes, each copy shifted by their span so that it starts where the one before ends (a
 * stretch without quotes would leave the TWAP slices due in it unpriced), and the DCA spreads the same 62 orders over
 * it (its state stays the same size: what grows is the number of quotes). The first run of each size loads the strategy's module; the median of
 * the runs is reported.
 * Each size runs under both fill models, alternating (ideal first on even runs, realistic first on odd ones): the
 * figures are the realistic model's (the default), with the ideal model's rate and the ratio beside them (the goal:
 * realistic within 10 % of ideal).
 * Quotes/s = quotes replayed / wall time of runBacktest (strategy, executor, fill model, journal included); RSS max of
 * each run's own child process (both models).
 */
export async function benchBacktestDca({
  copies = [1, 10],
  runs = 3,
}: {
  copies?: readonly number[]
  runs?: number
} = {}): Promise<BenchResult> {
  const notes: Record<string, string> = {
    target: '>= 1000000 quotes/s; RSS of the 10x set <= 1.1 x the 1x set; realistic >= 0.9 x ideal',
    quotes: 'BTC/USDC 1-21 March 2023 (1m candles), 8 requests; DCA hears 1 in 8',
  }
  const samples = await overSizesOfTheSet({
    name: 'dca',
    copies,
    notes,
    inChild,
    run: (file, count, spanMs) =>
      inChild<{
        rates: number[]
        quotes: number
        maxRssBytes: number
        orders: string
        fills: number
        ideal: { rates: number[]; orders: string; fills: number }
      }>(['run', file, String(count), String(runs), String(spanMs)]),
    describe: (label, report) => {
      notes[label] =
        `${report.quotes} quotes, median ${Math.round(median(report.rates))} quotes/s, RSS max ${(report.maxRssBytes / 2 ** 20).toFixed(0)} MB, orders ${report.orders}, ${report.fills} fills`
      notes[`${label} ideal`] =
        `median ${Math.round(median(report.ideal.rates))} quotes/s, orders ${report.ideal.orders}, ${report.ideal.fills} fills`
      notes[`${label} realistic/ideal`] = `${(median(report.rates) / median(report.ideal.rates)).toFixed(3)} (goal >= 0.9)`
    },
  })
  return summarize('backtest: recorded quotes replayed through DCA with the realistic fill model (21 days)', 'quotes/s', samples, notes)
}

function inChild<T>(args: string[]): Promise<T> {
  return forkBenchChild<T>(import.meta.url, childMarker, args)
}

const childMarker = '--backtest-dca-child'

function dcaConfig(count: number, model: 'ideal' | 'realistic', spanMs: number): string {
  const budget = dcaBudget
  return `
risk:
  tokens:
    "1:${usdc.address}": { totalBudget: "${budget}" }
  maxSlippageBps: 100
  maxPriceImpactPercent: 3
backtest:
  balances:
    "1:${usdc.address}": "${budget}"
  fill:
    model: ${model}
strategies:
${dcaStrategyYaml('dca', count, spanMs)}
`
}

async function runDca(file: string, count: number, runs: number, spanMs: number) {
  const source = await openQuoteReplay(file)
  const models = ['ideal', 'realistic'] as const
  type Model = (typeof models)[number]
  const documents = {
    ideal: parseConfigDocument(dcaConfig(count, 'ideal', spanMs), join(process.cwd(), 'bench-dca.yaml')),
    realistic: parseConfigDocument(dcaConfig(count, 'realistic', spanMs), join(process.cwd(), 'bench-dca.yaml')),
  }
  const rates: Record<Model, number[]> = { ideal: [], realistic: [] }
  // What the report needs of each model's last run, not the run itself: a run kept alive would weigh on the next.
  const last: Record<Model, { quotes: number; orders: string; fills: number }> = {
    ideal: { quotes: 0, orders: '', fills: 0 },
    realistic: { quotes: 0, orders: '', fills: 0 },
  }
  for (let run = 0; run < runs; run++) {
    for (const model of run % 2 === 0 ? models : [...models].reverse()) {
      const started = performance.now()
      const done = await runBacktest({ document: documents[model], source })
      rates[model].push(done.quotes / ((performance.now() - started) / 1000))
      const counts = Object.values(done.ordersByStrategy)[0] ?? {}
      last[model] = {
        quotes: done.quotes,
        orders: Object.entries(counts)
          .map(([status, n]) => `${status} ${n}`)
          .join(' '),
        fills: done.venue.fills().length,
      }
    }
  }
  return {
    rates: rates.realistic,
    quotes: last.realistic.quotes,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    orders: last.realistic.orders,
    fills: last.realistic.fills,
    ideal: { rates: rates.ideal, orders: last.ideal.orders, fills: last.ideal.fills },
  }
}

if (process.argv[2] === childMarker) {
  const [command, ...args] = process.argv.slice(3)
  const report =
    command === 'write'
      ? await writeMonth(args[0] as string)
      : command === 'copy'
        ? await copyMonths(args[0] as string, args[1] as string, Number(args[2]), Number(args[3])).then(() => ({}))
        : await runDca(args[0] as string, Number(args[1]), Number(args[2]), Number(args[3]))
  process.send?.(report)
}
