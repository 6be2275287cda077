import { type ChildProcess, spawn } from 'node:child_process'
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { readFileSync } from 'node:fs'
import { availableParallelism, loadavg } from 'node:os'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { parseUnits } from 'viem'
import { z } from 'zod'
import { createApiClient } from '../../src/api/client.js'
import { wireAddressSchema } from '../../src/domain/wire-fields.js'
import { type QuoteRequest, quoteRequestKey } from '../../src/feed/quote.js'
import { createQuoteFeed } from '../../src/feed/quote-feed.js'
import { decimalsFromTokenList } from '../../src/feed/token-decimals.js'
import { tokenCatalogue } from '../../src/sandbox/chains/catalogue.js'
import { systemClock } from '../../src/time/clock.js'
import { type BenchResult, summarize } from './summary.js'

export type BenchPoll500Parameters = {
  requestCount?: number
  intervalMs?: number
  warmupSeconds?: number
  measureSeconds?: number
  /** Measure in this process (as tsx runs it) rather than in a child process running compiled JavaScript. */
  inProcess?: boolean
}

const parametersSchema = z.object({
  requestCount: z.number().optional(),
  intervalMs: z.number().optional(),
  warmupSeconds: z.number().optional(),
  measureSeconds: z.number().optional(),
})

const benchResultSchema = z.object({
  name: z.string(),
  unit: z.string(),
  runs: z.number(),
  min: z.number(),
  median: z.number(),
  p99: z.number(),
  max: z.number(),
  notes: z.record(z.string(), z.string()),
})

/** The argument that makes this file, compiled, measure and print its result as one JSON line. */
const childFlag = '--measure-polling'

/** What a bot polling 1,000 requests once a second may use: a share of one core, and resident memory. */
const goal = { cpuPercent: 50, rssMegabytes: 250 }

/**
 * The HTTP feed of a bot polling 500 (or `requestCount`) distinct requests once a second against a sandbox running in
 * a child process (its CPU is not ours): quotes received per second (one sample per second of the measured window),
 * this process's CPU share of one core, its peak RSS and heap, the live heap after a full GC, the connections opened,
 * whether every request was polled about once per second, and whether the goal holds.
 */
export function benchPoll500({ inProcess = false, ...parameters }: BenchPoll500Parameters = {}): Promise<BenchResult> {
  return inProcess ? measurePolling(parameters) : measureInCompiledChild(parameters)
}

/**
 * A bot runs compiled JavaScript with plain node, while this script runs under tsx, whose loader thread and
 * transformed sources add about 40 MB of RSS that no bot has. So the polling is measured in a child process: this
 * file bundled by esbuild (the packages stay in node_modules) into .cache/bench/, started with plain node.
 */
async function measureInCompiledChild(parameters: z.input<typeof parametersSchema>): Promise<BenchResult> {
  const outfile = fileURLToPath(new URL('../../.cache/bench/poll.mjs', import.meta.url))
  const { build } = await import('esbuild')
  await build({
    entryPoints: [fileURLToPath(import.meta.url)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    outfile,
    logLevel: 'warning',
  })
  const child = spawn(process.execPath, [outfile, childFlag, JSON.stringify(parameters)], { stdio: ['ignore', 'pipe', 'inherit'] })
  let output = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk
  })
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
  const last = output.trim().split('\n').at(-1)
  if (code !== 0 || !last) throw new Error(`the polling child exited with code ${code} without a result`)
  return benchResultSchema.parse(JSON.parse(last))
}

async function measurePolling({
  requestCount = 500,
  intervalMs = 1_000,
  warmupSeconds = 5,
  measureSeconds = 30,
}: z.input<typeof parametersSchema>): Promise<BenchResult> {
  const sandbox = await startSandboxChild()
  try {
    const requests = benchRequests(sandbox.info.tokens, requestCount)
    // One poll per request per second is far above the client's default 10 requests/s per host.
    const api = createApiClient({ baseUrl: sandbox.info.url, rateLimit: { requestsPerSecond: 2 * requestCount }, retry: false })
    const feed = createQuoteFeed({ api, requests, decimalsOf: decimalsFromTokenList(sandbox.info.tokens), intervalMs, clock: systemClock })
    const rssBefore = process.memoryUsage().rss

    // Events are counted from `windowStart` for `measureSeconds`, bucketed by the second they arrived in.
    let windowStart = Number.POSITIVE_INFINITY
    const windowMs = measureSeconds * 1_000
    const quotesPerSecond: number[] = Array.from({ length: measureSeconds }, () => 0)
    const polls = new Map<string, number[]>()
    const latencies = { delta: [] as number[], market: [] as number[] }
    const errorKinds = new Map<string, number>()
    const subscription = feed.events.subscribe((event) => {
      const now = performance.now()
      if (now < windowStart || now >= windowStart + windowMs) return
      const times = polls.get(event.key) ?? []
      times.push(now)
      polls.set(event.key, times)
      if (event.type === 'quote') {
        const bucket = Math.floor((now - windowStart) / 1_000)
        quotesPerSecond[bucket] = (quotesPerSecond[bucket] ?? 0) + 1
        latencies[event.quote.request.source === 'delta' ? 'delta' : 'market'].push(event.quote.receivedAt - event.quote.requestedAt)
      } else {
        const kind = event.error instanceof Error ? event.error.name : 'unknown'
        errorKinds.set(kind, (errorKinds.get(kind) ?? 0) + 1)
      }
    })
    let rssMax = 0
    let heapMax = 0
    const sampleMemory = () => {
      const memory = process.memoryUsage()
      rssMax = Math.max(rssMax, memory.rss)
      heapMax = Math.max(heapMax, memory.heapUsed)
    }
    const sampler = setInterval(sampleMemory, 100)
    const lag = monitorEventLoopDelay({ resolution: 10 })
    // Sockets opened to the sandbox (undici's channel, published by the pooled client and by fetch alike).
    let connectionsOpened = 0
    let connectionsInWindow = 0
    const onConnected = () => {
      connectionsOpened++
      if (performance.now() >= windowStart) connectionsInWindow++
    }
    subscribe('undici:client:connected', onConnected)
    try {
      await sleep(warmupSeconds * 1_000)
      const cpuStart = process.cpuUsage()
      const sandboxCpuStart = cpuSecondsOf(sandbox.child.pid)
      windowStart = performance.now()
      lag.enable()
      await sleep(windowMs)
      // The timer may fire late on a loaded machine; CPU is divided by the time that really passed.
      while (performance.now() < windowStart + windowMs) await sleep(windowStart + windowMs - performance.now())
      const elapsedSeconds = (performance.now() - windowStart) / 1_000
      const cpu = process.cpuUsage(cpuStart)
      const sandboxCpuEnd = cpuSecondsOf(sandbox.child.pid)
      lag.disable()
      sampleMemory()
      const liveHeap = heapAfterFullGc()

      const cpuPercent = ((cpu.user + cpu.system) / 1e6 / elapsedSeconds) * 100
      const ratesOf = (source: QuoteRequest['source']) =>
        feed.requests
          .filter((request) => request.source === source)
          .map((request) => (polls.get(quoteRequestKey(request))?.length ?? 0) / measureSeconds)
      const rates = [...ratesOf('market'), ...ratesOf('delta')]
      const aboutOnce = rates.filter((rate) => rate >= 0.9 && rate <= 1.1).length
      const gaps = [...polls.values()].flatMap((times) => times.slice(1).map((time, index) => time - (times[index] ?? time)))
      const total = quotesPerSecond.reduce((sum, count) => sum + count, 0)
      const errors = [...errorKinds.values()].reduce((sum, count) => sum + count, 0)
      const spread = (values: readonly number[], digits: number) => {
        const sorted = [...values].sort((a, b) => a - b)
        return `median ${at(sorted, 0.5).toFixed(digits)}, min ${at(sorted, 0).toFixed(digits)}, max ${at(sorted, 1).toFixed(digits)}`
      }
      const latency = (values: readonly number[]) => {
        const sorted = [...values].sort((a, b) => a - b)
        return `p50 ${at(sorted, 0.5).toFixed(0)} ms, p99 ${at(sorted, 0.99).toFixed(0)} ms`
      }
      const rssMegabytes = rssMax / 2 ** 20
      const holds = cpuPercent < goal.cpuPercent && rssMegabytes < goal.rssMegabytes
      return summarize(
        `feed polling ${feed.requests.length} requests every ${intervalMs} ms from a sandbox in a child process`,
        'quotes/s',
        quotesPerSecond,
        {
          goal: `< ${goal.cpuPercent} % of one core and < ${goal.rssMegabytes} MB RSS at 1,000 requests: ${holds ? 'holds' : 'MISSED'}`,
          process:
            process.argv[2] === childFlag ? 'a child running compiled JavaScript with plain node, as a bot does' : 'this one, under tsx',
          'quotes/s overall': (total / measureSeconds).toFixed(0),
          errors: `${errors}${errorKinds.size > 0 ? ` (${[...errorKinds].map(([kind, count]) => `${kind} ${count}`).join(', ')})` : ''}`,
          'CPU of this process': `${cpuPercent.toFixed(1)} % of one core`,
          'RSS max': `${rssMegabytes.toFixed(0)} MB, ${(rssBefore / 2 ** 20).toFixed(0)} MB before polling (heap used max ${(heapMax / 2 ** 20).toFixed(0)} MB, live heap after a full GC ${(liveHeap / 2 ** 20).toFixed(0)} MB)`,
          'connections opened': `${connectionsOpened} (${connectionsInWindow} in the window)`,
          'polls per request per s': `market ${spread(ratesOf('market'), 2)}; delta ${spread(ratesOf('delta'), 2)}`,
          'requests polled about once a second (0.9 to 1.1 /s)': `${aboutOnce} of ${rates.length}`,
          'largest gap between two polls of a request': `${Math.max(0, ...gaps).toFixed(0)} ms`,
          'answer latency': `market ${latency(latencies.market)}; delta ${latency(latencies.delta)}`,
          'event-loop delay of this process': `p99 ${(lag.percentile(99) / 1e6).toFixed(0)} ms, max ${(lag.max / 1e6).toFixed(0)} ms`,
          ...(sandboxCpuStart !== undefined && sandboxCpuEnd !== undefined
            ? {
                'CPU of the sandbox process': `${(((sandboxCpuEnd - sandboxCpuStart) / elapsedSeconds) * 100).toFixed(0)} % of one core (its anvils not counted)`,
              }
            : {}),
          machine: `${availableParallelism()} cores, load average ${loadavg()[0]?.toFixed(1)} at the end`,
          window: `${measureSeconds} s after ${warmupSeconds} s of warm-up`,
        },
      )
    } finally {
      clearInterval(sampler)
      lag.disable()
      unsubscribe('undici:client:connected', onConnected)
      subscription.unsubscribe()
    }
  } finally {
    await sandbox.stop()
  }
}

/** The same feed at 1,000 requests: the size the goal is set for. */
export function benchPoll1000(parameters: Omit<BenchPoll500Parameters, 'requestCount'> = {}): Promise<BenchResult> {
  return benchPoll500({ ...parameters, requestCount: 1_000 })
}

/** Heap used after a full garbage collection: what is really alive. */
function heapAfterFullGc(): number {
  setFlagsFromString('--expose-gc')
  const gc: unknown = runInNewContext('gc')
  if (typeof gc === 'function') gc()
  return process.memoryUsage().heapUsed
}

const at = (sorted: readonly number[], quantile: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))] ?? Number.NaN

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)))

type SandboxToken = { chainId: number; symbol: string; address: `0x${string}`; decimals: number }

/** Every ordered pair of the sandbox's tokens on chains 1 and 8453, both sides, Delta and Market, at growing USD sizes. */
function benchRequests(tokens: readonly SandboxToken[], count: number): QuoteRequest[] {
  const priceUsd = new Map(tokenCatalogue.map((spec) => [spec.symbol, spec.priceUsd]))
  const sizesUsd = [100, 1_000, 10_000, 50_000, 250_000]
  const requests: QuoteRequest[] = []
  for (const sizeUsd of sizesUsd) {
    for (const chainId of [1, 8453]) {
      const onChain = tokens.filter((token) => token.chainId === chainId)
      for (const src of onChain) {
        for (const dest of onChain) {
          if (src === dest) continue
          for (const side of ['SELL', 'BUY'] as const) {
            const fixed = side === 'SELL' ? src : dest
            const amount = parseUnits((sizeUsd / (priceUsd.get(fixed.symbol) ?? 1)).toFixed(Math.min(6, fixed.decimals)), fixed.decimals)
            for (const source of ['market', 'delta'] as const) {
              requests.push({ source, chainId, srcToken: src.address, destToken: dest.address, amount, side })
              if (requests.length === count) return requests
            }
          }
        }
      }
    }
  }
  throw new Error(`only ${requests.length} distinct requests from the sandbox's tokens, ${count} asked`)
}

const readyLineSchema = z.object({
  url: z.string(),
  chains: z.array(z.object({ chainId: z.number(), rpcUrl: z.string() })),
  tokens: z.array(z.object({ chainId: z.number(), symbol: z.string(), address: wireAddressSchema, decimals: z.number() })),
})

/** `deltaflow sandbox --json --chains <chains>` in a child process, once it printed its ready line. */
export async function startSandboxChild(
  chains = '1,8453',
): Promise<{ info: z.output<typeof readyLineSchema>; child: ChildProcess; stop: () => Promise<void> }> {
  const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url))
  const child = spawn(process.execPath, ['--import', 'tsx', main, 'sandbox', '--json', '--chains', chains], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await exited
  }
  try {
    const info = await new Promise<z.output<typeof readyLineSchema>>((resolve, reject) => {
      const timeout = setTimeout(() => reject(new Error('the sandbox did not print its ready line within 60 s')), 60_000)
      child.once('exit', (code) => reject(new Error(`the sandbox exited (code ${code}) before it was ready`)))
      if (!child.stdout) throw new Error('no stdout of the sandbox')
      createInterface({ input: child.stdout }).on('line', (line) => {
        let json: unknown
        try {
          json = JSON.parse(line)
        } catch {
          return // a log line
        }
        const parsed = readyLineSchema.safeParse(json)
        if (parsed.success) {
          clearTimeout(timeout)
          resolve(parsed.data)
        }
      })
    })
    return { info, child, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

/** User + system CPU seconds of a process from /proc (Linux); undefined elsewhere. */
export function cpuSecondsOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th, in clock ticks.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    const ticks = Number(fields[11]) + Number(fields[12])
    return Number.isFinite(ticks) ? ticks / 100 : undefined
  } catch {
    return undefined
  }
}

// Started as the compiled child: measure, then print the result as one JSON line for the parent.
if (process.argv[2] === childFlag) {
  const result = await measurePolling(parametersSchema.parse(JSON.parse(process.argv[3] ?? '{}')))
  console.log(JSON.stringify(result))
}
