import BetterSqlite3 from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { openJournal } from '../../src/journal/journal.js'
import { journalMigrations } from '../../src/journal/migrations.js'
import type { RecordStatusParameters } from '../../src/journal/order-events.js'
import { createOrderEventTracker } from '../../src/runtime/order-event-tracker.js'
import { recordSampleOrder } from '../journal/journal-fixtures.js'
import { txHash, useJournal } from '../journal/use-journal.js'

const describeEvent = (event: { type: string; event: { order: { id: string; status: string } } }) =>
  `${event.type}:${event.event.order.id}:${event.event.order.status}`

describe('createOrderEventTracker', () => {
  const context = useJournal()

  function fillOrder(orderId: string, n: number): void {
    context.journal.recordFill({ orderId, chainId: 1, txHash: txHash(n), spentAmount: 10n, receivedAmount: 4n, source: 'venue' })
  }

  function refundOrder(orderId: string, n: number): void {
    context.journal.recordRefund({
      orderId,
      txHash: txHash(n),
      chainId: 1,
      token: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
      amount: 5n,
    })
  }

  /**
   * Reopens the journal file as the version before the migration whose text holds `marker` left it: `undo` (SQL) takes
   * back what that migration and the later ones made, and the journal migrates it again on opening.
   */
  function reopenFromBefore(marker: string, undo: string): void {
    context.journal.close()
    const db = new BetterSqlite3(context.file)
    db.exec(undo)
    const migration = journalMigrations.findIndex((candidate) => String(candidate).includes(marker))
    expect(migration).toBeGreaterThan(0)
    db.pragma(`user_version = ${migration}`)
    db.close()
    context.journal = openJournal({ file: context.file, clock: context.clock })
  }

  it('delivers each status change, fill and refund of a strategy once, in journal order', () => {
    const { journal } = context
    recordSampleOrder(journal, 'a')
    const tracker = createOrderEventTracker(journal, ['sample'])
    expect(tracker.collect().map(describeEvent)).toEqual(['orderUpdate:a:SIGNED'])
    expect(tracker.collect()).toEqual([])
    journal.recordStatus({ orderId: 'a', status: 'ACTIVE' })
    fillOrder('a', 1)
    journal.recordStatus({ orderId: 'a', status: 'COMPLETED' })
    refundOrder('a', 9)
    expect(tracker.collect().map((event) => event.type)).toEqual(['fill', 'refund', 'orderUpdate'])
    expect(tracker.collect()).toEqual([])
  })

  it('delivers after a restart what the previous run collected but never acknowledged, and nothing acknowledged', () => {
    const { journal } = context
    recordSampleOrder(journal, 'a')
    recordSampleOrder(journal, 'b')
    fillOrder('a', 1)
    fillOrder('a', 2)
    const first = createOrderEventTracker(journal, ['sample'])
    const events = first.collect()
    expect(events.map((event) => `${event.type}:${event.event.order.id}`)).toEqual(['fill:a', 'fill:a', 'orderUpdate:a', 'orderUpdate:b'])
    // The run handles the first fill of a and its update, then dies.
    events[0]?.acknowledge()
    events[2]?.acknowledge()
    journal.close()

    context.journal = openJournal({ file: context.file, clock: context.clock })
    const second = createOrderEventTracker(context.journal, ['sample'])
    const again = second.collect()
    expect(again.map((event) => `${event.type}:${event.event.order.id}`)).toEqual(['fill:a', 'orderUpdate:b'])
    expect(again[0]?.type === 'fill' && again[0].event.fill.txHash).toBe(txHash(2))
    for (const event of again) event.acknowledge()
    expect(createOrderEventTracker(context.journal, ['sample']).collect()).toEqual([])
  })

  it('gives every event the order as it stands, at the same clock time too, frozen', () => {
    const { journal } = context
    recordSampleOrder(journal, 'a')
    const tracker = createOrderEventTracker(journal, ['sample'])
    const events = () =>
      tracker.collect().map((collected) => {
        collected.acknowledge()
        return collected
      })
    expect(events().map(describeEvent)).toEqual(['orderUpdate:a:SIGNED'])
    fillOrder('a', 1)
    const [first] = events()
    expect(first && describeEvent(first)).toBe('fill:a:SIGNED')
    // Submitted and filled again at the same clock time: the next fill's order carries the venue id.
    journal.markSubmitted('a', { venueId: 'venue-a' })
    fillOrder('a', 2)
    const [second] = events()
    expect(second?.event.order).toMatchObject({ id: 'a', status: 'SIGNED', venueId: 'venue-a' })
    // A status change and a fill at one time: both events show the new status.
    journal.recordStatus({ orderId: 'a', status: 'ACTIVE' })
    fillOrder('a', 3)
    expect(events().map(describeEvent)).toEqual(['fill:a:ACTIVE', 'orderUpdate:a:ACTIVE'])
    fillOrder('a', 4)
    const [fourth] = events()
    expect(fourth?.event.order.status).toBe('ACTIVE')
    expect(Object.isFrozen(fourth?.event) && Object.isFrozen(fourth?.event.order)).toBe(true)
    expect(fourth?.type === 'fill' && Object.isFrozen(fourth.event.fill)).toBe(true)
  })

  /** Collects and acknowledges everything: what the strategies were told, as `type:order:status`. */
  const deliverAll = (tracker: ReturnType<typeof createOrderEventTracker>) =>
    tracker.collect().map((collected) => {
      collected.acknowledge()
      return describeEvent(collected)
    })

  /** Order `a` settled with `status` and told so: the tracker that told it. */
  function toldSettled(status: RecordStatusParameters['status']): ReturnType<typeof createOrderEventTracker> {
    recordSampleOrder(context.journal, 'a')
    const tracker = createOrderEventTracker(context.journal, ['sample'])
    context.journal.recordStatus({ orderId: 'a', status })
    expect(deliverAll(tracker)).toEqual([`orderUpdate:a:${status}`])
    expect(tracker.collect()).toEqual([])
    return tracker
  }

  it('hears again from a settled order whose status changes after it was told', () => {
    const { journal } = context
    const tracker = toldSettled('EXPIRED')
    // The venue's later word on the same order (a reconciliation that finds it cancelled).
    journal.recordStatus({ orderId: 'a', status: 'CANCELLED' })
    expect(deliverAll(tracker)).toEqual(['orderUpdate:a:CANCELLED'])
    expect(createOrderEventTracker(journal, ['sample']).collect()).toEqual([])
  })

  it('hears a fill and a refund journaled after its order was told final, once, and after a restart until acknowledged', () => {
    const { journal } = context
    const tracker = toldSettled('EXPIRED')
    // A chain log the reconciler finds after the venue's final word, and a refund recorded after it.
    journal.recordFill({ orderId: 'a', chainId: 1, txHash: txHash(3), logIndex: 0, spentAmount: 10n, receivedAmount: 4n, source: 'chain' })
    refundOrder('a', 4)
    const late = tracker.collect()
    expect(late.map(describeEvent)).toEqual(['fill:a:EXPIRED', 'refund:a:EXPIRED'])
    expect(tracker.collect()).toEqual([])
    // Not acknowledged yet: a restart hears both again; the fill acknowledged, only the refund.
    expect(createOrderEventTracker(journal, ['sample']).collect().map(describeEvent)).toEqual(['fill:a:EXPIRED', 'refund:a:EXPIRED'])
    late[0]?.acknowledge()
    expect(createOrderEventTracker(journal, ['sample']).collect().map(describeEvent)).toEqual(['refund:a:EXPIRED'])
    late[1]?.acknowledge()
    expect(createOrderEventTracker(journal, ['sample']).collect()).toEqual([])
    // Told all of it, the order is no longer among those a tick reads.
    expect(journal.pendingDeliveries('sample')).toEqual([])
  })

  it("hears a fill journaled between the collection of its order's final status and its acknowledgement", () => {
    const { journal } = context
    recordSampleOrder(journal, 'a')
    const tracker = createOrderEventTracker(journal, ['sample'])
    journal.recordStatus({ orderId: 'a', status: 'COMPLETED' })
    const collected = tracker.collect()
    expect(collected.map(describeEvent)).toEqual(['orderUpdate:a:COMPLETED'])
    fillOrder('a', 7)
    for (const event of collected) event.acknowledge()
    expect(deliverAll(tracker)).toEqual(['fill:a:COMPLETED'])
    expect(tracker.collect()).toEqual([])
    expect(createOrderEventTracker(journal, ['sample']).collect()).toEqual([])
  })

  it('tells a settled order once its status is acknowledged, not when another status of it is', () => {
    const { journal } = context
    recordSampleOrder(journal, 'a')
    const tracker = createOrderEventTracker(journal, ['sample'])
    const [signed] = tracker.collect()
    // The order settles between the collection and the acknowledgement of its earlier status.
    journal.recordStatus({ orderId: 'a', status: 'COMPLETED' })
    signed?.acknowledge()
    expect(deliverAll(createOrderEventTracker(journal, ['sample']))).toEqual(['orderUpdate:a:COMPLETED'])
    expect(createOrderEventTracker(journal, ['sample']).collect()).toEqual([])
  })

  it('after the upgrade to the untold index, hears what settled orders of an older journal had not told', () => {
    const { journal } = context
    for (const id of ['told', 'untold', 'never', 'open']) recordSampleOrder(journal, id)
    for (const id of ['told', 'untold', 'never']) journal.recordStatus({ orderId: id, status: 'COMPLETED' })
    journal.markDelivered({ orderId: 'told', status: 'COMPLETED' })
    journal.markDelivered({ orderId: 'untold', status: 'SIGNED' })
    journal.markDelivered({ orderId: 'open', status: 'SIGNED' })
    // The journal as the version before the index kept it (and before the index of transactions waiting for a receipt
    // and the rebuilt console_events, whose migration makes the table again from what it holds).
    reopenFromBefore('ADD COLUMN untold', 'DROP INDEX transactions_sent; DROP INDEX orders_untold; ALTER TABLE orders DROP COLUMN untold')
    // Recorded at one time: in id order. The told ones, settled or open, have nothing new.
    expect(deliverAll(createOrderEventTracker(context.journal, ['sample']))).toEqual([
      'orderUpdate:never:COMPLETED',
      'orderUpdate:untold:COMPLETED',
    ])
  })

  it('after the upgrade to untold orders on a later fill or refund, hears what an older journal kept from its strategy', () => {
    const { journal } = context
    for (const id of ['late-fill', 'late-refund', 'told']) {
      recordSampleOrder(journal, id)
      journal.recordStatus({ orderId: id, status: 'COMPLETED' })
    }
    expect(deliverAll(createOrderEventTracker(journal, ['sample']))).toEqual([
      'orderUpdate:late-fill:COMPLETED',
      'orderUpdate:late-refund:COMPLETED',
      'orderUpdate:told:COMPLETED',
    ])
    fillOrder('late-fill', 5)
    refundOrder('late-refund', 6)
    // The journal as the version before left it: the orders of the late fill and refund still told.
    reopenFromBefore('d.last_fill_id < coalesce(orders.fills_head, 0)', 'UPDATE orders SET untold = 0 WHERE open = 0')
    expect(deliverAll(createOrderEventTracker(context.journal, ['sample']))).toEqual([
      'fill:late-fill:COMPLETED',
      'refund:late-refund:COMPLETED',
    ])
    expect(createOrderEventTracker(context.journal, ['sample']).collect()).toEqual([])
  })

  it('after its first pass looks only at the orders touched since, whichever connection journaled them', () => {
    const { journal } = context
    recordSampleOrder(journal, 'a')
    recordSampleOrder(journal, 'b')
    journal.recordIntent({ id: 'intent-dca', strategy: 'dca', kind: 'swap', intent: { amount: 1000n } })
    recordSampleOrder(journal, 'c', { intentId: 'intent-dca' })
    const reads: string[] = []
    const watched = new Set(['pendingDeliveries', 'deliveriesTouched', 'getOrder', 'fillsOf', 'latestStatusChange'])
    const spied = new Proxy(journal, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver)
        if (typeof value !== 'function' || !watched.has(String(key))) return value
        return (...args: unknown[]) => {
          reads.push(`${String(key)}(${args.map((arg) => JSON.stringify(arg)).join(', ')})`)
          return value.apply(target, args)
        }
      },
    })
    const tracker = createOrderEventTracker(spied, ['sample', 'dca'])
    expect(deliverAll(tracker)).toEqual(['orderUpdate:a:SIGNED', 'orderUpdate:b:SIGNED', 'orderUpdate:c:SIGNED'])
    expect(reads.filter((read) => read.startsWith('pendingDeliveries'))).toEqual([
      'pendingDeliveries("sample")',
      'pendingDeliveries("dca")',
    ])
    // Nothing journaled since: no order is read.
    reads.length = 0
    expect(tracker.collect()).toEqual([])
    expect(reads).toEqual([])
    // Another writer (a `deltaflow cancel`, a reconcile of another process) fills b and moves c; a is not read.
    const other = openJournal({ file: context.file, clock: context.clock })
    try {
      other.recordFill({ orderId: 'b', chainId: 1, txHash: txHash(1), spentAmount: 10n, receivedAmount: 4n, source: 'venue' })
      other.recordStatus({ orderId: 'c', status: 'CANCELLED', reason: 'cancelled by the operator' })
    } finally {
      other.close()
    }
    const events = tracker.collect()
    expect(events.map(describeEvent)).toEqual(['fill:b:SIGNED', 'orderUpdate:c:CANCELLED'])
    expect(events[1]?.type === 'orderUpdate' && events[1].event.reason).toBe('cancelled by the operator')
    expect(reads.filter((read) => /"a"/.test(read))).toEqual([])
    expect(reads.filter((read) => read.startsWith('deliveriesTouched'))).toHaveLength(1)
    for (const event of events) event.acknowledge()
    // c is final and told: neither this tracker nor a new one hears of it again.
    journal.recordFill({ orderId: 'a', chainId: 1, txHash: txHash(2), spentAmount: 10n, receivedAmount: 4n, source: 'venue' })
    expect(deliverAll(tracker)).toEqual(['fill:a:SIGNED'])
    expect(createOrderEventTracker(journal, ['sample', 'dca']).collect()).toEqual([])
  })

  it('skips orders of other strategies', () => {
    const { journal } = context
    recordSampleOrder(journal, 'a')
    expect(createOrderEventTracker(journal, ['dca']).collect()).toEqual([])
  })
})
