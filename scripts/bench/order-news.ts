import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { openJournal } from '../../src/journal/journal.js'
import { createOrderEventTracker } from '../../src/runtime/order-event-tracker.js'
import { systemClock } from '../../src/time/clock.js'
import { type BenchResult, median, summarize } from './summary.js'

const strategies = ['dca', 'ladder', 'rebalance', 'otc']

/**
 * What a reconciliation tick reads to find the strategies' news (the order event tracker's collect, as the bot's
 * dispatch runs it at every tick that changed the journal), in a journal with a history: `settled` orders of four
 * strategies, each final and told, and 20 open orders, one of which has a new status each tick. Reported per size of
 * the history; the baseline, on the same journal, is the query that read the strategy's news before orders_untold
 * (a scan of every order).
 */
export async function benchOrderNews({
  sizes = [1_000, 50_000],
  ticks = 300,
}: {
  sizes?: number[]
  ticks?: number
} = {}): Promise<BenchResult> {
  const directory = mkdtempSync(join(tmpdir(), 'deltaflow-bench-order-news-'))
  const notes: Record<string, string> = { target: 'a tick costs the same whatever the history' }
  let samples: number[] = []
  try {
    for (const size of sizes) {
      const file = join(directory, `journal-${size}.sqlite`)
      const journal = openJournal({ file, clock: systemClock })
      try {
        const ids = fillJournal(journal, size)
        const tracker = createOrderEventTracker(journal, strategies)
        for (const event of tracker.collect()) event.acknowledge()
        const perTick: number[] = []
        for (let tick = 0; tick < ticks; tick++) {
          const orderId = ids[tick % ids.length] as string
          journal.recordStatus({ orderId, status: Math.floor(tick / ids.length) % 2 === 0 ? 'ACTIVE' : 'PENDING' })
          const started = performance.now()
          const events = tracker.collect()
          perTick.push(performance.now() - started)
          if (events.length !== 1) throw new Error(`expected the one status change, collected ${events.length} events`)
          for (const event of events) event.acknowledge()
        }
        const scan = timeScan(file, ticks)
        const steady = perTick.slice(Math.floor(ticks / 10))
        notes[`${size} settled orders`] =
          `collect ${median(steady).toFixed(3)} ms per tick; the scan before, ${scan.toFixed(3)} ms for the ${strategies.length} strategies`
        if (size === sizes.at(-1)) samples = steady
      } finally {
        journal.close()
      }
    }
    return summarize(
      `order news: a reconciliation tick's read of the strategies' news, ${sizes.at(-1)} settled orders`,
      'ms',
      samples,
      notes,
    )
  } finally {
    rmSync(directory, { recursive: true, force: true })
  }
}

/** `settled` orders, final and told, then 20 open ones (returned), spread over the strategies. */
function fillJournal(journal: ReturnType<typeof openJournal>, settled: number): string[] {
  const open: string[] = []
  for (let index = 0; index < settled + 20; index++) {
    const id = `order-${index}`
    const strategy = strategies[index % strategies.length] as string
    journal.recordIntent({ id: `intent-${index}`, strategy, kind: 'swap', intent: {} })
    journal.recordSignedOrder({
      id,
      intentId: `intent-${index}`,
      mode: 'delta',
      account: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
      chainId: 1,
      orderHash: `0x${(index + 1).toString(16).padStart(64, '0')}`,
      srcToken: '0x0000000000000000000000000000000000000001',
      destToken: '0x0000000000000000000000000000000000000002',
      srcAmount: 10n ** 18n,
      destAmount: 10n ** 18n,
      side: 'SELL',
      signedPayload: {},
    })
    if (index < settled) {
      journal.recordStatus({ orderId: id, status: 'COMPLETED' })
      journal.markDelivered({ orderId: id, status: 'COMPLETED' })
    } else open.push(id)
  }
  return open
}

/** The median of `runs` passes of the earlier query (every order of the strategy scanned) over all strategies. */
function timeScan(file: string, runs: number): number {
  const db = new BetterSqlite3(file, { readonly: true })
  try {
    const scan = db.prepare(
      `SELECT orders.id AS orderId, d.status AS status, d.last_fill_id AS lastFillId, d.refunds AS refunds,
         orders.status AS orderStatus, orders.fills_head AS fillsHead, orders.venue_id AS orderVenueId, orders.updated_at AS orderUpdatedAt,
         (SELECT count(*) FROM refunds WHERE refunds.order_id = orders.id) AS refundCount
       FROM orders LEFT JOIN order_deliveries AS d ON d.order_id = orders.id
       WHERE orders.strategy = ? AND (d.order_id IS NULL OR orders.open = 1 OR d.status IS NOT orders.status)
       ORDER BY orders.created_at, orders.id`,
    )
    const passes: number[] = []
    for (let run = 0; run < runs; run++) {
      const started = performance.now()
      for (const strategy of strategies) scan.all(strategy)
      passes.push(performance.now() - started)
    }
    return median(passes.slice(Math.floor(runs / 10)))
  } finally {
    db.close()
  }
}
