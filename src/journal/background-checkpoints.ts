import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import type { Database } from 'better-sqlite3'

/** WAL pages after which a commit checkpoints itself (SQLite's auto-checkpoint): the journal's own setting. */
export const inlineCheckpointPages = 10_000

/**
 * With a checkpointing thread running, the committing connection still checkpoints once the WAL holds this many pages
 * (400 MB): a backstop that a healthy thread, which keeps the WAL to a fraction of a second of commits, never reaches.
 */
const backstopCheckpointPages = 100_000

export type BackgroundCheckpoints = {
  /** Stops the thread; the next commits checkpoint themselves again. */
  stop: () => void
}

/**
 * Moves SQLite's checkpoints (copying committed WAL pages into the database file) off the connection that commits:
 * a thread of its own, with its own connection to `file`, runs a PASSIVE checkpoint every `intervalMs`. A PASSIVE
 * checkpoint never waits for the writer nor makes it wait; commits only append to the WAL. Inline, the commit that
 * crosses `inlineCheckpointPages` copies them all (about 40 MB, tens of milliseconds), and that commit is one step of
 * an order being signed and journaled.
 *
 * Should the thread fail to start or stop on its own, the connection checkpoints inline again, as before. Nothing it
 * does can lose a commit: a checkpoint copies pages that are already durable in the WAL, and one cut short by the
 * process ending is finished by whichever connection opens the file next.
 */
export function startBackgroundCheckpoints({
  db,
  file,
  intervalMs = 500,
}: {
  db: Database
  file: string
  intervalMs?: number
}): BackgroundCheckpoints {
  let stopped = false
  const inline = () => {
    if (db.open) db.pragma(`wal_autocheckpoint = ${inlineCheckpointPages}`)
  }
  db.pragma(`wal_autocheckpoint = ${backstopCheckpointPages}`)
  const worker = new Worker(checkpointThread, {
    eval: true,
    workerData: { sqlite: createRequire(import.meta.url).resolve('better-sqlite3'), file, intervalMs },
    // Its heap is a connection and a timer.
    resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 },
  })
  // A checkpoint that cannot run (the file gone, a broken install) leaves the WAL to the connection.
  worker.on('error', () => inline())
  worker.on('exit', () => {
    if (!stopped) inline()
  })
  worker.unref()
  return {
    stop: () => {
      if (stopped) return
      stopped = true
      worker.postMessage('stop')
      inline()
    },
  }
}

// A script (not a module file), so that it runs the same from the sources and from dist/: it needs nothing but
// better-sqlite3, resolved by the caller.
const checkpointThread = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.sqlite)
const db = new Database(workerData.file, { fileMustExist: true })
db.pragma('busy_timeout = 1000')
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)')
const timer = setInterval(() => checkpoint.get(), workerData.intervalMs)
parentPort.on('message', () => {
  clearInterval(timer)
  db.close()
  parentPort.close()
})
`
