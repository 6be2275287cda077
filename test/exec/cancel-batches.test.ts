import { randomUUID } from 'node:crypto'
import { afterAll, describe, expect, it } from 'vitest'
import { createApiClient } from '../../src/api/client.js'
import { getDeltaOrder } from '../../src/api/delta/get-delta-order.js'
import { type CancelOutcome, cancelOrders, planCancelBatches } from '../../src/exec/executor/cancel-orders.js'
import type { ExecutorContext } from '../../src/exec/executor/executor-context.js'
import { reconcileOrders } from '../../src/journal/reconcile/reconcile-orders.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { sandboxExecutorContext } from '../helpers/executor.js'
import { placeOpenLimitOrders } from '../helpers/open-limit-orders.js'
import { sandboxToken, useSandbox } from '../helpers/sandbox.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

// The service takes at most 100 order ids per cancellation: 250 open orders are cancelled in three signed batches,
// each journaled, and each order reported on its own.

const directory = createTempDirectory('deltaflow-cancel-batches-')
const opened: ExecutorContext[] = []
afterAll(() => {
  for (const context of opened) context.journal.close()
  directory.cleanup()
})

describe('planCancelBatches', () => {
  it('splits ids into batches of at most 100, in order', () => {
    const ids = Array.from({ length: 250 }, (_, index) => index)
    const batches = planCancelBatches(ids)
    expect(batches.map((batch) => batch.length)).toEqual([100, 100, 50])
    expect(batches.flat()).toEqual(ids)
    expect(planCancelBatches([])).toEqual([])
    expect(planCancelBatches(ids.slice(0, 100))).toHaveLength(1)
  })

  it('refuses a batch size below 1', () => {
    expect(() => planCancelBatches([1], 0)).toThrow('a cancellation batch holds at least 1 order id, received 0')
  })
})

describe('cancelOrders with more than 100 open Delta orders', () => {
  const sandbox = useSandbox({ chainIds: [1] })

  async function contextFor(accountIndex: number): Promise<ExecutorContext> {
    const context = await sandboxExecutorContext(sandbox(), {
      accountIndex,
      journalFile: directory.path(`account-${accountIndex}.sqlite`),
      settings: { approvalPolicy: 'unlimited' },
    })
    opened.push(context)
    // The sandbox has no rate limit: reading 250 orders one by one need not wait for the client's.
    return { ...context, api: createApiClient({ baseUrl: sandbox().url, rateLimit: false, retry: { retries: 2 } }) }
  }

  const tokens = () => ({ usdc: sandboxToken(sandbox(), 1, 'USDC').address, weth: sandboxToken(sandbox(), 1, 'WETH').address })

  /** Reconciles until every order is final (at most `passes` passes); returns the journal's statuses. */
  async function reconcileUntilFinal(context: ExecutorContext, orderIds: readonly string[], passes = 40): Promise<string[]> {
    const statuses = () => orderIds.map((id) => context.journal.getOrder({ id })?.status ?? 'missing')
    for (let pass = 0; pass < passes && statuses().some((status) => status !== 'CANCELLED'); pass++) {
      await new Promise((resolve) => setTimeout(resolve, 250))
      await reconcileOrders({
        journal: context.journal,
        api: context.api,
        chains: context.chains,
        account: context.account.address,
        clock: context.clock,
      })
    }
    return statuses()
  }

  it('cancels 250 orders in three signed batches, journals each batch, and every order ends CANCELLED', async () => {
    const context = await contextFor(3)
    const placed = await placeOpenLimitOrders(context, sandbox().url, { count: 250, key: 'batches', tokens: tokens() })
    const orderIds = placed.map((order) => order.id)

    const outcomes = await cancelOrders(context, orderIds)
    expect(outcomes).toHaveLength(250)
    const notRequested = outcomes.filter((outcome) => outcome.outcome !== 'requested')
    expect(notRequested, JSON.stringify(notRequested.slice(0, 3))).toEqual([])
    expect(outcomes.map((outcome) => outcome.orderId)).toEqual(orderIds)
    const batchOf = (outcome: CancelOutcome) => `${outcome.batch?.index}/${outcome.batch?.of}:${outcome.batch?.hash}`
    const batches = new Map<string, number>()
    for (const outcome of outcomes) batches.set(batchOf(outcome), (batches.get(batchOf(outcome)) ?? 0) + 1)
    expect([...batches.values()]).toEqual([100, 100, 50])
    expect([...batches.keys()].map((key) => key.split(':')[0])).toEqual(['1/3', '2/3', '3/3'])
    expect(new Set([...batches.keys()].map((key) => key.split(':')[1])).size).toBe(3)

    // The journal holds each batch: every order's CANCELLING names the signed cancellation that carried it.
    for (const [index, id] of orderIds.entries()) {
      const outcome = outcomes[index] as CancelOutcome
      const cancelling = context.journal.orderHistory(id).find((change) => change.status === 'CANCELLING')
      expect(cancelling?.reason).toBe(`cancel requested: batch ${outcome.batch?.index}/3 on chain 1 (${outcome.batch?.hash})`)
    }

    const statuses = await reconcileUntilFinal(context, orderIds)
    expect(statuses.filter((status) => status !== 'CANCELLED')).toEqual([])
    expect(context.journal.openOrders()).toEqual([])
  })

  it('reports a batch the venue refuses per order, still sends the other batches, and keeps other accounts’ orders out', async () => {
    const context = await contextFor(4)
    const placed = await placeOpenLimitOrders(context, sandbox().url, { count: 101, key: 'refused', tokens: tokens() })
    const real = placed.map((order) => order.id)
    // An order the venue does not know (say, a journal restored against another venue): its batch is refused.
    const [template] = placed
    const unknownVenueId = randomUUID()
    context.journal.recordIntent({ id: 'lost-intent', strategy: 'ladder', kind: 'limit', intent: {} })
    context.journal.recordSignedOrder({
      id: 'lost-intent/0',
      intentId: 'lost-intent',
      mode: 'delta',
      account: context.account.address,
      chainId: 1,
      orderHash: `0x${'ab'.repeat(32)}`,
      srcToken: template?.srcToken as string,
      destToken: template?.destToken as string,
      srcAmount: 1n,
      destAmount: 1n,
      side: 'SELL',
      signedPayload: {},
    })
    context.journal.markSubmitted('lost-intent/0', { venueId: unknownVenueId })
    // An order of another account in the same journal: only its owner can cancel it, and it is kept out of the batches.
    const other = developmentAccounts[9]?.address as string
    context.journal.recordIntent({ id: 'foreign-intent', strategy: 'ladder', kind: 'limit', intent: {} })
    context.journal.recordSignedOrder({
      id: 'foreign-intent/0',
      intentId: 'foreign-intent',
      mode: 'delta',
      account: other,
      chainId: 1,
      orderHash: `0x${'cd'.repeat(32)}`,
      srcToken: template?.srcToken as string,
      destToken: template?.destToken as string,
      srcAmount: 1n,
      destAmount: 1n,
      side: 'SELL',
      signedPayload: {},
    })
    context.journal.markSubmitted('foreign-intent/0', { venueId: randomUUID() })

    const outcomes = await cancelOrders(context, ['foreign-intent/0', ...real, 'lost-intent/0'])
    expect(outcomes[0]).toMatchObject({ orderId: 'foreign-intent/0', outcome: 'not-cancellable' })
    expect(outcomes[0]?.detail).toBe(
      `signed by ${other.toLowerCase()}; only that account can cancel it, and this one is ${context.account.address.toLowerCase()}`,
    )
    const byOrder = new Map(outcomes.map((outcome) => [outcome.orderId, outcome]))
    // Batch 1: the first 100 orders, accepted.
    for (const id of real.slice(0, 100)) expect(byOrder.get(id)).toMatchObject({ outcome: 'requested', batch: { index: 1, of: 2 } })
    // Batch 2: the last order and the unknown one, refused with the venue's reason.
    for (const id of [real[100] as string, 'lost-intent/0']) {
      const outcome = byOrder.get(id)
      expect(outcome).toMatchObject({ outcome: 'failed', batch: { index: 2, of: 2 } })
      expect(outcome?.detail).toMatch(/^cancellation 2\/2 on chain 1: OrdersNotFoundError/)
    }
    const lastVenueId = placed[100]?.venueId as string
    expect(['PENDING', 'ACTIVE']).toContain((await getDeltaOrder(context.api, { orderId: lastVenueId })).status)
    expect(context.journal.orderHistory(real[100] as string).map((change) => change.status)).not.toContain('CANCELLING')

    // Asked again, the orders already accepted are not sent twice; the one left is cancelled.
    const again = await cancelOrders(context, [real[0] as string, real[100] as string])
    expect(again.map((outcome) => outcome.outcome)).toEqual(['requested', 'requested'])
    expect(again[0]?.detail).toBe('already CANCELLING: its cancellation was accepted before')
    expect(again[1]?.batch).toMatchObject({ index: 1, of: 1 })
  })
})
