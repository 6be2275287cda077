// Benchmarks: `npm run bench` prints one line per figure; `--json` prints the raw results.
// `npm run bench -- chains sandbox-start` runs only the named ones.

import { benchBacktestDca } from './bench/backtest-dca.js'
import { benchBacktestEveryQuote } from './bench/backtest-every-quote.js'
import { benchBacktestReplay } from './bench/backtest-replay.js'
import { benchChainsUp } from './bench/chains.js'
import { benchCliStart } from './bench/cli-start.js'
import { benchConsole } from './bench/console.js'
import { benchFeed } from './bench/feed.js'
import { benchIntentToSigned } from './bench/intent-to-signed.js'
import { benchJournalAppend } from './bench/journal.js'
import { benchMakerFirm } from './bench/maker-firm.js'
import { benchMakerPrices } from './bench/maker-prices.js'
import { benchOptimize } from './bench/optimize.js'
import { benchOrderNews } from './bench/order-news.js'
import { benchPipeline } from './bench/pipeline.js'
import { benchPoll500, benchPoll1000 } from './bench/poll-500.js'
import { benchReconcile } from './bench/reconcile.js'
import { benchSandboxDeltaSubmit } from './bench/sandbox-delta-submit.js'
import { benchSandboxPrices } from './bench/sandbox-prices.js'
import { benchSandboxStart } from './bench/sandbox-start.js'
import { type BenchResult, formatBench } from './bench/summary.js'

const benches: Record<string, () => Promise<BenchResult>> = {
  chains: () => benchChainsUp(),
  'sandbox-start': () => benchSandboxStart(),
  'sandbox-prices': () => benchSandboxPrices(),
  'sandbox-delta-submit': () => benchSandboxDeltaSubmit(),
  journal: () => benchJournalAppend(),
  reconcile: () => benchReconcile(),
  'order-news': () => benchOrderNews(),
  'intent-to-signed': () => benchIntentToSigned(),
  feed: () => benchFeed(),
  pipeline: () => benchPipeline(),
  'poll-500': () => benchPoll500(),
  'poll-1000': () => benchPoll1000(),
  'backtest-dca': () => benchBacktestDca(),
  'backtest-every-quote': () => benchBacktestEveryQuote(),
  'backtest-every-quote-paused': () => benchBacktestEveryQuote({ copies: [1], paused: true }),
  'backtest-replay': () => benchBacktestReplay(),
  optimize: () => benchOptimize(),
  'maker-prices': () => benchMakerPrices(),
  'maker-firm': () => benchMakerFirm(),
  'cli-start': () => benchCliStart(),
  console: () => benchConsole(),
}

const asked = process.argv.slice(2).filter((argument) => !argument.startsWith('--'))
const unknown = asked.filter((name) => !(name in benches))
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${Object.keys(benches).join(', ')}`)
  process.exit(2)
}
const results: BenchResult[] = []
for (const [name, run] of Object.entries(benches)) {
  if (asked.length > 0 && !asked.includes(name)) continue
  const result = await run()
  results.push(result)
  if (!process.argv.includes('--json')) console.log(formatBench(result))
}
if (process.argv.includes('--json')) console.log(JSON.stringify(results, null, 2))
