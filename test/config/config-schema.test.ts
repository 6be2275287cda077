import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../..', import.meta.url))

describe('deltaflow schema', () => {
  it('prints a JSON Schema that names every section and refuses unknown keys', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['bin/deltaflow.js', 'schema'], { cwd: root })
    const schema = JSON.parse(stdout) as {
      additionalProperties: boolean
      properties: Record<string, { properties?: Record<string, unknown>; enum?: string[] }>
    }
    expect(Object.keys(schema.properties).sort()).toEqual(
      [
        'backtest',
        'chains',
        'db',
        'executor',
        'feed',
        'maker',
        'mode',
        'notifications',
        'ops',
        'optimize',
        'reconcile',
        'risk',
        'runForSeconds',
        'sandbox',
        'strategies',
        'venue',
        'wallet',
      ].sort(),
    )
    expect(schema.additionalProperties).toBe(false)
    expect(schema.properties.mode?.enum).toEqual(['paper', 'dry-run', 'live'])
    expect(Object.keys(schema.properties.risk?.properties ?? {})).toContain('killSwitch')
    expect(Object.keys(schema.properties.backtest?.properties ?? {}).sort()).toEqual([
      'balances',
      'fill',
      'metrics',
      'pair',
      'samples',
      'seed',
    ])
  })
})
