import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import type { JournalSummary } from '../../src/journal/journal-summary.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const run = promisify(execFile)

type RunOutput = {
  summary: JournalSummary
  stats: { executionErrors: number; strategies: Record<string, { failures: number; paused: boolean }> }
}

describe('the demo (npm start: deltaflow run config/demo.yaml)', () => {
  it('runs every built-in strategy on the embedded sandbox, stops by itself with exit 0, and summarises the journal', async () => {
    // The demo's own config, shortened from 60 to 30 real seconds.
    const { stdout } = await run(process.execPath, ['bin/deltaflow.js', 'run', 'config/demo.yaml', '--for', '30', '--json'], {
      cwd: root,
      env: { ...process.env, DELTAFLOW_LOG_LEVEL: 'warn', DELTAFLOW_PRIVATE_KEY: '' },
      maxBuffer: 16 * 1024 * 1024,
    })
    const { summary, stats } = JSON.parse(stdout) as RunOutput
    const byName = new Map(summary.strategies.map((strategy) => [strategy.name, strategy]))
    for (const name of ['dca-weth', 'weth-ladder', 'usdc-rebalancer', 'otc-weth']) {
      const strategy = byName.get(name)
      expect(strategy, `${name} placed nothing`).toBeDefined()
      expect(Object.values(strategy?.orders ?? {}).reduce((sum, count) => sum + count, 0)).toBeGreaterThan(0)
      expect(stats.strategies[name]).toMatchObject({ failures: 0, paused: false })
    }
    expect(byName.get('dca-weth')?.orders['delta:COMPLETED']).toBeGreaterThan(0)
    expect(byName.get('otc-weth')?.orders['otc:FULFILLED']).toBe(1)
    expect(summary.fills).toBeGreaterThan(0)
    expect(stats.executionErrors).toBe(0)
  }, 120_000)
})
