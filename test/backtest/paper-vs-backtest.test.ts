import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { type Address, erc20Abi } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openQuoteReplay } from '../../src/backtest/quote-blocks.js'
import { runBacktest } from '../../src/backtest/run-backtest.js'
import { loadConfigDocument } from '../../src/config/load-config.js'
import type { QuoteRequest } from '../../src/feed/quote.js'
import { createQuoteFeed } from '../../src/feed/quote-feed.js'
import { createQuoteRecorder, recordQuoteEvents } from '../../src/feed/quote-recorder.js'
import { readRecordedQuotes } from '../../src/feed/read-recorded-quotes.js'
import { createLogger } from '../../src/log/logger.js'
import { openBot } from '../../src/runtime/open-bot.js'
import { startSandbox } from '../../src/sandbox/start-sandbox.js'
import { type DcaConfig, dcaConfigSchema, nominalSliceAmountOf } from '../../strategies/dca/dca-config.js'
import { dcaStateSchema } from '../../strategies/dca/dca-state.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

// "Done when": a strategy backtested and then run in paper mode on the sandbox over the same price path ends with
// results within a documented tolerance of each other. What is compared and why these tolerances:
// src/backtest/paper-vs-backtest.md. PAPER_VS_BACKTEST_REPORT=<file> writes the measured figures of a run there.

const configFile = fileURLToPath(new URL('fixtures/paper-dca.yaml', import.meta.url))
const directory = createTempDirectory('deltaflow-paper-vs-backtest-')
afterAll(() => directory.cleanup())
const logger = createLogger({ level: 'silent' })

/**
 * The fixture's run, ten times slower and ten times shorter: speed 60 instead of 600 and 15 sandbox minutes instead
 * of 150, so it still takes about 15 real seconds. Real time leaks into a paper run at every step (pricing, an
 * approval, signing and submitting a TWAP within its deadline's 600 s of slack; the recording's quotes within the
 * guard's age; the arbitrageur's rounds, once per real second). At speed 600 a real second is ten sandbox minutes,
 * more than any of those margins, and a busy machine lost orders to it; at speed 60 it is one sandbox minute.
 */
const runOverrides = [
  { path: 'sandbox.speed', value: '60' },
  // 9 slices of 100 USDC, one every 100 sandbox seconds (the service's least TWAP interval is 60).
  { path: 'strategies.0.config.periodSeconds', value: '900' },
  // The paper bot's placement delay, 0.15-0.3 real seconds, in sandbox seconds at speed 60.
  { path: 'backtest.fill.delta.auctionSeconds', value: '15' },
]

/** Real ms between two polls of each recorded request: 3 sandbox seconds at speed 60. */
const recordIntervalMs = 50

/**
 * Paper against the backtest's fill model at the paper's own settlement times: WETH bought and average execution
 * price, in bps of the paper figure. The paper run's timing is not compared: each real millisecond of latency is
 * sandbox time, so a busy machine settles paper slices later, and the market moves meanwhile.
 */
const toleranceBps = 50

/** Real ms that bound the paper run on a starved machine (the run itself takes about 15 real seconds). */
const paperRunTimeoutMs = 120_000

/** One settled slice: clock ms, USDC spent, WETH received (raw units). */
type Fill = { at: number; spent: bigint; received: bigint }
type Outcome = { statuses: Record<string, number>; fills: Fill[]; histories?: string[] }

type Comparison = {
  dca: DcaConfig
  paper: Outcome
  /** The backtest under the ideal fill model (the fixture's): every slice at its recorded quote. */
  backtest: Outcome
  /** The same backtest under the realistic fill model (the default): each slice an auction drawn around its quote. */
  realistic: Outcome
  /** Each backtest fill's slice quote in force at its time. */
  quotedAtBacktest: Fill[]
  /** The chain's USDC and WETH movement of the paper wallet over the run. */
  chain: { spent: bigint; received: bigint }
  warnings: string[]
  differences: {
    /** Paper against backtest, as they came out. */
    receivedBps: number
    priceBps: number
    /** Of receivedBps: the recording's own move between the backtest's settlement times and the paper's. */
    timingBps: number
    /** Paper against the recorded slice quotes in force when the paper slices settled (the backtest's fill model there). */
    venueBps: number
    venuePriceBps: number
    /** WETH received under the realistic fill model against the ideal one: what the model's auctions add. */
    realisticBps: number
    /** Paper against the backtest under the realistic fill model, as they came out (timing included, as receivedBps). */
    realisticReceivedBps: number
  }
}

describe('paper against backtest', () => {
  let compared: Comparison | undefined
  beforeAll(async () => {
    compared = await runPaperAndBacktest()
  }, paperRunTimeoutMs + 60_000)
  const comparison = () => {
    if (!compared) throw new Error('the paper run and its backtest did not complete (see beforeAll)')
    return compared
  }

  it('journals in paper exactly what the chain moved', () => {
    const { paper, chain } = comparison()
    expect(chain).toEqual({ spent: sum(paper.fills, 'spent'), received: sum(paper.fills, 'received') })
  })

  it('places and completes the same TWAP orders with the same number of slices', () => {
    const { dca, paper, backtest, warnings } = comparison()
    expect(warnings, 'backtest warnings').toEqual([])
    expect(paper.statuses, `paper orders by status (${paper.histories?.join('; ')})`).toEqual({ COMPLETED: dca.orders })
    expect(backtest.statuses, 'backtest orders by status').toEqual(paper.statuses)
    expect(paper.fills, 'paper fills').toHaveLength(dca.orders * dca.slicesPerOrder)
    expect(backtest.fills, 'backtest fills').toHaveLength(paper.fills.length)
  })

  it('spends the same USDC: the whole budget', () => {
    const { dca, paper, backtest } = comparison()
    expect(sum(paper.fills, 'spent'), 'paper').toBe(dca.budget)
    expect(sum(backtest.fills, 'spent'), 'backtest').toBe(dca.budget)
  })

  it('settles every backtest slice at the recorded slice quote in force at its time', () => {
    // Default fill model: no improvement, no fees on top. What the tolerance below lets through is then the venue's
    // and the timing's, not the fill model's.
    const { backtest, quotedAtBacktest } = comparison()
    expect(backtest.fills.map((fill) => fill.received)).toEqual(quotedAtBacktest.map((quote) => quote.received))
  })

  it('moves the backtest by a few bps under the realistic fill model, with the same orders and slices', () => {
    const { backtest, realistic, differences } = comparison()
    expect(realistic.statuses).toEqual(backtest.statuses)
    expect(realistic.fills.map((fill) => fill.spent)).toEqual(backtest.fills.map((fill) => fill.spent))
    expect(realistic.fills.map((fill) => fill.received)).not.toEqual(backtest.fills.map((fill) => fill.received))
    // Nine slices drawn with a standard deviation of 3 bps each: their sum moves by about 1 bps.
    expect(Math.abs(differences.realisticBps), `realistic against ideal, bps: ${differences.realisticBps.toFixed(2)}`).toBeLessThanOrEqual(
      10,
    )
  })

  it(`buys WETH within ${toleranceBps} bps of the backtest's fill model at the paper's own settlement times`, () => {
    const { differences } = comparison()
    const { receivedBps, timingBps, venueBps, venuePriceBps } = differences
    const context = `paper against backtest ${receivedBps.toFixed(2)} bps, of which ${timingBps.toFixed(2)} bps is the recorded market's move between their settlement times`
    expect(Math.abs(venueBps), `WETH received, bps: ${venueBps.toFixed(2)} (${context})`).toBeLessThanOrEqual(toleranceBps)
    expect(Math.abs(venuePriceBps), `average price, bps: ${venuePriceBps.toFixed(2)} (${context})`).toBeLessThanOrEqual(toleranceBps)
  })
})

/**
 * Runs the fixture's DCA in paper mode (what `deltaflow run` opens, on the embedded sandbox) while recording on the
 * same sandbox and clock, then backtests the same config over the recording from the paper wallet's starting balances.
 */
async function runPaperAndBacktest(): Promise<Comparison> {
  const env = { ...process.env, PAPER_VS_BACKTEST_DB: directory.path('journal.sqlite') }
  const document = loadConfigDocument(configFile, { env, set: runOverrides })
  const entry = document.config.strategies[0]
  if (!entry) throw new Error(`${configFile} has no strategy`)
  const dca = dcaConfigSchema.parse(entry.config)
  const quotesFile = directory.path('quotes.jsonl.gz')

  // --- paper, and the recording ---
  const session = await openBot({ document, live: false, logger, env, startEmbedded: startSandbox })
  let from: number
  let to: number
  let startBalances: Record<'src' | 'dest', bigint>
  let paper: Outcome
  let chainMoved: Comparison['chain']
  try {
    const chain = session.chains.get(dca.chainId)
    const sandbox = session.venue.embedded
    if (!chain || !sandbox) throw new Error(`expected the embedded sandbox with chain ${dca.chainId}`)
    const account = session.account.address
    const balanceOf = (token: Address) =>
      chain.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [account] })
    startBalances = { src: await balanceOf(dca.srcToken), dest: await balanceOf(dca.destToken) }

    // What the backtest needs priced: the Delta price of one TWAP slice (the executor prices a twap-sell at one
    // slice, the fill model settles each slice at it) and the guard's quote (the strategy's own subscription).
    const sliceRequest: QuoteRequest = {
      source: 'delta',
      chainId: dca.chainId,
      srcToken: dca.srcToken,
      destToken: dca.destToken,
      amount: nominalSliceAmountOf(dca),
      side: 'SELL',
    }
    const requests = [sliceRequest, ...session.strategies.flatMap((strategy) => strategy.subscriptions)]
    const recorder = await createQuoteRecorder({
      file: quotesFile,
      decimalsOf: session.decimalsOf,
      clock: session.clock,
      meta: { config: configFile, venue: 'embedded sandbox', intervalMs: recordIntervalMs },
    })
    const feed = createQuoteFeed({
      api: session.api,
      decimalsOf: session.decimalsOf,
      requests,
      intervalMs: recordIntervalMs,
      clock: session.clock,
    })
    const recording = recordQuoteEvents(feed.events, recorder)
    // The backtest starts at the last slice quote before the bot does: a replay keeps no quote from before its
    // start, and its executor prices the first order from the recording alone.
    let lastSliceQuoteAt: number | undefined
    const sliceQuotes = feed.quotesFor([sliceRequest]).subscribe((quote) => {
      lastSliceQuoteAt = quote.receivedAt
    })
    from = await waitFor(() => lastSliceQuoteAt, 30_000, 'a first recorded slice quote')

    await session.bot.start()
    const journal = session.journal
    await waitFor(
      () => {
        const state = journal.getStrategyState(entry.name, 'schedule')
        return state !== undefined && dcaStateSchema.parse(state).finishedAt !== null ? true : undefined
      },
      paperRunTimeoutMs,
      'the DCA schedule to finish',
    )
    await session.bot.stop()
    to = session.clock.now()
    sliceQuotes.unsubscribe()
    recording.unsubscribe()
    await recorder.close()

    const orders = journal.listOrders({ strategy: entry.name })
    // When the sandbox settled each fill, by its own record (block times lag a compressed clock by up to minutes).
    const settledAt = new Map(
      sandbox.delta.store.list().flatMap((order) => order.transactions.map(({ originTx, at }) => [originTx.toLowerCase(), at])),
    )
    paper = {
      histories: orders.map(
        (order) =>
          `${order.id}: ${journal
            .orderHistory(order.id)
            .map((change) => `${change.status}${change.reason ? ` (${change.reason})` : ''}`)
            .join(' → ')}`,
      ),
      statuses: countBy(orders.map((order) => order.status)),
      fills: orders
        .flatMap((order) => journal.fillsOf(order.id))
        .map((fill) => ({ at: settledAt.get(fill.txHash.toLowerCase()) ?? 0, spent: fill.spentAmount, received: fill.receivedAmount }))
        .sort((a, b) => a.at - b.at),
    }
    chainMoved = {
      spent: startBalances.src - (await balanceOf(dca.srcToken)),
      received: (await balanceOf(dca.destToken)) - startBalances.dest,
    }
  } finally {
    await session.close()
  }

  // --- the backtest: the same config, as `deltaflow backtest --set backtest.balances.<token>=...` runs it ---
  const backtestOverrides = [
    ...runOverrides,
    { path: `backtest.balances.${dca.chainId}:${dca.srcToken}`, value: `"${startBalances.src}"` },
    { path: `backtest.balances.${dca.chainId}:${dca.destToken}`, value: `"${startBalances.dest}"` },
  ]
  const backtestRun = async (model: 'ideal' | 'realistic') => {
    const set = [...backtestOverrides, { path: 'backtest.fill.model', value: model }]
    const run = await runBacktest({
      document: loadConfigDocument(configFile, { env, set }),
      source: await openQuoteReplay(quotesFile),
      from,
      to,
      logger,
    })
    const outcome: Outcome = {
      statuses: run.ordersByStrategy[entry.name] ?? {},
      fills: run.venue
        .fills()
        .filter((fill) => fill.strategy === entry.name)
        .map(({ at, spent, received }) => ({ at, spent, received })),
    }
    return { run, outcome }
  }
  const { run, outcome: backtest } = await backtestRun('ideal')
  const { outcome: realistic } = await backtestRun('realistic')

  // --- the figures compared ---
  const sliceQuotes = await readSliceQuotes(quotesFile)
  /**
   * The slice quote in force at `at`: the latest recorded before it (the backtest runs what falls due at an instant
   * before it reads that instant's quotes).
   */
  const quoteBefore = (at: number) => sliceQuotes.findLast((quote) => quote.at < at)
  const quotedAt = (fills: readonly Fill[]) =>
    fills.map((fill) => {
      const quote = quoteBefore(fill.at)
      if (!quote) throw new Error(`no slice quote recorded before the fill at ${new Date(fill.at).toISOString()}`)
      return quote
    })
  const quotedAtPaper = quotedAt(paper.fills)
  const quotedAtBacktest = quotedAt(backtest.fills)
  const paperReceived = sum(paper.fills, 'received')
  const differences = {
    receivedBps: bpsBetween(paperReceived, sum(backtest.fills, 'received')),
    priceBps: bpsBetween(priceOf(paper.fills), priceOf(backtest.fills)),
    timingBps: (Number(sum(quotedAtBacktest, 'received') - sum(quotedAtPaper, 'received')) / Number(paperReceived)) * 10_000,
    venueBps: bpsBetween(sum(quotedAtPaper, 'received'), paperReceived),
    venuePriceBps: bpsBetween(priceOf(quotedAtPaper), priceOf(paper.fills)),
    realisticBps: bpsBetween(sum(backtest.fills, 'received'), sum(realistic.fills, 'received')),
    realisticReceivedBps: bpsBetween(paperReceived, sum(realistic.fills, 'received')),
  }
  if (process.env.PAPER_VS_BACKTEST_REPORT) {
    writeReport(process.env.PAPER_VS_BACKTEST_REPORT, { from, to, paper, backtest, differences, quoteBefore, warnings: run.warnings })
  }
  return { dca, paper, backtest, realistic, quotedAtBacktest, chain: chainMoved, warnings: run.warnings, differences }
}

async function waitFor<T>(read: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = read()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

function sum<Key extends 'spent' | 'received'>(items: readonly Record<Key, bigint>[], key: Key): bigint {
  return items.reduce((total, item) => total + item[key], 0n)
}

/** How far `value` is from `reference`, in bps of the reference. */
function bpsBetween(reference: bigint | number, value: bigint | number): number {
  return ((Number(value) - Number(reference)) / Number(reference)) * 10_000
}

/** Volume-weighted price, USDC (6 decimals) per WETH (18). */
function priceOf(fills: readonly Fill[]): number {
  return Number(sum(fills, 'spent')) / 1e6 / (Number(sum(fills, 'received')) / 1e18)
}

function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1
  return counts
}

async function readSliceQuotes(file: string): Promise<Fill[]> {
  const quotes: Fill[] = []
  for await (const { quote } of readRecordedQuotes(file)) {
    if (quote.request.source === 'delta') quotes.push({ at: quote.receivedAt, spent: quote.srcAmount, received: quote.destAmount })
  }
  return quotes
}

/** The measured figures of one run, per slice: times from the start (clock ms) and prices against the recording. */
function writeReport(
  file: string,
  run: {
    from: number
    to: number
    paper: Outcome
    backtest: Outcome
    differences: Record<string, number>
    quoteBefore: (at: number) => Fill | undefined
    warnings: string[]
  },
): void {
  const priced = (fill: Fill | undefined) => (fill ? priceOf([fill]) : null)
  const slices = run.paper.fills.map((fill, index) => {
    const other = run.backtest.fills[index]
    return {
      paperAt: fill.at - run.from,
      backtestAt: other ? other.at - run.from : null,
      paperPrice: priced(fill),
      backtestPrice: priced(other),
      quotedAtPaper: priced(run.quoteBefore(fill.at)),
      quotedAtBacktest: other ? priced(run.quoteBefore(other.at)) : null,
    }
  })
  const report = { from: run.from, to: run.to, differences: run.differences, warnings: run.warnings, slices }
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`)
}
