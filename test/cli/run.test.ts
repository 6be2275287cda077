import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { createApiClient } from '../../src/api/client.js'
import { getDeltaOrders } from '../../src/api/delta/get-delta-orders.js'
import { isFinalStatus } from '../../src/domain/order-status.js'
import { openJournal } from '../../src/journal/journal.js'
import type { JournalSummary } from '../../src/journal/journal-summary.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { systemClock } from '../../src/time/clock.js'
import { sandboxToken, useSandbox } from '../helpers/sandbox.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const runFile = promisify(execFile)
const directory = createTempDirectory('deltaflow-run-')
afterAll(() => directory.cleanup())

type Finished = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }

/** `deltaflow run <config>` as a user runs it, with its output collected. */
function startRun(config: string, env: Record<string, string>): { child: ChildProcess; finished: Promise<Finished> } {
  const child = spawn(process.execPath, ['bin/deltaflow.js', 'run', config], {
    cwd: root,
    env: { ...process.env, DELTAFLOW_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const finished = new Promise<Finished>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, stdout, stderr })))
  return { child, finished }
}

async function waitFor<T>(read: () => T | undefined, timeoutMs: number, what: string, dump: () => string = () => ''): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = read()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what} ${dump()}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

/** A short `deltaflow <args>`; resolves with its exit code and output (never rejects). */
async function deltaflow(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await runFile(process.execPath, ['bin/deltaflow.js', ...args], { cwd: root })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

describe('deltaflow run', () => {
  it('refuses a config with an unknown key, a wrong type and a missing variable, naming each with its line, and exits 1', async () => {
    const config = directory.path('bad.yaml')
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the configuration's own interpolation syntax
    writeFileSync(config, ['mode: paper', 'venue:', '  retries: many', '  apiKey: ${NOT_SET_ANYWHERE}', 'feeds: {}', ''].join('\n'))
    const result = await deltaflow(['run', config])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`${config}:4:11 (venue.apiKey): environment variable NOT_SET_ANYWHERE is not set`)
    writeFileSync(config, ['mode: paper', 'venue:', '  retries: many', 'feeds: {}', ''].join('\n'))
    const second = await deltaflow(['run', config])
    expect(second.code).toBe(1)
    expect(second.stderr).toContain(`${config}:3:12: venue.retries:`)
    expect(second.stderr).toContain(`${config}:4:1: unknown key "feeds" in (top level)`)
  }, 30_000)

  const sandbox = useSandbox({ chainIds: [1], speed: 30 })

  it('stops on SIGTERM with its work journaled, and a restart goes on without losing or repeating any of it', async () => {
    const s = sandbox()
    const account = developmentAccounts[7]
    if (!account) throw new Error('no development account 7')
    const journalFile = directory.path('restart.sqlite')
    const config = directory.path('restart.yaml')
    const maxSwaps = 6
    writeFileSync(
      config,
      [
        'mode: paper',
        `venue: { url: "${s.url}" }`,
        `chains: { "1": { rpcUrls: ["${s.chains[0]?.rpcUrl}"] } }`,
        'wallet: { privateKeyEnv: RESTART_TEST_KEY }',
        `db: ${journalFile}`,
        'reconcile: { intervalMs: 300 }',
        'strategies:',
        '  - name: ticker',
        `    use: ${fileURLToPath(new URL('fixtures/tick-swap.ts', import.meta.url))}`,
        '    config:',
        `      srcToken: "${sandboxToken(s, 1, 'USDC').address}"`,
        `      destToken: "${sandboxToken(s, 1, 'WETH').address}"`,
        '      baseAmount: "100000000"',
        `      maxSwaps: ${maxSwaps}`,
        // 30 sandbox seconds: one swap per real second at speed 30
        '      intervalMs: 30000',
        '',
      ].join('\n'),
    )
    const env = { RESTART_TEST_KEY: account.privateKey }
    const journal = openJournal({ file: journalFile, clock: systemClock })
    try {
      const ordersNow = () => journal.listOrders({ strategy: 'ticker' })

      // First run: stopped by SIGTERM while it still has swaps to place.
      const first = startRun(config, env)
      await waitFor(() => (ordersNow().length >= 2 ? true : undefined), 40_000, 'two orders of the first run')
      first.child.kill('SIGTERM')
      const firstExit = await first.finished
      expect(firstExit.code, firstExit.stderr).toBe(0)
      expect(firstExit.stdout).toContain('deltaflow run finished (paper)')
      // Nothing was left half-done: every order it signed was submitted.
      expect(journal.inFlightOrders()).toEqual([])
      const afterFirst = ordersNow().length
      expect(afterFirst).toBeLessThan(maxSwaps)

      // Second run: places the rest, hears every order's final status, and is stopped the same way.
      const second = startRun(config, env)
      const updates = () => (journal.getStrategyState('ticker', 'updates') as string[] | undefined) ?? []
      await waitFor(
        () => {
          const orders = ordersNow()
          const told = new Set(updates())
          return orders.length === maxSwaps &&
            orders.every((order) => isFinalStatus(order.mode, order.status) && told.has(`${order.id}:${order.status}`))
            ? true
            : undefined
        },
        60_000,
        'every swap placed, final and told to the strategy',
        () =>
          JSON.stringify({
            orders: ordersNow().map((o) => [o.id, o.status]),
            updates: updates(),
            placed: journal.getStrategyState('ticker', 'placed'),
          }),
      )
      second.child.kill('SIGTERM')
      const secondExit = await second.finished
      expect(secondExit.code, secondExit.stderr).toBe(0)

      // Each swap n = 1..maxSwaps once: one intent, one order, source amount base + n.
      const orders = ordersNow()
      expect(orders.map((order) => order.srcAmount - 100_000_000n).sort((a, b) => Number(a - b))).toEqual(
        Array.from({ length: maxSwaps }, (_, index) => BigInt(index + 1)),
      )
      expect(journal.intentsOf('ticker')).toHaveLength(maxSwaps)
      expect(orders.every((order) => order.status === 'COMPLETED')).toBe(true)
      // The venue knows exactly these orders of the account.
      const api = createApiClient({ baseUrl: s.url })
      const venueOrders = await getDeltaOrders(api, { userAddress: account.address, limit: 100 })
      expect(venueOrders.data.map((order) => order.orderHash.toLowerCase()).sort()).toEqual(
        orders.map((order) => order.orderHash?.toLowerCase()).sort(),
      )
      // Every status change and fill was told once: none lost across the restart, none repeated.
      const told = updates()
      expect(new Set(told).size).toBe(told.length)
      for (const order of orders) expect(told).toContain(`${order.id}:COMPLETED`)
      const fills = (journal.getStrategyState('ticker', 'fills') as string[] | undefined) ?? []
      const journaledFills = orders.flatMap((order) => journal.fillsOf(order.id).map((fill) => `${order.id}:${fill.id}`))
      expect([...fills].sort()).toEqual([...journaledFills].sort())

      // `deltaflow status` reads the same story from the journal.
      const status = await deltaflow(['status', '--db', journalFile, '--json'])
      expect(status.code, status.stderr).toBe(0)
      const summary = JSON.parse(status.stdout) as JournalSummary
      expect(summary.orders).toMatchObject({ total: maxSwaps, open: 0, byStatus: { 'delta:COMPLETED': maxSwaps } })
      expect(summary.fills).toBe(journaledFills.length)
      const ticker = summary.strategies.find((strategy) => strategy.name === 'ticker')
      expect(ticker?.intents).toEqual({ done: maxSwaps })
      const usdc = `1:${sandboxToken(s, 1, 'USDC').address.toLowerCase()}`
      const spent = orders.reduce((sum, order) => sum + order.srcAmount, 0n)
      expect(ticker?.net[usdc]).toBe((-spent).toString())
    } finally {
      journal.close()
    }
  }, 150_000)
})
