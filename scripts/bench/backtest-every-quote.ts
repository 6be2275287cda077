import { writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { openQuoteReplay } from '../../src/backtest/quote-blocks.js'
import { runBacktest } from '../../src/backtest/run-backtest.js'
import { parseConfigDocument } from '../../src/config/load-config.js'
import type { QuoteRequest } from '../../src/feed/quote.js'
import { forkBenchChild } from './bench-child.js'
import { copyMonths, dcaBudget, dcaMaxPrice, dcaStrategyYaml, overSizesOfTheSet, usdc, wbtc, writeMonth } from './btc-quote-set.js'
import { type BenchResult, median, summarize } from './summary.js'

/**
 * Every replayed quote reaches a strategy: the built-in DCA and ladder, each subscribed to all 8 recorded requests of
 * the BTC quote set (btc-quote-set.ts), run with the realistic fill model. The strategies are the built-in
 * definitions with one change, made in a plugin file beside the quote set: their `subscriptions` list every recorded
 * request. The DCA's quote handler runs on each quote (it reads its wake time and keeps the quote as its guard's when
 * one is due); the ladder has no quote handler, so its deliveries cost what the dispatch and the safe wrapper do. The
 * DCA spends 7,440 USDC on WBTC as 62 TWAP orders of 12 slices over the set; the ladder sells 0.1 WBTC at each of 5
 * levels from 24,000 to 28,000 USDC, each once (filled levels retire). A larger set repeats the quotes end to end, and the
 * strategies' periods stretch with it.
 * Quotes/s = quotes replayed / wall time of runBacktest; deliveries = the quote events both strategies handled,
 * which must equal 2 × the quotes replayed. RSS max of each size's own child process. The median of the runs.
 * `paused`: the DCA's maxPrice is below every quote, so its guard pauses the first slot for the whole set and every
 * quote it hears is one it must look at (the schedule waits for the price); the DCA places nothing.
 */
export async function benchBacktestEveryQuote({
  copies = [1, 10],
  runs = 3,
  paused = false,
}: {
  copies?: readonly number[]
  runs?: number
  paused?: boolean
} = {}): Promise<BenchResult> {
  const notes: Record<string, string> = {
    target: paused
      ? 'as backtest-every-quote (a paused DCA costs no more per quote than a running one)'
      : '>= 2000000 quotes/s with every quote delivered; RSS of the 10x set <= 1.1 x the 1x set',
    quotes: 'BTC/USDC 1-21 March 2023 (1m candles), 8 requests; the DCA and the ladder each hear all 8',
    ...(paused ? { guard: `the DCA's maxPrice ${pausedMaxPrice.srcAmount} for ${pausedMaxPrice.destAmount}: paused throughout` } : {}),
  }
  const samples = await overSizesOfTheSet({
    name: 'every-quote',
    copies,
    notes,
    inChild,
    run: (file, count, spanMs, directory) =>
      inChild<RunReport>(['run', file, String(count), String(runs), String(spanMs), directory, paused ? 'paused' : 'guarded']),
    describe: (label, report) => {
      const rate = median(report.rates)
      notes[label] =
        `${report.quotes} quotes, median ${Math.round(rate)} quotes/s (runs ${report.rates.map((value) => Math.round(value)).join(', ')}), ` +
        `deliveries ${report.deliveries} (${report.deliveries === 2 * report.quotes ? 'every quote to both strategies' : `expected ${2 * report.quotes}`}), ` +
        `RSS max ${(report.maxRssBytes / 2 ** 20).toFixed(0)} MB, orders ${report.orders}, ${report.fills} fills, goal ${rate >= 2_000_000 ? 'met' : 'not met'}`
    },
  })
  const title = `backtest: every recorded quote delivered to a${paused ? ' paused' : ''} DCA and a ladder, realistic fills (21 days)`
  return summarize(title, 'quotes/s', samples, notes)
}

/** The paused variant's maxPrice: 1 raw USDC per WBTC, below every quote. */
const pausedMaxPrice = { srcAmount: '1', destAmount: '100000000' }

type RunReport = { rates: number[]; quotes: number; deliveries: number; maxRssBytes: number; orders: string; fills: number }

function inChild<T>(args: string[]): Promise<T> {
  return forkBenchChild<T>(import.meta.url, childMarker, args)
}

const childMarker = '--backtest-every-quote-child'
const strategiesDirectory = resolve(fileURLToPath(import.meta.url), '../../../strategies')

/**
 * The built-in definition of `name`, subscribed to `requests`: a plugin file in `directory`. An ES module (.mts), as
 * the built-ins are: a .ts file outside a `"type": "module"` package is compiled to CommonJS, and so would be the
 * built-in it imports, with a CommonJS copy of deltaflow and zod of its own (what a user's run never loads).
 */
function writeEveryQuotePlugin(directory: string, name: string, requests: readonly QuoteRequest[]): string {
  const file = join(directory, `every-quote-${name}.mts`)
  const listed = JSON.stringify(requests, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value))
  writeFileSync(
    file,
    `import definition from ${JSON.stringify(join(strategiesDirectory, name, 'index.ts'))}\n` +
      `export default { ...definition, subscriptions: () => ${listed} }\n`,
  )
  return file
}

function config(count: number, spanMs: number, plugins: { dca: string; ladder: string }, paused: boolean): string {
  const budget = dcaBudget
  // The ladder sells 0.5 WBTC over its levels, once each.
  const ladderBase = 50_000_000n
  return `
risk:
  tokens:
    "1:${usdc.address}": { totalBudget: "${budget}" }
    "1:${wbtc.address}": { totalBudget: "${ladderBase}" }
  maxSlippageBps: 100
  maxPriceImpactPercent: 3
backtest:
  balances:
    "1:${usdc.address}": "${budget}"
    "1:${wbtc.address}": "${ladderBase}"
  fill:
    model: realistic
strategies:
${dcaStrategyYaml(plugins.dca, count, spanMs, paused ? pausedMaxPrice : dcaMaxPrice)}
  - name: wbtc-ladder
    use: ${plugins.ladder}
    config:
      chainId: 1
      side: sell
      base: { address: "${wbtc.address}", decimals: ${wbtc.decimals} }
      quote: { address: "${usdc.address}", decimals: ${usdc.decimals} }
      lowerPrice: "24000"
      upperPrice: "28000"
      levels: 5
      spacing: linear
      sizePerLevel: "10000000"
      validitySeconds: ${Math.round((spanMs / 1000) * count)}
      retrySeconds: 600
      onFill: retire
`
}

async function run(file: string, count: number, runs: number, spanMs: number, directory: string, paused: boolean): Promise<RunReport> {
  const source = await openQuoteReplay(file)
  const requests = new Map<string, QuoteRequest>()
  for await (const block of source.blocks()) {
    for (let index = 0; index < block.length && requests.size < 8; index++) {
      const { key, request } = block.request(index)
      requests.set(key, request)
    }
    break
  }
  const plugins = {
    dca: writeEveryQuotePlugin(directory, 'dca', [...requests.values()]),
    ladder: writeEveryQuotePlugin(directory, 'ladder', [...requests.values()]),
  }
  const document = parseConfigDocument(config(count, spanMs, plugins, paused), join(directory, 'every-quote.yaml'))
  const rates: number[] = []
  let last: Omit<RunReport, 'rates' | 'maxRssBytes'> = { quotes: 0, deliveries: 0, orders: '', fills: 0 }
  for (let index = 0; index < runs; index++) {
    const started = performance.now()
    const done = await runBacktest({ document, source })
    rates.push(done.quotes / ((performance.now() - started) / 1000))
    last = {
      quotes: done.quotes,
      deliveries: done.strategies.reduce((sum, strategy) => sum + strategy.stats().quotesOffered, 0),
      orders: Object.entries(done.ordersByStrategy)
        .map(
          ([strategy, counts]) =>
            `${strategy}: ${Object.entries(counts)
              .map(([status, n]) => `${status} ${n}`)
              .join(' ')}`,
        )
        .join('; '),
      fills: done.venue.fills().length,
    }
  }
  return { rates, maxRssBytes: process.resourceUsage().maxRSS * 1024, ...last }
}

if (process.argv[2] === childMarker) {
  const [command, ...args] = process.argv.slice(3)
  const report =
    command === 'write'
      ? await writeMonth(args[0] as string)
      : command === 'copy'
        ? await copyMonths(args[0] as string, args[1] as string, Number(args[2]), Number(args[3])).then(() => ({}))
        : await run(args[0] as string, Number(args[1]), Number(args[2]), Number(args[3]), args[4] as string, args[5] === 'paused')
  process.send?.(report)
}
