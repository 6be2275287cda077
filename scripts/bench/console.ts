import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { parseConfigDocument } from '../../src/config/load-config.js'
import { createLogger } from '../../src/log/logger.js'
import { type BotSession, openBot } from '../../src/runtime/open-bot.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import type { SafeStrategy } from '../../src/strategy/safe-strategy.js'
import { type LoadAnswer, type LoadCommand, loadAnswerSchema, serveFlag, wallNow } from './console-load.js'
import { cpuSecondsOf, startSandboxChild } from './poll-500.js'
import { type BenchResult, summarize } from './summary.js'

export type BenchConsoleParameters = {
  /** Rounds with the console off and as many with it on, alternated. */
  rounds?: number
  warmupSeconds?: number
  measureSeconds?: number
  /** Event-stream clients during the rounds with the console on. */
  streamClients?: number
  /** Probe events journaled per second, in every round. */
  eventsPerSecond?: number
  /** Reads per second of each API path, in the rounds with the console on. */
  readsPerSecond?: number
}

const readPaths = ['/api/status', '/api/strategies', '/api/orders?limit=50']
const probeStrategy = 'console-bench-probe'
const strategyFile = fileURLToPath(new URL('./console-strategy.ts', import.meta.url))
const loadFile = fileURLToPath(new URL('./console-load.ts', import.meta.url))

type RoundFigures = {
  console: boolean
  /** ms from the dispatch handing a quote to the strategy to the dispatch telling it its limit order's outcome. */
  quoteToIntent: number[]
  outcomes: Record<string, number>
  cpuPercent: number
  sandboxCpuPercent: number | undefined
  loopDelayP99Ms: number
  eventsPerSecond: number
  /** The journal's last event at the end of the window: every client must get to it. */
  lastEvent: number
  load: Extract<LoadAnswer, { answer: 'round' }> | undefined
}

/**
 * The operator console's cost to a paper bot, and what its readers get. The bot runs in this process on a sandbox in a
 * child process; a strategy places a limit order at every quote (10 quotes a second) and cancels them ten at a time;
 * 100 probe events a second are journaled (strategy events through the journal's own API, each carrying its send
 * time). Rounds alternate the console off and on; when on, a load process holds `streamClients` clients on
 * GET /api/events and reads /api/status, /api/strategies and /api/orders?limit=50 at a fixed rate each. Figures:
 * quote → intent outcome latency off and on (the median is the console-on one), the API's read latency, the event
 * stream's delivery latency, losses and repeats, and the bot process's CPU.
 */
export async function benchConsole({
  rounds = 3,
  warmupSeconds = 3,
  measureSeconds = 15,
  streamClients = 50,
  eventsPerSecond = 100,
  readsPerSecond = 10,
}: BenchConsoleParameters = {}): Promise<BenchResult> {
  const sandbox = await startSandboxChild('1')
  const directory = mkdtempSync(join(tmpdir(), 'deltaflow-bench-console-'))
  const load = startLoadProcess()
  try {
    const weth = sandbox.info.tokens.find((token) => token.chainId === 1 && token.symbol === 'WETH')
    const usdc = sandbox.info.tokens.find((token) => token.chainId === 1 && token.symbol === 'USDC')
    const rpcUrl = sandbox.info.chains.find((chain) => chain.chainId === 1)?.rpcUrl
    if (!weth || !usdc || !rpcUrl) throw new Error('the sandbox has no chain 1 with WETH and USDC')
    const env = { CONSOLE_BENCH_KEY: developmentAccounts[6]?.privateKey ?? '', CONSOLE_BENCH_TOKEN: 'console-bench-token-0123456789' }
    const configText = (consoleOn: boolean, round: number) =>
      [
        'mode: paper',
        `venue: { url: "${sandbox.info.url}", requestsPerSecond: 1000 }`,
        `chains: { "1": { rpcUrls: ["${rpcUrl}"] } }`,
        'wallet: { privateKeyEnv: CONSOLE_BENCH_KEY }',
        `db: "${join(directory, 'bot.sqlite')}"`,
        'feed: { intervalMs: 100 }',
        'reconcile: { intervalMs: 1000 }',
        `ops: { port: 0, console: ${consoleOn}, auth: { tokenEnv: CONSOLE_BENCH_TOKEN } }`,
        'risk: { maxOpenOrdersPerStrategy: 100 }',
        'strategies:',
        '  - name: trader',
        `    use: "${strategyFile}"`,
        `    config: { chainId: 1, weth: "${weth.address}", usdc: "${usdc.address}", round: "r${round}" }`,
      ].join('\n')
    const logger = createLogger({ level: 'error', destination: process.stderr })

    async function runRound(consoleOn: boolean, round: number): Promise<RoundFigures> {
      const document = parseConfigDocument(configText(consoleOn, round), join(directory, 'bot.yaml'), { env })
      const session = await openBot({ document, live: false, logger, env })
      let producer: ReturnType<typeof setInterval> | undefined
      try {
        const [trader] = session.strategies
        if (!trader) throw new Error('the bench strategy did not load')
        const timing = timeQuoteToIntent(trader)
        await session.bot.start()
        producer = produceProbeEvents(session, eventsPerSecond)
        if (consoleOn) {
          const url = session.ops?.url
          if (!url) throw new Error('the ops server did not start')
          await load.ask({ command: 'start', url, clients: streamClients, paths: readPaths, readsPerSecond, probeStrategy })
        }
        await sleep(warmupSeconds * 1_000)

        if (consoleOn) await load.ask({ command: 'measure' })
        timing.measuring = true
        const lag = monitorEventLoopDelay({ resolution: 10 })
        lag.enable()
        const firstEvent = session.journal.lastConsoleEventId()
        const cpuStart = process.cpuUsage()
        const sandboxCpuStart = cpuSecondsOf(sandbox.child.pid)
        const started = performance.now()
        await sleep(measureSeconds * 1_000)
        const elapsedSeconds = (performance.now() - started) / 1_000
        const cpu = process.cpuUsage(cpuStart)
        const sandboxCpuEnd = cpuSecondsOf(sandbox.child.pid)
        const lastEvent = session.journal.lastConsoleEventId()
        lag.disable()
        timing.measuring = false

        clearInterval(producer)
        producer = undefined
        const loadFigures = consoleOn ? await load.ask({ command: 'stop', lastId: lastEvent, waitMs: 3_000 }) : undefined
        return {
          console: consoleOn,
          quoteToIntent: timing.samples,
          outcomes: timing.outcomes,
          cpuPercent: ((cpu.user + cpu.system) / 1e6 / elapsedSeconds) * 100,
          sandboxCpuPercent:
            sandboxCpuStart !== undefined && sandboxCpuEnd !== undefined
              ? ((sandboxCpuEnd - sandboxCpuStart) / elapsedSeconds) * 100
              : undefined,
          loopDelayP99Ms: lag.percentile(99) / 1e6,
          eventsPerSecond: (lastEvent - firstEvent) / elapsedSeconds,
          lastEvent,
          load: loadFigures?.answer === 'round' ? loadFigures : undefined,
        }
      } finally {
        if (producer) clearInterval(producer)
        if (session.bot.stats().running) await session.bot.stop()
        await session.close()
      }
    }

    const figures: RoundFigures[] = []
    for (let round = 0; round < rounds; round++) {
      // Off first in odd rounds, on first in even ones: neither side always runs on the older, larger journal.
      const order = round % 2 === 0 ? [false, true] : [true, false]
      for (const consoleOn of order) figures.push(await runRound(consoleOn, figures.length))
    }
    return summarizeRounds(figures, { streamClients, eventsPerSecond, readsPerSecond, measureSeconds, warmupSeconds })
  } finally {
    await load.close()
    await sandbox.stop()
    rmSync(directory, { recursive: true, force: true })
  }
}

/**
 * Wraps the strategy's entry points as the dispatch calls them: a quote handed over, then the outcome of each limit
 * intent it produced told back (after the executor journaled it). Nothing in the bot changes.
 */
function timeQuoteToIntent(strategy: SafeStrategy) {
  const timing = { measuring: false, samples: [] as number[], outcomes: {} as Record<string, number> }
  const quotedAt = new Map<string, number>()
  const { handleQuote, handleIntentResult } = strategy
  strategy.handleQuote = async (quote) => {
    const started = performance.now()
    const run = await handleQuote(quote)
    if (run.outcome === 'handled') for (const intent of run.intents) if (intent.kind === 'limit') quotedAt.set(intent.id, started)
    return run
  }
  strategy.handleIntentResult = (event) => {
    const started = quotedAt.get(event.intentId)
    quotedAt.delete(event.intentId)
    if (started !== undefined && timing.measuring) {
      const outcome = event.status === 'accepted' ? event.status : `${event.status} (${event.reason ?? 'no reason'})`
      timing.outcomes[outcome] = (timing.outcomes[outcome] ?? 0) + 1
      if (event.status === 'accepted') timing.samples.push(performance.now() - started)
    }
    return handleIntentResult(event)
  }
  return timing
}

/** Journals `perSecond` probe events a second (catching up when a tick is late), each with its wall-clock send time. */
function produceProbeEvents(session: BotSession, perSecond: number): ReturnType<typeof setInterval> {
  const started = performance.now()
  let sent = 0
  return setInterval(() => {
    const due = Math.floor(((performance.now() - started) / 1_000) * perSecond)
    for (; sent < due; sent++) session.journal.recordStrategyEvent(probeStrategy, { event: 'probe', seq: sent, sentAt: wallNow() })
  }, 10)
}

function startLoadProcess() {
  const child = spawn(process.execPath, ['--import', 'tsx', loadFile, serveFlag], { stdio: ['pipe', 'pipe', 'inherit'] })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const waiting: { resolve: (answer: LoadAnswer) => void; reject: (error: Error) => void }[] = []
  if (!child.stdout) throw new Error('no stdout of the load process')
  createInterface({ input: child.stdout }).on('line', (line) => {
    let json: unknown
    try {
      json = JSON.parse(line)
    } catch {
      return // not an answer (a warning of the runtime)
    }
    const next = waiting.shift()
    const parsed = loadAnswerSchema.safeParse(json)
    if (!next) return
    if (parsed.success) next.resolve(parsed.data)
    else next.reject(new Error(`the load process answered ${line.slice(0, 200)}: ${parsed.error.message}`))
  })
  child.once('exit', (code) => {
    for (const next of waiting.splice(0)) next.reject(new Error(`the load process exited (code ${code})`))
  })
  return {
    ask: (command: LoadCommand) =>
      new Promise<LoadAnswer>((resolve, reject) => {
        waiting.push({ resolve, reject })
        child.stdin?.write(`${JSON.stringify(command)}\n`)
      }),
    close: async () => {
      child.stdin?.end()
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}

type SummaryParameters = Required<
  Pick<BenchConsoleParameters, 'streamClients' | 'eventsPerSecond' | 'readsPerSecond' | 'measureSeconds' | 'warmupSeconds'>
>

function summarizeRounds(figures: readonly RoundFigures[], parameters: SummaryParameters): BenchResult {
  const off = figures.filter((round) => !round.console)
  const on = figures.filter((round) => round.console)
  const samplesOf = (rounds: readonly RoundFigures[]) => rounds.flatMap((round) => round.quoteToIntent)
  const offSummary = summarize('off', 'ms', samplesOf(off))
  const onSummary = summarize('on', 'ms', samplesOf(on))
  const ratio = onSummary.median / offSummary.median
  const roundMedians = (rounds: readonly RoundFigures[]) =>
    rounds.map((round) => summarize('', 'ms', round.quoteToIntent).median.toFixed(2)).join(', ')
  const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length)
  const loads = on.flatMap((round) => (round.load ? [round.load] : []))
  const latency = (values: readonly number[]) => {
    const summary = summarize('', 'ms', values)
    return `p50 ${summary.median.toFixed(1)} ms, p99 ${summary.p99.toFixed(1)} ms, max ${summary.max.toFixed(1)} ms (${summary.runs})`
  }
  const clients = loads.flatMap((load) => load.clients)
  const deliveries = loads.flatMap((load) => load.deliveries)
  const behind = on.reduce(
    (count, round) => count + (round.load?.clients.filter((client) => client.lastId < round.lastEvent).length ?? 0),
    0,
  )
  const outcomes = (rounds: readonly RoundFigures[]) => {
    const counts: Record<string, number> = {}
    for (const round of rounds) for (const [status, count] of Object.entries(round.outcomes)) counts[status] = (counts[status] ?? 0) + count
    return Object.entries(counts)
      .map(([status, count]) => `${status} ${count}`)
      .join(', ')
  }
  return summarize('quote → limit intent executed and journaled, console on with its load', 'ms', samplesOf(on), {
    target: 'console on at most 5 % slower than off (median)',
    'console off': `median ${offSummary.median.toFixed(2)} ms, p99 ${offSummary.p99.toFixed(2)} ms (${offSummary.runs})`,
    'ratio on/off': `median ${ratio.toFixed(3)}, p99 ${(onSummary.p99 / offSummary.p99).toFixed(3)}: ${ratio <= 1.05 ? 'within' : 'NOT within'} the 5 % goal`,
    'round medians': `off ${roundMedians(off)}; on ${roundMedians(on)}`,
    'intent outcomes (limit orders)': `off ${outcomes(off)}; on ${outcomes(on)}`,
    ...Object.fromEntries(
      readPaths.map((path) => [`GET ${path} at ${parameters.readsPerSecond}/s`, latency(loads.flatMap((load) => load.reads[path] ?? []))]),
    ),
    'read errors': String(loads.reduce((sum, load) => sum + load.readErrors, 0)),
    [`event stream, ${parameters.streamClients} clients`]: `delivery ${latency(deliveries)} (probe events, journal write to client)`,
    'events journaled per s': `off ${mean(off.map((round) => round.eventsPerSecond)).toFixed(0)}, on ${mean(on.map((round) => round.eventsPerSecond)).toFixed(0)} (${parameters.eventsPerSecond} probe + the trader's)`,
    'events per client per round': `min ${Math.min(...clients.map((client) => client.events))}, max ${Math.max(...clients.map((client) => client.events))}`,
    'lost (gaps, clients short of the last id)': `${clients.reduce((sum, client) => sum + client.gaps, 0)}, ${behind}`,
    duplicates: String(clients.reduce((sum, client) => sum + client.duplicates, 0)),
    'clients dropped': String(clients.filter((client) => client.dropped).length),
    'CPU of the bot process': `off ${mean(off.map((round) => round.cpuPercent)).toFixed(1)} %, on ${mean(on.map((round) => round.cpuPercent)).toFixed(1)} % of one core`,
    'event-loop delay p99 of the bot': `off ${mean(off.map((round) => round.loopDelayP99Ms)).toFixed(1)} ms, on ${mean(on.map((round) => round.loopDelayP99Ms)).toFixed(1)} ms`,
    'CPU of the load process': `${mean(loads.map((load) => (load.cpuSeconds / load.elapsedSeconds) * 100)).toFixed(1)} % of one core`,
    'CPU of the sandbox process': `off ${mean(off.map((round) => round.sandboxCpuPercent ?? Number.NaN)).toFixed(0)} %, on ${mean(on.map((round) => round.sandboxCpuPercent ?? Number.NaN)).toFixed(0)} % (its anvil not counted)`,
    machine: `${availableParallelism()} cores, load average ${loadavg()[0]?.toFixed(1)} at the end`,
    window: `${figures.length} rounds alternating off and on, each ${parameters.measureSeconds} s after ${parameters.warmupSeconds} s of warm-up`,
  })
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))
