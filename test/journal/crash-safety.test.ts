import { type ChildProcess, spawn } from 'node:child_process'
import { afterAll, describe, expect, it } from 'vitest'
import { openJournal } from '../../src/journal/journal.js'
import { ManualClock } from '../../src/time/clock.js'
import { createJournalDirectory } from './journal-fixtures.js'

const writerScript = new URL('./crash-writer.ts', import.meta.url).pathname
const trials = 20

/** Starts the writer; resolves with the ids it reported committed once it has been SIGKILLed after `killAfterIds` ids. */
function runWriterUntilKilled(file: string, prefix: string, killAfterIds: number): Promise<string[]> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', writerScript, file, prefix], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  let errors = ''
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      if (output.split('\n').length > killAfterIds && !child.killed) child.kill('SIGKILL')
    })
    child.stderr?.on('data', (chunk: Buffer) => {
      errors += chunk.toString()
    })
    child.on('error', reject)
    child.on('exit', (_code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`writer exited without being killed: ${errors}`))
      else resolve(output.split('\n').filter((line) => line.length > 0))
    })
  })
}

describe('journal crash safety', () => {
  const directory = createJournalDirectory()
  afterAll(() => directory.cleanup())

  /** `count` kill-and-reopen trials on one file; returns how many ids the writers reported. */
  async function crashRepeatedly(file: string, count: number): Promise<number> {
    const reported: string[] = []
    for (let trial = 0; trial < count; trial++) {
      // A random point in the write stream: the kill lands while later transactions are in progress.
      const killAfterIds = 1 + Math.floor(Math.random() * 400)
      reported.push(...(await runWriterUntilKilled(file, `trial${trial}`, killAfterIds)))

      const journal = openJournal({ file, clock: new ManualClock(0) })
      try {
        expect(journal.checkIntegrity()).toBe('ok')
        const stored = journal.listOrders()
        const storedIds = new Set(stored.map((order) => order.id))
        expect(stored.length).toBe(storedIds.size)
        expect(reported.filter((id) => !storedIds.has(id))).toEqual([])
        for (const id of reported.slice(-3)) {
          expect(journal.orderHistory(id).map((change) => change.status)).toEqual(['SIGNED', 'PENDING'])
          expect(journal.fillsOf(id)).toHaveLength(1)
        }
      } finally {
        journal.close()
      }
    }
    return reported.length
  }

  // Every trial starts a fresh writer process (node + tsx, about 1 s alone, several under a loaded full run).
  it('keeps every reported order, once, across SIGKILLs at random moments', { timeout: 300_000 }, async () => {
    // Two files crashed in parallel (each strictly sequential) keep the test short.
    const counts = await Promise.all([
      crashRepeatedly(directory.path('crash-a.sqlite'), trials / 2),
      crashRepeatedly(directory.path('crash-b.sqlite'), trials / 2),
    ])
    for (const count of counts) expect(count).toBeGreaterThanOrEqual(trials / 2)
  })
})
