import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createKillSwitch, type KillSwitch } from '../../src/exec/risk/kill-switch.js'

const created: KillSwitch[] = []
const track = (killSwitch: KillSwitch) => {
  created.push(killSwitch)
  return killSwitch
}

afterEach(() => {
  for (const killSwitch of created.splice(0)) killSwitch.dispose()
})

async function until(condition: () => boolean): Promise<void> {
  for (let attempt = 0; attempt < 200 && !condition(); attempt++) await new Promise((resolve) => setTimeout(resolve, 5))
}

describe('createKillSwitch', () => {
  it('is tripped while its file exists, and clear once it is removed', () => {
    const directory = mkdtempSync(join(tmpdir(), 'deltaflow-kill-'))
    const file = join(directory, 'STOP')
    const killSwitch = track(createKillSwitch({ file }))
    expect(killSwitch.isTripped()).toBe(false)
    expect(killSwitch.reason).toBeUndefined()
    writeFileSync(file, '')
    expect(killSwitch.isTripped()).toBe(true)
    expect(killSwitch.reason).toBe(`kill-switch file ${file} exists`)
    rmSync(directory, { recursive: true })
    expect(killSwitch.isTripped()).toBe(false)
  })

  it('is engaged by the operator with its own cancelOpenOrders until released, and release leaves the file alone', () => {
    const directory = mkdtempSync(join(tmpdir(), 'deltaflow-kill-'))
    const file = join(directory, 'STOP')
    try {
      const killSwitch = track(createKillSwitch({ file }))
      killSwitch.engage({ reason: 'market halt', cancelOpenOrders: true })
      expect(killSwitch).toMatchObject({ reason: 'market halt', source: 'operator', cancelOpenOrders: true })
      expect(killSwitch.isTripped()).toBe(true)
      killSwitch.reset()
      expect(killSwitch.isTripped()).toBe(true)
      writeFileSync(file, '')
      killSwitch.release()
      expect(killSwitch).toMatchObject({ reason: `kill-switch file ${file} exists`, source: 'file', cancelOpenOrders: false })
      rmSync(file)
      expect(killSwitch.isTripped()).toBe(false)
      expect(killSwitch.source).toBeUndefined()
    } finally {
      rmSync(directory, { recursive: true, force: true })
    }
  })

  it('trips on its signal and stays tripped until reset', async () => {
    const killSwitch = track(createKillSwitch({ signal: 'SIGUSR2', cancelOpenOrders: true }))
    expect(killSwitch.isTripped()).toBe(false)
    process.kill(process.pid, 'SIGUSR2')
    await until(() => killSwitch.isTripped())
    expect(killSwitch.isTripped()).toBe(true)
    expect(killSwitch.reason).toBe('received SIGUSR2')
    expect(killSwitch.cancelOpenOrders).toBe(true)
    killSwitch.reset()
    expect(killSwitch.isTripped()).toBe(false)
  })

  it('stops listening to the signal once disposed', () => {
    const before = process.listenerCount('SIGUSR2')
    const killSwitch = createKillSwitch({ signal: 'SIGUSR2' })
    expect(process.listenerCount('SIGUSR2')).toBe(before + 1)
    killSwitch.dispose()
    expect(process.listenerCount('SIGUSR2')).toBe(before)
  })

  it('does not cancel open orders unless asked', () => {
    expect(track(createKillSwitch()).cancelOpenOrders).toBe(false)
  })
})
