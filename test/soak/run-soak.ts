import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { otcCounterpartyAddresses } from '../../src/sandbox/otc/otc-counterparty-accounts.js'
import { type RunningSandbox, startSandbox } from '../../src/sandbox/start-sandbox.js'
import { type FaultCounts, type FaultProxy, startFaultProxy } from '../helpers/fault-proxy.js'
import { createTempDirectory } from '../helpers/temp-directory.js'
import { type SoakBotArguments, type SoakSample, type SoakStopped, soakBotLineSchema } from './soak-bot-lines.js'
import { checkSoakJournal, type JournalVerdict } from './soak-checks.js'
import { apiFaults, type PlannedOutage, planOutages, rpcFaults, soakConfigYaml } from './soak-plan.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const botScript = fileURLToPath(new URL('./soak-bot.ts', import.meta.url))
const keyEnv = 'DELTAFLOW_SOAK_KEY'

export type SoakOptions = {
  /** Sandbox minutes the bot runs under faults. */
  sandboxMinutes: number
  /** Sandbox time per real time. */
  speed: number
  /** Seeds the sandbox, the faults and the outages: the same seed repeats the run's schedule. */
  seed: number
  /** Real ms between two memory samples. Default 1000. */
  sampleMs?: number | undefined
  /** The development account the bot trades from. Default 5. */
  accountIndex?: number | undefined
  /** Real ms the bot may take to stop once told. Default 120_000. */
  stopTimeoutMs?: number | undefined
  /** Progress lines (the script prints them; the test stays quiet). */
  progress?: ((text: string) => void) | undefined
}

/** The options of a run with their defaults filled in. */
export type SoakSettings = {
  sandboxMinutes: number
  speed: number
  seed: number
  sampleMs: number
  accountIndex: number
  stopTimeoutMs: number
}

export type MemoryCurve = {
  samples: SoakSample[]
  /** RSS once warmed up (median of the samples from 20 % to 30 % of the run) and at the end (median of the last 10 %). */
  warmRss: number
  endRss: number
  /** endRss / warmRss − 1. */
  growth: number
}

export type SoakReport = {
  options: SoakSettings
  /** Real ms of the faulted run, and of the whole soak (sandbox start to checks). */
  runRealMs: number
  totalRealMs: number
  /** How the bot process ended: exit code 0 after its `stopped` line is a clean stop. */
  exit: { code: number | null; signal: NodeJS.Signals | null; stoppedOk: boolean; stderrTail: string }
  stopped: SoakStopped | undefined
  faults: { api: FaultCounts; rpc: Record<number, FaultCounts>; outages: PlannedOutage[] }
  /** Intents queued by the dispatch (its stats) and results handed to the strategies, at stop. */
  intents: { queued: number; results: number; executionErrors: number }
  journal: JournalVerdict | undefined
  memory: MemoryCurve
  /** Error log lines of the bot by message, most frequent first. */
  errors: { message: string; count: number }[]
  /** The bot's log; its directory (config, journal, log) is removed after the run unless DELTAFLOW_SOAK_KEEP=1. */
  logFile: string
}

/**
 * One soak: a sandbox at `speed`, fault proxies in front of its API and its chains' RPC, and the bot (every built-in
 * strategy) in a child process pointed at the proxies. Faults run from the bot's start for `sandboxMinutes`; then
 * the faults stop, the bot is stopped, what it left open is cancelled and settled directly against the sandbox, and
 * the journal is checked against the venue and the chains.
 */
export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const settled: SoakSettings = {
    sandboxMinutes: options.sandboxMinutes,
    speed: options.speed,
    seed: options.seed,
    sampleMs: options.sampleMs ?? 1_000,
    accountIndex: options.accountIndex ?? 5,
    stopTimeoutMs: options.stopTimeoutMs ?? 120_000,
  }
  const progress = options.progress ?? (() => {})
  const started = performance.now()
  const directory = createTempDirectory('deltaflow-soak-')
  const logFile = directory.path('bot.log')
  const stops: (() => Promise<void>)[] = []
  try {
    progress(`starting the sandbox (speed ${settled.speed}, seed ${settled.seed})`)
    const sandbox = await startSandbox({ chainIds: [1, 8453], speed: settled.speed, seed: settled.seed, market: 'replay' })
    stops.push(() => sandbox.stop())
    progress('sandbox started')
    const proxies = await startProxies(sandbox, settled.seed)
    stops.push(async () => {
      await proxies.api.close()
      for (const proxy of proxies.rpc.values()) await proxy.close()
    })
    const account = developmentAccounts[settled.accountIndex]
    if (!account) throw new Error(`no development account ${settled.accountIndex}`)
    const runSeconds = settled.sandboxMinutes * 60
    const configFile = directory.path('soak.yaml')
    const journalFile = directory.path('journal.sqlite')
    const token = (chainId: number, symbol: string) => {
      const found = sandbox.tokens.find((candidate) => candidate.chainId === chainId && candidate.symbol === symbol)
      if (!found) throw new Error(`no ${symbol} on chain ${chainId}`)
      return found.address
    }
    const yaml = soakConfigYaml({
      apiUrl: proxies.api.url,
      rpcUrls: new Map([...proxies.rpc].map(([chainId, proxy]) => [chainId, proxy.url])),
      journalFile,
      keyEnv,
      runSeconds,
      tokens: { usdc: token(1, 'USDC'), weth: token(1, 'WETH'), baseUsdc: token(8453, 'USDC') },
      counterparty: required(otcCounterpartyAddresses()[0], 'the sandbox OTC counterparty'),
      idleTaker: required(developmentAccounts[9]?.address, 'development account 9'),
    })
    writeFileSync(configFile, yaml)

    const bot = startBot({ configFile, logFile, sampleMs: settled.sampleMs, logLevel: 'warn' }, account.privateKey)
    stops.push(() => bot.kill())
    await bot.started
    progress(`bot started; faults on for ${settled.sandboxMinutes} sandbox minutes`)
    const runMs = (runSeconds * 1000) / settled.speed
    const outages = planOutages({ seed: settled.seed, durationMs: runMs, chainIds: [...proxies.rpc.keys()] })
    const runStarted = performance.now()
    await runFaults(proxies, outages, runMs, bot.exited, progress)
    const runRealMs = performance.now() - runStarted
    progress('faults off; stopping the bot')
    const exit = await bot.stop(settled.stopTimeoutMs)
    const stopped = bot.lines.find((line): line is SoakStopped => line.event === 'stopped')

    let journal: JournalVerdict | undefined
    if (bot.lines.some((line) => line.event === 'started')) {
      progress('settling what the bot left open, then checking the journal against the venue and the chains')
      journal = await checkSoakJournal({ sandbox, configFile, keyEnv, privateKey: account.privateKey })
    }
    const samples = bot.lines.filter((line): line is SoakSample => line.event === 'sample')
    // Here rather than in the cleanup: a proxy that failed itself (not a fault it injected) fails the soak.
    await proxies.api.close()
    for (const proxy of proxies.rpc.values()) await proxy.close()
    return {
      options: settled,
      runRealMs,
      totalRealMs: performance.now() - started,
      exit: { ...exit, stoppedOk: stopped !== undefined },
      stopped,
      faults: {
        api: proxies.api.counts(),
        rpc: Object.fromEntries([...proxies.rpc].map(([chainId, proxy]) => [chainId, proxy.counts()])),
        outages,
      },
      intents: {
        queued: stopped?.stats.intentsQueued ?? samples.at(-1)?.intentsQueued ?? 0,
        results: stopped?.stats.resultsTold ?? samples.at(-1)?.results ?? 0,
        executionErrors: stopped?.stats.executionErrors ?? samples.at(-1)?.executionErrors ?? 0,
      },
      journal,
      memory: memoryCurve(samples),
      errors: errorMessages(logFile),
      logFile,
    }
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => {})
    if (process.env.DELTAFLOW_SOAK_KEEP !== '1') directory.cleanup()
  }
}

async function startProxies(sandbox: RunningSandbox, seed: number): Promise<{ api: FaultProxy; rpc: Map<number, FaultProxy> }> {
  const api = await startFaultProxy({
    target: sandbox.url,
    seed,
    // the sandbox's own controls (the bot reads its clock at start) are not the service
    exempt: (_method, path) => path.startsWith('/_sandbox/'),
  })
  const rpc = new Map<number, FaultProxy>()
  for (const [index, chain] of sandbox.chains.entries()) {
    rpc.set(chain.chainId, await startFaultProxy({ target: chain.rpcUrl, seed: seed + index + 1 }))
  }
  return { api, rpc }
}

/** Per-request faults on all proxies for `runMs`, with the planned outages; ends early when the bot exits. */
async function runFaults(
  proxies: { api: FaultProxy; rpc: Map<number, FaultProxy> },
  outages: readonly PlannedOutage[],
  runMs: number,
  exited: Promise<unknown>,
  progress: (text: string) => void,
): Promise<void> {
  proxies.api.setFaults(apiFaults)
  for (const proxy of proxies.rpc.values()) proxy.setFaults(rpcFaults)
  const timers: NodeJS.Timeout[] = []
  const begun: Promise<void>[] = []
  const failures: unknown[] = []
  for (const outage of outages) {
    const proxy = outage.on === 'api' ? proxies.api : proxies.rpc.get(outage.on)
    if (!proxy) continue
    timers.push(
      setTimeout(() => {
        progress(`${outage.on === 'api' ? 'API' : `RPC of chain ${outage.on}`} outage: ${outage.kind} for ${outage.durationMs} ms`)
        const beginning = proxy.beginOutage(outage.kind)
        begun.push(beginning)
        void beginning.then(() =>
          timers.push(setTimeout(() => void proxy.endOutage().catch((error: unknown) => failures.push(error)), outage.durationMs)),
        )
      }, outage.atMs),
    )
  }
  await Promise.race([new Promise((resolve) => timers.push(setTimeout(resolve, runMs))), exited])
  for (const timer of timers) clearTimeout(timer)
  for (const outcome of await Promise.allSettled(begun)) if (outcome.status === 'rejected') failures.push(outcome.reason)
  for (const proxy of [proxies.api, ...proxies.rpc.values()]) {
    await proxy.endOutage()
    proxy.setFaults(undefined)
  }
  if (failures.length > 0) throw new Error('the fault proxies could not begin or end an outage', { cause: failures[0] })
}

type BotProcess = {
  lines: ReturnType<typeof soakBotLineSchema.parse>[]
  started: Promise<void>
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  stop: (timeoutMs: number) => Promise<{ code: number | null; signal: NodeJS.Signals | null; stderrTail: string }>
  kill: () => Promise<void>
}

function startBot(parameters: SoakBotArguments, privateKey: string): BotProcess {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', botScript, JSON.stringify(parameters)], {
    cwd: root,
    env: { ...process.env, [keyEnv]: privateKey },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: BotProcess['lines'] = []
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-8_000)
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  )
  const started = new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout as NonNullable<typeof child.stdout> }).on('line', (text) => {
      const line = soakBotLineSchema.safeParse(safeJson(text))
      if (!line.success) return
      lines.push(line.data)
      if (line.data.event === 'started') resolve()
    })
    void exited.then(({ code, signal }) =>
      reject(new Error(`the bot process ended before it started (code ${code}, signal ${signal}): ${stderr.slice(-2_000)}`)),
    )
  })
  return {
    lines,
    started,
    exited,
    stop: async (timeoutMs) => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
      const exit = await exited
      clearTimeout(timer)
      return { ...exit, stderrTail: stderr.slice(-2_000) }
    },
    kill: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGKILL')
      await exited
    },
  }
}

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`the soak needs ${what}, and the sandbox has none`)
  return value
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * RSS once warmed up against RSS at the end, each the median of a window of samples so that one garbage collection
 * does not decide: the samples from 20 % to 30 % of the run, and the last 10 % (at least three of each).
 */
export function memoryCurve(samples: readonly SoakSample[]): MemoryCurve {
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0
  const count = samples.length
  const warmFrom = Math.floor(count * 0.2)
  const warm = samples.slice(warmFrom, Math.max(warmFrom + 3, Math.ceil(count * 0.3)))
  const end = samples.slice(Math.min(count - 3, Math.floor(count * 0.9)))
  const warmRss = median(warm.map((sample) => sample.rss))
  const endRss = median(end.map((sample) => sample.rss))
  return { samples: [...samples], warmRss, endRss, growth: warmRss === 0 ? 0 : endRss / warmRss - 1 }
}

/** The bot's error lines (pino level 50 and up), counted by message. */
function errorMessages(logFile: string): { message: string; count: number }[] {
  let text = ''
  try {
    text = readFileSync(logFile, 'utf8')
  } catch {
    return []
  }
  const counts = new Map<string, number>()
  for (const line of text.split('\n')) {
    const entry = safeJson(line) as { level?: number; msg?: string; err?: { type?: string; name?: string } } | undefined
    if (!entry || (entry.level ?? 0) < 50) continue
    const message = `${entry.msg ?? '(no message)'}${entry.err ? ` [${entry.err.name ?? entry.err.type}]` : ''}`
    counts.set(message, (counts.get(message) ?? 0) + 1)
  }
  return [...counts].map(([message, count]) => ({ message, count })).sort((a, b) => b.count - a.count)
}
