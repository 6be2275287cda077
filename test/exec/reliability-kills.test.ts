import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { Address } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApiClient } from '../../src/api/client.js'
import { getDeltaOrders } from '../../src/api/delta/get-delta-orders.js'
import { bundleWorker } from '../helpers/bundle-worker.js'
import { sandboxToken } from '../helpers/otc.js'
import { useSandbox } from '../helpers/sandbox.js'
import { createTempDirectory } from '../helpers/temp-directory.js'
import { checkLane, type LaneFigures, noProblems } from './reliability-checks.js'
import {
  aimOf,
  type KillAim,
  killVariants,
  killWindows,
  type PlannedTrial,
  planTrial,
  reliabilityAccount,
  type WorkerConfig,
} from './reliability-plan.js'

// 100 trials by default, 20 per window, over 4 lanes; DELTAFLOW_RELIABILITY_TRIALS (and _LANES) run more by hand.
// DELTAFLOW_RELIABILITY_TRACE prints every run's lines.
const trials = countFromEnvironment('DELTAFLOW_RELIABILITY_TRIALS', 100)
const lanes = countFromEnvironment('DELTAFLOW_RELIABILITY_LANES', 4)
/** Development account of the first lane; each lane has its own. */
const firstAccount = 6

const directory = createTempDirectory('deltaflow-reliability-')
afterAll(() => directory.cleanup())
let workerScript: string
beforeAll(async () => {
  workerScript = await bundleWorker({
    entry: fileURLToPath(new URL('./reliability-worker.ts', import.meta.url)),
    outfile: directory.path('reliability-worker.mjs'),
  })
})

function countFromEnvironment(name: string, fallback: number): number {
  const text = process.env[name]
  if (text === undefined) return fallback
  if (!/^[1-9]\d*$/.test(text)) throw new Error(`${name} must be a whole number above 0, received ${JSON.stringify(text)}`)
  return Number(text)
}

type Run = { lines: string[]; signal: NodeJS.Signals | null }

/** Runs the worker to its end or to its kill; any other exit is an error carrying its output. */
function runWorker(config: WorkerConfig): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [workerScript, JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.on('error', reject)
    child.on('close', (exitCode, signal) => {
      const lines = stdout.split('\n').filter((line) => line !== '')
      if (signal === null && exitCode !== 0)
        reject(new Error(`worker exited with ${exitCode}:\n${lines.join('\n')}\n${stderr.slice(-3000)}`))
      else resolve({ lines, signal })
    })
  })
}

/** Waits until one of the account's Delta orders has `status` at the venue. */
async function waitForVenueStatus(url: string, account: Address, status: string): Promise<void> {
  const api = createApiClient({ baseUrl: url })
  for (let attempt = 0; ; attempt++) {
    const orders = (await getDeltaOrders(api, { userAddress: account, limit: 100 })).data
    if (orders.some((order) => order.status === status)) return
    if (attempt > 150) throw new Error(`no order of ${account} became ${status}: ${orders.map((order) => order.status).join(', ')}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

describe('reliability: SIGKILL aimed at the windows that matter, and the races around them', () => {
  const sandbox = useSandbox()

  /** What every run of one account shares: the sandbox, the account, its journal. */
  function accountConfig(accountIndex: number, journalName: string): Omit<WorkerConfig, 'trials' | 'aim' | 'settle'> {
    const running = sandbox()
    return {
      url: running.url,
      chains: running.chains.map((chain) => ({ chainId: chain.chainId, rpcUrl: chain.rpcUrl })),
      journalFile: directory.path(journalName),
      accountIndex,
      tokens: { usdc: sandboxToken(running, 1, 'USDC'), weth: sandboxToken(running, 1, 'WETH') },
    }
  }

  async function checkAccount(config: Omit<WorkerConfig, 'trials' | 'aim' | 'settle'>, trials: readonly PlannedTrial[]) {
    const account = reliabilityAccount(config.accountIndex).address
    return checkLane(sandbox(), { journalFile: config.journalFile, account, tokens: config.tokens, trials })
  }

  /** One lane: its own account and journal; each trial a run killed at its window, then a final run that settles. */
  async function runLane(lane: number, count: number): Promise<{ reached: KillAim[]; figures: LaneFigures }> {
    const config = accountConfig(firstAccount + lane, `reliability-${lane}.sqlite`)
    const planned: PlannedTrial[] = []
    for (let trial = 0; trial < count; trial++) {
      const aim = aimOf(lane, trial)
      planned.push(planTrial(trial, aim))
      const run = await runWorker({
        ...config,
        trials: planned.slice(-2),
        aim,
        settle: false,
        trace: Boolean(process.env.DELTAFLOW_RELIABILITY_TRACE),
      })
      if (process.env.DELTAFLOW_RELIABILITY_TRACE) console.log(lane, trial, run.signal, run.lines.join(' | '))
      // The kill was the aimed one: the worker said where it was about to die, then died of SIGKILL.
      const line = run.lines.find((text) => text.startsWith('about to die at '))
      expect({ lane, trial, signal: run.signal, window: line?.split(' ')[4] }).toEqual({
        lane,
        trial,
        signal: 'SIGKILL',
        window: aim.window,
      })
    }
    const final = await runWorker({ ...config, trials: planned.slice(-1), aim: undefined, settle: true })
    expect(final.lines.at(-1)).toMatch(/^done/)
    const { problems, figures } = await checkAccount(config, planned)
    expect({ lane, ...problems }).toEqual({ lane, ...noProblems })
    return { reached: planned.map((_, trial) => aimOf(lane, trial)), figures }
  }

  it('records the fills of a Delta order that the venue executed while the bot lay dead after submitting it', async () => {
    const config = accountConfig(5, 'executed-while-dead.sqlite')
    const trials: PlannedTrial[] = [{ trial: 0, steps: ['delta-usdc'] }]
    const aim: KillAim = { window: 'submission', variant: 'answered', from: 'delta-usdc', delayMs: 0 }
    const killed = await runWorker({ ...config, trials, aim, settle: false })
    expect(killed.signal).toBe('SIGKILL')
    expect(killed.lines.at(-1)).toMatch(/^about to die at submission \(answered\): POST \/v2\/delta\/orders/)
    // The venue settles the order before the bot starts again: recovery finds it final at the venue.
    await waitForVenueStatus(config.url, reliabilityAccount(config.accountIndex).address, 'COMPLETED')
    const restarted = await runWorker({ ...config, trials, aim: undefined, settle: true })
    expect(restarted.lines.at(-1)).toMatch(/^done/)
    expect((await checkAccount(config, trials)).problems).toEqual(noProblems)
  })

  it('ends done an intent whose order a reconciliation closed just before the bot was killed', async () => {
    const config = accountConfig(4, 'killed-in-reconciliation.sqlite')
    const trials: PlannedTrial[] = [{ trial: 0, steps: ['delta-usdc', 'market-usdc'] }]
    // Both orders placed, nothing reconciled yet.
    const placed = await runWorker({ ...config, trials, aim: undefined, settle: false })
    expect(placed.lines.at(-1)).toMatch(/^done/)
    await waitForVenueStatus(config.url, reliabilityAccount(config.accountIndex).address, 'COMPLETED')
    // The reconciliation writes the Market swap's fill and final status, then dies reading the Delta fill.
    const fill: KillAim = { window: 'fill', variant: 'venue-answer', from: 'reconcile', delayMs: 0 }
    const reconciling = await runWorker({ ...config, trials: [], aim: fill, settle: false })
    expect(reconciling.lines.at(-1)).toMatch(/^about to die at fill \(venue-answer\)/)
    const restarted = await runWorker({ ...config, trials, aim: undefined, settle: true })
    expect(restarted.lines.at(-1)).toMatch(/^done/)
    expect((await checkAccount(config, trials)).problems).toEqual(noProblems)
  })

  it('keeps an order whose approval was spent in part by a fill of an earlier order before it was checked', async () => {
    const config = accountConfig(3, 'approval-spent-by-a-fill.sqlite')
    // The LIMIT order's approval covers the Delta order still open (exact policy); the venue fills that one between the
    // approval's broadcast and its check.
    const trials: PlannedTrial[] = [{ trial: 0, steps: ['delta-usdc', 'limit', 'cancel'] }]
    const held = await runWorker({ ...config, trials, aim: undefined, settle: false, holdApprovalsUntilSettled: true })
    expect(held.lines.at(-1)).toMatch(/^done/)
    expect(held.lines.some((line) => line.startsWith("held an approval's answer until the venue filled 1 order"))).toBe(true)
    const settled = await runWorker({ ...config, trials, aim: undefined, settle: true })
    expect(settled.lines.at(-1)).toMatch(/^done/)
    expect((await checkAccount(config, trials)).problems).toEqual(noProblems)
  })

  it(`leaves no duplicate, no lost order or cancellation and exact balances after ${trials} aimed kills`, {
    timeout: 600_000,
  }, async () => {
    const perLane = Array.from({ length: lanes }, (_, lane) => Math.floor(trials / lanes) + (lane < trials % lanes ? 1 : 0))
    const results = await Promise.all(perLane.map((count, lane) => runLane(lane, count)))
    const reached = results.flatMap((result) => result.reached)
    expect(reached).toHaveLength(trials)
    // Every window had its share of kills (each lane aims at each window every fifth trial), in every form it has.
    const least = Math.floor(Math.min(...perLane) / killWindows.length) * lanes
    for (const window of killWindows) {
      expect({ window, enough: reached.filter((aim) => aim.window === window).length >= least }).toEqual({ window, enough: true })
    }
    if (Math.min(...perLane) >= 3 * killWindows.length) {
      const forms = Object.entries(killVariants).flatMap(([window, variants]) => variants.map((variant) => `${window}/${variant}`))
      expect(new Set(reached.map((aim) => `${aim.window}/${aim.variant}`))).toEqual(new Set(forms))
    }
    if (process.env.DELTAFLOW_RELIABILITY_TRACE) console.log(results.map((result) => result.figures))
  })
})
