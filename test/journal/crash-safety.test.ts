import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openJournal } from '../../src/journal/journal.js'
import { ManualClock } from '../../src/time/clock.js'
import { bundleWorker } from '../helpers/bundle-worker.js'
import { createJournalDirectory } from './journal-fixtures.js'

const trials = 20
/** The writer bundled once: each trial's process starts on plain node, without tsx transforming the sources. */
let writerScript: string
/** Writers not yet ended: killed when the file ends, so that a failed or timed-out test leaves none writing. */
const running = new Set<ChildProcess>()

/** Starts the writer; resolves with the ids it reported committed once it has been SIGKILLed after `killAfterIds` ids. */
function runWriterUntilKilled(file: string, prefix: string, killAfterIds: number): Promise<string[]> {
  const child: ChildProcess = spawn(process.execPath, [writerScript, file, prefix], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  running.add(child)
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
      running.delete(child)
      if (signal !== 'SIGKILL') reject(new Error(`writer exited without being killed: ${errors}`))
      else resolve(output.split('\n').filter((line) => line.length > 0))
    })
  })
}

describe('journal crash safety', () => {
  const directory = createJournalDirectory()
  beforeAll(async () => {
    writerScript = await bundleWorker({
      entry: fileURLToPath(new URL('./crash-writer.ts', import.meta.url)),
      outfile: directory.path('crash-writer.mjs'),
    })
  })
  afterAll(() => {
    for (const child of running) child.kill('SIGKILL')
    directory.cleanup()
  })

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

  // Every trial starts a fresh writer process (node on the bundled writer).
  it('keeps every reported order, once, across SIGKILLs at random moments', { timeout: 300_000 }, async () => {
    // Two files crashed in parallel (each strictly sequential) keep the test short.
    const counts = await Promise.all([
      crashRepeatedly(directory.path('crash-a.sqlite'), trials / 2),
      crashRepeatedly(directory.path('crash-b.sqlite'), trials / 2),
    ])
    for (const count of counts) expect(count).toBeGreaterThanOrEqual(trials / 2)
  })
})
