import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { type OrderEvent, openJournal } from '../../src/journal/journal.js'
import { createOrderEventTracker } from '../../src/runtime/order-event-tracker.js'
import { systemClock } from '../../src/time/clock.js'
import { recordBenchOrder } from './journal.js'
import { type BenchResult, median, summarize } from './summary.js'

const strategies = ['dca', 'ladder', 'rebalance', 'otc']

/**
 * What a reconciliation tick reads to find the strategies' news (the order event tracker's collect, as the bot's
 * dispatch runs it at every tick that changed the journal), in a journal with a history: `settled` orders of four
 * strategies, each with two fills, final and told, and `open` open orders (20), one of which has a new fill and a new
 * status each tick. Reported per size of the history, and for 1,000 settled orders with 2,000 open ones. Baselines, on
 * the same journal: what the same reads cost before orders_untold and the chain reads by id (the scan of every order
 * for each strategy's news, and the order's fills read with a plain join, a scan of every fill); and the read of every
 * pending order of each strategy (open or not told), which a tick made before it looked only at the orders touched
 * since the last one.
 */
export async function benchOrderNews({
  sizes = [
    { settled: 1_000, open: 20 },
    { settled: 50_000, open: 20 },
    { settled: 1_000, open: 2_000 },
  ],
  ticks = 300,
}: {
  sizes?: { settled: number; open: number }[]
  ticks?: number
} = {}): Promise<BenchResult> {
  const directory = mkdtempSync(join(tmpdir(), 'deltaflow-bench-order-news-'))
  const notes: Record<string, string> = { target: 'a tick costs the same whatever the history and the open orders' }
  const headline = sizes.reduce((largest, size) => (size.settled > largest.settled ? size : largest))
  let samples: number[] = []
  try {
    for (const size of sizes) {
      const file = join(directory, `journal-${size.settled}-${size.open}.sqlite`)
      const journal = openJournal({ file, clock: systemClock })
      try {
        const ids = fillJournal(journal, size.settled, size.open)
        const tracker = createOrderEventTracker(journal, strategies)
        for (const event of tracker.collect()) event.acknowledge()
        const perTick: number[] = []
        for (let tick = 0; tick < ticks; tick++) {
          const orderId = ids[tick % ids.length] as string
          journal.appendOrderEvents([
            fillOf(orderId, tick),
            { type: 'status', orderId, status: Math.floor(tick / ids.length) % 2 === 0 ? 'ACTIVE' : 'PENDING' },
          ])
          const started = performance.now()
          const events = tracker.collect()
          perTick.push(performance.now() - started)
          if (events.length !== 2) throw new Error(`expected the fill and the status change, collected ${events.length} events`)
          for (const event of events) event.acknowledge()
        }
        const scan = timeScan(file, ticks, ids[0] as string)
        // Every pending order of each strategy: the tracker's first pass, and what each tick read before.
        const pending = medianPassMs(ticks, () => {
          for (const strategy of strategies) journal.pendingDeliveries(strategy)
        })
        const steady = perTick.slice(Math.floor(ticks / 10))
        notes[`${size.settled} settled orders, ${size.open} open`] =
          `collect ${median(steady).toFixed(3)} ms per tick; the pending orders of the ${strategies.length} strategies read ${pending.toFixed(3)} ms; ` +
          `before: the news scan ${scan.news.toFixed(3)} ms, an order's fills ${scan.fills.toFixed(3)} ms`
        if (size === headline) samples = steady
      } finally {
        journal.close()
      }
    }
    return summarize(
      `order news: a reconciliation tick's read of the strategies' news, ${headline.settled} settled orders, ${headline.open} open`,
      'ms',
      samples,
      notes,
    )
  } finally {
    rmSync(directory, { recursive: true, force: true })
  }
}

/** `settled` orders, final and told, then `openCount` open ones (returned), spread over the strategies. */
function fillJournal(journal: ReturnType<typeof openJournal>, settled: number, openCount: number): string[] {
  const open: string[] = []
  for (let index = 0; index < settled + openCount; index++) {
    const id = recordBenchOrder(journal, index, strategies[index % strategies.length])
    if (index < settled) {
      journal.appendOrderEvents([fillOf(id, 2 * index), fillOf(id, 2 * index + 1), { type: 'status', orderId: id, status: 'COMPLETED' }])
      journal.markDelivered({ orderId: id, status: 'COMPLETED' })
    } else open.push(id)
  }
  return open
}

/** A venue fill of `orderId`, transaction `n`. */
function fillOf(orderId: string, n: number): OrderEvent {
  const txHash = `0x${createHash('sha256').update(`${orderId}:${n}`).digest('hex')}`
  return { type: 'fill', orderId, chainId: 1, txHash, spentAmount: 10n ** 15n, receivedAmount: 10n ** 15n, source: 'venue' }
}

/** The median time in ms of `runs` calls of `pass`, the first tenth left out (warm-up). */
function medianPassMs(runs: number, pass: () => void): number {
  const passes: number[] = []
  for (let run = 0; run < runs; run++) {
    const started = performance.now()
    pass()
    passes.push(performance.now() - started)
  }
  return median(passes.slice(Math.floor(runs / 10)))
}

/**
 * The medians of `runs` passes of what a tick read before: the query of every strategy's news (every order of the
 * strategy scanned) and the fills of `orderId` with the chain joined plainly (every fill scanned).
 */
function timeScan(file: string, runs: number, orderId: string): { news: number; fills: number } {
  const db = new BetterSqlite3(file, { readonly: true })
  try {
    const news = db.prepare(
      `SELECT orders.id AS orderId, d.status AS status, d.last_fill_id AS lastFillId, d.refunds AS refunds,
         orders.status AS orderStatus, orders.fills_head AS fillsHead, orders.venue_id AS orderVenueId, orders.updated_at AS orderUpdatedAt,
         (SELECT count(*) FROM refunds WHERE refunds.order_id = orders.id) AS refundCount
       FROM orders LEFT JOIN order_deliveries AS d ON d.order_id = orders.id
       WHERE orders.strategy = ? AND (d.order_id IS NULL OR orders.open = 1 OR d.status IS NOT orders.status)
       ORDER BY orders.created_at, orders.id`,
    )
    const fills = db.prepare(
      `WITH RECURSIVE chain (id) AS (
        SELECT fills_head FROM orders WHERE id = ? AND fills_head > ?
        UNION ALL
        SELECT previous_id FROM fills JOIN chain USING (id) WHERE previous_id < id AND previous_id > ?
      )
      SELECT fills.* FROM chain JOIN fills USING (id) ORDER BY id`,
    )
    return {
      news: medianPassMs(runs, () => {
        for (const strategy of strategies) news.all(strategy)
      }),
      fills: medianPassMs(runs, () => fills.all(orderId, 0, 0)),
    }
  } finally {
    db.close()
  }
}
