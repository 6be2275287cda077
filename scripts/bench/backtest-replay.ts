import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Address } from 'viem'
import { openQuoteReplay } from '../../src/backtest/quote-blocks.js'
import { createQuoteStore } from '../../src/backtest/quote-store.js'
import { synthesizeAnswer } from '../../src/backtest/synthesize-answer.js'
import { type QuoteRequest, quoteRequestKey } from '../../src/feed/quote.js'
import { deltaPriceJson, type RecordedQuoteJson } from '../../src/feed/recorded-quote.js'
import { forkBenchChild } from './bench-child.js'
import { type BenchResult, median, summarize } from './summary.js'

export type BenchBacktestReplayParameters = {
  /** Store sizes, in quotes; memory must not grow with them. */
  sizes?: readonly number[]
  /** Timed passes over the store per figure (after one warm-up pass). */
  runs?: number
}

type ReadReport = { timeAndRequest: number[]; withAmounts: number[]; maxRssBytes: number; checksum: number }
type WriteReport = { seconds: number; maxRssBytes: number; quotes: number; blocks: number }

/**
 * Quotes per second read from a packed quote store (src/backtest/quote-store.md) the way a replay loop does:
 * (a) every block, time + request id of every quote; (b) the same plus srcAmount and destAmount of 1 quote in 16.
 * The store holds 16 synthetic requests (Market and Delta, SELL and BUY, WETH/USDC from 40 USDC to 100 WETH) on a
 * random walk, written without answers. Each size is written and read in child processes of its own so that their
 * peak RSS (getrusage maxrss) is the reader's alone: flat memory means the larger store peaks within 10 % of the
 * smaller one.
 */
export async function benchBacktestReplay({
  sizes = [1_000_000, 10_000_000],
  runs = 5,
}: BenchBacktestReplayParameters = {}): Promise<BenchResult> {
  const directory = mkdtempSync(join(tmpdir(), 'deltaflow-bench-replay-'))
  try {
    const notes: Record<string, string> = { target: '(a) >= 1000000 quotes/s, RSS of the largest <= 1.1 x the smallest' }
    let samples: number[] = []
    let smallestRss: number | undefined
    for (const size of sizes) {
      const file = join(directory, `quotes-${size}.sqlite`)
      const written = await inChild<WriteReport>(['write', file, String(size)])
      const read = await inChild<ReadReport>(['read', file, String(runs)])
      const label = size >= 1_000_000 ? `${size / 1_000_000}M` : String(size)
      notes[`${label}: write`] =
        `${Math.round(size / written.seconds)} quotes/s, ${(statSync(file).size / size).toFixed(1)} B/quote, RSS max ${mb(written.maxRssBytes)}`
      notes[`${label}: (a) time+request`] = `${Math.round(median(read.timeAndRequest))} quotes/s`
      notes[`${label}: (b) +amounts 1/16`] = `${Math.round(median(read.withAmounts))} quotes/s`
      notes[`${label}: RSS max`] = mb(read.maxRssBytes)
      smallestRss ??= read.maxRssBytes
      if (size !== sizes[0]) notes[`${label}: RSS vs ${sizes[0]}`] = `${((read.maxRssBytes / smallestRss - 1) * 100).toFixed(1)} %`
      samples = read.timeAndRequest
      rmSync(file, { force: true })
    }
    return summarize(`backtest replay: quotes read from a quote store of ${sizes.at(-1)} (time + request id)`, 'quotes/s', samples, notes)
  } finally {
    rmSync(directory, { recursive: true, force: true })
  }
}

function inChild<T>(args: string[]): Promise<T> {
  return forkBenchChild<T>(import.meta.url, childMarker, args)
}

const childMarker = '--backtest-replay-child'

async function readStore(file: string, runs: number): Promise<ReadReport> {
  const source = await openQuoteReplay(file)
  let checksum = 0
  const timeAndRequest: number[] = []
  const withAmounts: number[] = []
  for (let run = 0; run <= runs; run++) {
    let started = performance.now()
    let quotes = 0
    for await (const block of source.blocks()) {
      const length = block.length
      for (let index = 0; index < length; index++) checksum += block.time(index) + block.request(index).id
      quotes += length
    }
    if (run > 0) timeAndRequest.push(quotes / ((performance.now() - started) / 1000))
    started = performance.now()
    quotes = 0
    let amounts = 0n
    for await (const block of source.blocks()) {
      const length = block.length
      for (let index = 0; index < length; index++) {
        checksum += block.time(index) + block.request(index).id
        if ((index & 15) === 0) amounts += block.srcAmount(index) + block.destAmount(index)
      }
      quotes += length
    }
    if (run > 0) withAmounts.push(quotes / ((performance.now() - started) / 1000))
    checksum += Number(amounts & 0xffffn)
  }
  source.close?.()
  return { timeAndRequest, withAmounts, maxRssBytes: process.resourceUsage().maxRSS * 1024, checksum }
}

const oneWeth = 10n ** 18n
const weth = { address: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2' as Address, decimals: 18 }
const usdc = { address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' as Address, decimals: 6 }

type BenchRequest = {
  request: QuoteRequest
  line: Omit<RecordedQuoteJson, 'time' | 'requestedAt' | 'srcAmount' | 'destAmount'>
  sellsWeth: boolean
}

/** 16 requests: Market and Delta, SELL and BUY, 40 and 1,000 USDC, 0.5 and 100 WETH (beyond 2^64 wei). */
function benchRequests(): BenchRequest[] {
  const requests: BenchRequest[] = []
  for (const source of ['market', 'delta'] as const) {
    for (const side of ['SELL', 'BUY'] as const) {
      for (const [fixed, amount] of [
        [usdc, 40_000_000n],
        [usdc, 1_000_000_000n],
        [weth, 500_000_000_000_000_000n],
        [weth, 100_000_000_000_000_000_000n],
      ] as const) {
        // The fixed token is the source of a SELL and the destination of a BUY.
        const other = fixed === usdc ? weth : usdc
        const [src, dest] = side === 'SELL' ? [fixed, other] : [other, fixed]
        const request: QuoteRequest = { source, chainId: 1, srcToken: src.address, destToken: dest.address, amount, side }
        const costs =
          source === 'market'
            ? { gas: { usd: '0.30', units: '150000' }, fees: { partnerPercent: 0.01 } }
            : { gas: { usd: '0', wei: '0' }, fees: { partnerPercent: 0.01 } }
        const replayRequest = {
          id: requests.length,
          key: quoteRequestKey(request),
          request,
          srcDecimals: src.decimals,
          destDecimals: dest.decimals,
        }
        const answer = synthesizeAnswer({ request: replayRequest, source, srcAmount: 1n, destAmount: 1n, costs: {}, time: 0 })
        requests.push({
          request,
          sellsWeth: src === weth,
          line: {
            key: replayRequest.key,
            source,
            chainId: 1,
            srcToken: src.address,
            srcDecimals: src.decimals,
            destToken: dest.address,
            destDecimals: dest.decimals,
            side,
            amount: amount.toString(),
            ...costs,
            // Not stored (packed without answers); the writer reads only which mode answered.
            answer:
              answer.source === 'delta'
                ? { source: 'delta', price: deltaPriceJson(answer.price) }
                : { source: 'market', route: answer.route.raw },
          },
        })
      }
    }
  }
  return requests
}

async function writeStore(file: string, count: number): Promise<WriteReport> {
  const requests = benchRequests()
  const store = createQuoteStore({
    file,
    header: { format: 'deltaflow-quotes', version: 1, startedAt: 1_772_452_800_000 },
    keepAnswers: false,
  })
  const started = performance.now()
  // USDC per WETH in 6 decimals, a deterministic random walk of about 1 bps per round of requests.
  let price = 2_000_000_000n
  let seed = 1
  let time = 1_772_452_800_000
  for (let index = 0; index < count; index++) {
    const item = requests[index % requests.length] as BenchRequest
    if (index % requests.length === 0) {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
      price += (price * BigInt((seed % 21) - 10)) / 100_000n
      time += 250
    }
    const amount = item.request.amount
    const sell = item.request.side === 'SELL'
    // WETH → USDC at the price, USDC → WETH at its inverse; the fixed side is the request's amount.
    const other = (item.sellsWeth === sell ? (amount * price) / oneWeth : (amount * oneWeth) / price).toString()
    const { line } = item
    store.write({
      time,
      requestedAt: time - 30,
      key: line.key,
      source: line.source,
      chainId: 1,
      srcToken: line.srcToken,
      srcDecimals: line.srcDecimals,
      destToken: line.destToken,
      destDecimals: line.destDecimals,
      side: line.side,
      amount: line.amount,
      srcAmount: sell ? line.amount : other,
      destAmount: sell ? other : line.amount,
      gas: line.gas,
      fees: line.fees,
      answer: line.answer,
    })
  }
  const { quotes, blocks } = await store.close()
  return { seconds: (performance.now() - started) / 1000, maxRssBytes: process.resourceUsage().maxRSS * 1024, quotes, blocks }
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

// Run as a child of the bench (last, once every constant above is initialised).
if (process.argv[2] === childMarker) {
  const [, , , task, file, count] = process.argv
  const report = task === 'write' ? await writeStore(file as string, Number(count)) : await readStore(file as string, Number(count))
  process.send?.(report, () => process.exit(0))
}
