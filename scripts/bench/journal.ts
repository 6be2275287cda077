import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { type OrderEvent, openJournal } from '../../src/journal/journal.js'
import { ManualClock } from '../../src/time/clock.js'
import { type BenchResult, median, summarize } from './summary.js'

export type BenchJournalAppendParameters = {
  runs?: number
  /** Events appended (and timed) per run, half status changes and half fills. */
  eventsPerRun?: number
  /** Events per `appendOrderEvents` call, i.e. per transaction. */
  batchSize?: number
  /** Open orders the events are spread over. */
  orderCount?: number
}

/**
 * Order events appended per second through `appendOrderEvents`, to a journal file on disk in WAL mode (synchronous
 * NORMAL, checkpoints included as they fall). Each run starts from a fresh journal holding `orderCount` signed orders,
 * so runs are comparable and the figure is the rate of a journal of up to `eventsPerRun / 2` fills; after each run
 * the journal is read back to prove every event was written.
 */
export async function benchJournalAppend({
  runs = 7,
  eventsPerRun = 100_000,
  batchSize = 1_000,
  orderCount = 100,
}: BenchJournalAppendParameters = {}): Promise<BenchResult> {
  const directory = mkdtempSync(join(tmpdir(), 'deltaflow-bench-journal-'))
  try {
    const samples: number[] = []
    const withoutConsoleSamples: number[] = []
    // Each run times the journal as it is, then the same events into a journal without the console's event triggers
    // (the baseline: what the operator console's one sequence of events costs the writes), on the same machine state.
    for (let run = 0; run < runs; run++) {
      for (const withConsole of [true, false]) {
        const file = join(directory, `bench-${run}-${withConsole ? 'console' : 'bare'}.sqlite`)
        const journal = openJournal({ file, clock: new ManualClock(1_700_000_000_000) })
        try {
          for (let order = 0; order < orderCount; order++) recordBenchOrder(journal, order)
          if (!withConsole) dropConsoleEventTriggers(file)
          const batches = planBatches(eventsPerRun, batchSize, orderCount)
          const started = performance.now()
          let changed = 0
          for (const batch of batches) changed += journal.appendOrderEvents(batch)
          ;(withConsole ? samples : withoutConsoleSamples).push(eventsPerRun / ((performance.now() - started) / 1000))
          checkWritten(journal, changed, eventsPerRun, orderCount)
        } finally {
          journal.close()
        }
      }
    }
    const bare = median(withoutConsoleSamples)
    return summarize('journal order events appended', 'events/s', samples, {
      target: '>= 100000 events/s',
      batch: `${batchSize} events`,
      orders: String(orderCount),
      'without the console event triggers (same runs)': `median ${Math.round(bare)} events/s; the journal as it is runs at ${(median(samples) / bare).toFixed(2)} of it`,
    })
  } finally {
    rmSync(directory, { recursive: true, force: true })
  }
}

/** The triggers that append order status changes and fills to console_events, dropped through a connection of its own. */
function dropConsoleEventTriggers(file: string): void {
  const db = new Database(file)
  try {
    for (const trigger of ['console_events_of_status', 'console_events_of_fill']) db.exec(`DROP TRIGGER ${trigger}`)
  } finally {
    db.close()
  }
}

/** Every event changed something, and an order's fills and history hold what the batches gave it. */
function checkWritten(journal: ReturnType<typeof openJournal>, changed: number, events: number, orderCount: number): void {
  const perOrder = Math.ceil(events / 2 / orderCount)
  const fills = journal.fillsOf('bench-0').length
  const history = journal.orderHistory('bench-0').length
  if (changed !== events || fills !== perOrder || history !== perOrder + 1) {
    throw new Error(
      `bench journal holds ${changed} changes, ${fills} fills and ${history} statuses of bench-0; expected ${events}, ${perOrder}, ${perOrder + 1}`,
    )
  }
}

/** One signed Delta order `bench-<n>` of `strategy`, with its intent (also the cli-start and order-news benches' journals). */
export function recordBenchOrder(journal: ReturnType<typeof openJournal>, order: number, strategy = 'bench'): string {
  const id = `bench-${order}`
  journal.recordIntent({ id: `intent-${id}`, strategy, kind: 'swap', intent: {} })
  journal.recordSignedOrder({
    id,
    intentId: `intent-${id}`,
    mode: 'delta',
    account: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
    chainId: 1,
    srcToken: '0x0000000000000000000000000000000000000001',
    destToken: '0x0000000000000000000000000000000000000002',
    srcAmount: 10n ** 24n,
    destAmount: 10n ** 24n,
    side: 'SELL',
    signedPayload: {},
  })
  return id
}

/** Every status event changes its order's status (PENDING and ACTIVE alternate) so each one writes. */
function planBatches(events: number, batchSize: number, orderCount: number): OrderEvent[][] {
  const batches: OrderEvent[][] = []
  for (let start = 0; start < events; start += batchSize) {
    const batch: OrderEvent[] = []
    for (let index = start; index < Math.min(events, start + batchSize); index += 2) {
      const pair = index / 2
      const orderId = `bench-${pair % orderCount}`
      batch.push({ type: 'status', orderId, status: Math.floor(pair / orderCount) % 2 === 0 ? 'PENDING' : 'ACTIVE' })
      batch.push({
        type: 'fill',
        orderId,
        chainId: 1,
        // Random-looking hashes, as real ones are: inserts land all over the unique index.
        txHash: `0x${createHash('sha256').update(String(pair)).digest('hex')}`,
        logIndex: 0,
        spentAmount: 10n ** 18n + BigInt(pair),
        receivedAmount: 10n ** 18n,
        source: 'chain',
      })
    }
    batches.push(batch)
  }
  return batches
}
