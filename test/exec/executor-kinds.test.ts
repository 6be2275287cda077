import { type Address, type Hex, parseEther, parseUnits } from 'viem'
import { afterAll, describe, expect, it } from 'vitest'
import { getDeltaOrder } from '../../src/api/delta/get-delta-order.js'
import { getDeltaOrders } from '../../src/api/delta/get-delta-orders.js'
import { getOtcOrder } from '../../src/api/otc/get-otc-order.js'
import type { OtcOrder } from '../../src/api/otc/otc-order-schema.js'
import { createIntent } from '../../src/domain/intents/create-intent.js'
import type { Intent } from '../../src/domain/intents/intent-schema.js'
import { createExecutor, type ExecutionOutcome } from '../../src/exec/executor/executor.js'
import type { ExecutorContext } from '../../src/exec/executor/executor-context.js'
import { otcCounterpartyAddresses } from '../../src/sandbox/otc/otc-counterparty-accounts.js'
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js'
import { systemClock } from '../../src/time/clock.js'
import { sandboxExecutorContext } from '../helpers/executor.js'
import { sandboxToken } from '../helpers/otc.js'
import { useSandbox } from '../helpers/sandbox.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

// Every intent kind through the real executor: the order the venue holds, what the journal keeps, and that neither a
// repeat nor a restart over the same journal file creates anything new.

const directory = createTempDirectory('deltaflow-exec-')
afterAll(() => directory.cleanup())

const sandbox = useSandbox({ chainIds: [1, 8453] })
const opened: ExecutorContext[] = []
afterAll(() => {
  for (const context of opened) context.journal.close()
})

async function executorFor(accountIndex: number, journalName: string) {
  const context = await sandboxExecutorContext(sandbox(), { accountIndex, journalFile: directory.path(journalName) })
  opened.push(context)
  const executor = createExecutor(context)
  await executor.recover()
  return { context, executor }
}

function intentOf(key: string, content: Record<string, unknown>): Intent {
  return createIntent({ clock: systemClock, key, content: { strategy: 'kinds', ...content } })
}

const token = (symbol: string, chainId = 1): Address => sandboxToken(sandbox(), chainId, symbol)

/** How many requests matched a route since the rule was added: a rule without a status only counts. */
function countRequests(running: RunningSandbox, route: string): () => number {
  const id = running.faults.add({ route })
  return () => running.faults.list().find((rule) => rule.id === id)?.used ?? 0
}

async function venueOrderCount(context: ExecutorContext): Promise<number> {
  return (await getDeltaOrders(context.api, { userAddress: context.account.address, limit: 1000 })).total
}

async function venueDeltaOrder(context: ExecutorContext, outcome: ExecutionOutcome) {
  const venueId = outcome.order?.venueId
  if (!venueId) throw new Error(`intent ${outcome.intent.id} has no order at the venue (${outcome.status}: ${outcome.reason})`)
  return getDeltaOrder(context.api, { orderId: venueId })
}

/** The Delta struct the journaled order was signed as (decimal strings). */
function signedStruct(outcome: ExecutionOutcome): Record<string, string> {
  const payload = outcome.order?.signedPayload as { order?: Record<string, string> } | undefined
  if (!payload?.order) throw new Error(`intent ${outcome.intent.id} has no signed Delta order (${outcome.status}: ${outcome.reason})`)
  return payload.order
}

/** Repeats the intent on the same executor and on a restarted one over the same journal file. */
async function expectRepeatsCreateNothing(
  accountIndex: number,
  journalName: string,
  first: { context: ExecutorContext; executor: ReturnType<typeof createExecutor> },
  intent: Intent,
  outcome: ExecutionOutcome,
  venueCount: () => Promise<number>,
) {
  const ordersBefore = first.context.journal.listOrders()
  const venueBefore = await venueCount()
  const again = await first.executor.execute(intent)
  expect(again.status).toBe(outcome.status)
  expect(again.order?.id).toBe(outcome.order?.id)
  expect(again.order?.orderHash).toBe(outcome.order?.orderHash)
  expect(first.context.journal.listOrders()).toHaveLength(ordersBefore.length)

  const restarted = await executorFor(accountIndex, journalName)
  const afterRestart = await restarted.executor.execute(intent)
  expect(afterRestart.order?.id).toBe(outcome.order?.id)
  expect(afterRestart.order?.orderHash).toBe(outcome.order?.orderHash)
  expect(afterRestart.order?.venueId).toBe(outcome.order?.venueId)
  expect(restarted.context.journal.listOrders()).toHaveLength(ordersBefore.length)
  expect(await venueCount()).toBe(venueBefore)
}

describe('executor LIMIT intent', () => {
  it('rests a partially fillable LIMIT order at the venue, once, and cancels it by intent id', async () => {
    const first = await executorFor(3, 'limit.sqlite')
    const submissions = countRequests(sandbox(), 'POST /v2/delta/orders')
    // 1,000 USDC for 10 WETH (about 20,000 USDC): far above the market, so it stays open.
    const intent = intentOf('limit-1', {
      kind: 'limit',
      chainId: 1,
      srcToken: token('USDC'),
      destToken: token('WETH'),
      srcAmount: parseUnits('1000', 6).toString(),
      destAmount: parseEther('10').toString(),
      partiallyFillable: true,
      validitySeconds: 3600,
    })
    const outcome = await first.executor.execute(intent)
    expect(outcome.status, outcome.reason).toBe('accepted')
    expect(outcome.order).toMatchObject({
      mode: 'delta',
      submitted: true,
      chainId: 1,
      destChainId: 1,
      srcToken: token('USDC').toLowerCase(),
      destToken: token('WETH').toLowerCase(),
      srcAmount: parseUnits('1000', 6),
      destAmount: parseEther('10'),
      side: 'SELL',
    })
    expect(outcome.order?.signedPayload).toMatchObject({ type: 'LIMIT', partiallyFillable: true })
    const venue = await venueDeltaOrder(first.context, outcome)
    expect(venue).toMatchObject({ type: 'LIMIT', onChainOrderType: 'FillableOrder', orderHash: outcome.order?.orderHash })
    expect(['PENDING', 'ACTIVE']).toContain(venue.status)
    expect(first.context.journal.getIntent(intent.id)?.spend).toEqual({
      token: `1:${token('USDC').toLowerCase()}`,
      amount: parseUnits('1000', 6),
    })

    await expectRepeatsCreateNothing(3, 'limit.sqlite', first, intent, outcome, () => venueOrderCount(first.context))
    expect(submissions()).toBe(1)

    const [cancelled] = await first.executor.cancel([intent.id])
    expect(cancelled).toMatchObject({ id: intent.id, orderId: outcome.order?.id, outcome: 'requested' })
    expect(['CANCELLING', 'CANCELLED']).toContain((await venueDeltaOrder(first.context, outcome)).status)
  })

  // Open Delta orders of one token share the allowance to the Delta contract: an approval of the new order alone
  // would leave the resting one short once the new one fills, and the venue would suspend it.
  it('keeps a resting LIMIT backed when another Delta order of the same token fills', async () => {
    const { context, executor } = await executorFor(3, 'limit.sqlite')
    const resting = await executor.execute(
      intentOf('limit-dai', {
        kind: 'limit',
        chainId: 1,
        srcToken: token('DAI'),
        destToken: token('WETH'),
        srcAmount: parseEther('1000').toString(),
        destAmount: parseEther('10').toString(),
        validitySeconds: 3600,
      }),
    )
    expect(resting.status, resting.reason).toBe('accepted')
    const swap = await executor.execute(
      intentOf('swap-dai', {
        kind: 'swap',
        chainId: 1,
        srcToken: token('DAI'),
        destToken: token('WETH'),
        amount: parseEther('100').toString(),
        side: 'SELL',
        mode: 'delta',
        maxSlippageBps: 100,
        maxPriceImpactPercent: 5,
      }),
    )
    expect(swap.status, swap.reason).toBe('accepted')
    const started = performance.now()
    while ((await venueDeltaOrder(context, swap)).status !== 'COMPLETED' && performance.now() - started < 10_000) {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect((await venueDeltaOrder(context, swap)).status).toBe('COMPLETED')
    // The venue checks its open orders' funding every 3 sandbox seconds.
    const checked = performance.now()
    let status = (await venueDeltaOrder(context, resting)).status
    while (status === 'ACTIVE' && performance.now() - checked < 4_000) {
      await new Promise((resolve) => setTimeout(resolve, 200))
      status = (await venueDeltaOrder(context, resting)).status
    }
    expect(status).toBe('ACTIVE')
  })
})

describe('executor TWAP intents', () => {
  it('submits a TWAP sell whose journaled amounts are those of the signed struct', async () => {
    const first = await executorFor(4, 'twap-sell.sqlite')
    const intent = intentOf('twap-sell-1', {
      kind: 'twap-sell',
      chainId: 1,
      srcToken: token('USDC'),
      destToken: token('WETH'),
      totalSrcAmount: parseUnits('300', 6).toString(),
      numSlices: 3,
      intervalSeconds: 600,
      maxSlippageBps: 100,
      maxPriceImpactPercent: 5,
    })
    const outcome = await first.executor.execute(intent)
    expect(outcome.status, outcome.reason).toBe('accepted')
    const struct = signedStruct(outcome)
    expect(BigInt(struct.totalSrcAmount ?? -1)).toBe(parseUnits('300', 6))
    expect(Number(struct.numSlices)).toBe(3)
    expect(Number(struct.interval)).toBe(600)
    expect(outcome.order).toMatchObject({
      mode: 'delta',
      submitted: true,
      side: 'SELL',
      srcAmount: parseUnits('300', 6),
      destAmount: BigInt(struct.destAmountPerSlice ?? -1) * 3n,
    })
    expect(outcome.order?.destAmount).toBeGreaterThan(0n)
    const venue = await venueDeltaOrder(first.context, outcome)
    expect(venue).toMatchObject({ onChainOrderType: 'TWAPOrder', side: 'SELL', orderHash: outcome.order?.orderHash })

    await expectRepeatsCreateNothing(4, 'twap-sell.sqlite', first, intent, outcome, () => venueOrderCount(first.context))
  })

  it('submits a TWAP buy whose journaled amounts are its maxSrcAmount and totalDestAmount', async () => {
    const first = await executorFor(9, 'twap-buy.sqlite')
    const intent = intentOf('twap-buy-1', {
      kind: 'twap-buy',
      chainId: 1,
      srcToken: token('USDC'),
      destToken: token('WETH'),
      totalDestAmount: parseEther('0.2').toString(),
      maxSrcAmount: parseUnits('600', 6).toString(),
      numSlices: 2,
      intervalSeconds: 600,
      maxSlippageBps: 100,
      maxPriceImpactPercent: 5,
    })
    const outcome = await first.executor.execute(intent)
    expect(outcome.status, outcome.reason).toBe('accepted')
    const struct = signedStruct(outcome)
    expect(BigInt(struct.totalDestAmount ?? -1)).toBe(parseEther('0.2'))
    expect(BigInt(struct.maxSrcAmount ?? -1)).toBe(parseUnits('600', 6))
    expect(outcome.order).toMatchObject({
      mode: 'delta',
      submitted: true,
      side: 'BUY',
      srcAmount: parseUnits('600', 6),
      destAmount: parseEther('0.2'),
    })
    const venue = await venueDeltaOrder(first.context, outcome)
    expect(venue).toMatchObject({ onChainOrderType: 'TWAPBuyOrder', side: 'BUY', orderHash: outcome.order?.orderHash })

    await expectRepeatsCreateNothing(9, 'twap-buy.sqlite', first, intent, outcome, () => venueOrderCount(first.context))
  })
})

describe('executor TWAP buy guard', () => {
  it('caps the signed maxSrcAmount at numSlices × maxSrcAmountPerSlice, which the contract applies per slice', async () => {
    // Its own account: an exact approval of another journal's account would be taken by that journal's open TWAP.
    const { executor } = await executorFor(2, 'twap-buy-guard.sqlite')
    const intent = intentOf('twap-buy-guard', {
      kind: 'twap-buy',
      chainId: 1,
      srcToken: token('USDC'),
      destToken: token('WETH'),
      totalDestAmount: parseEther('0.2').toString(),
      maxSrcAmount: parseUnits('600', 6).toString(),
      maxSrcAmountPerSlice: parseUnits('250', 6).toString(),
      numSlices: 2,
      intervalSeconds: 600,
      maxSlippageBps: 100,
      maxPriceImpactPercent: 5,
    })
    const outcome = await executor.execute(intent)
    expect(outcome.status, outcome.reason).toBe('accepted')
    expect(BigInt(signedStruct(outcome).maxSrcAmount ?? -1)).toBe(parseUnits('500', 6))
    expect(outcome.order?.srcAmount).toBe(parseUnits('500', 6))
  })
})

describe('executor crosschain intent', () => {
  it('submits a chain 1 → 8453 order delivering the destination token on 8453', async () => {
    const first = await executorFor(5, 'crosschain.sqlite')
    const intent = intentOf('crosschain-1', {
      kind: 'crosschain',
      chainId: 1,
      destChainId: 8453,
      srcToken: token('USDC'),
      destToken: token('USDC', 8453),
      amount: parseUnits('150', 6).toString(),
      side: 'SELL',
      maxSlippageBps: 100,
      maxPriceImpactPercent: 5,
    })
    const outcome = await first.executor.execute(intent)
    expect(outcome.status, outcome.reason).toBe('accepted')
    expect(outcome.order).toMatchObject({
      mode: 'delta',
      submitted: true,
      chainId: 1,
      destChainId: 8453,
      srcToken: token('USDC').toLowerCase(),
      destToken: token('USDC', 8453).toLowerCase(),
      srcAmount: parseUnits('150', 6),
    })
    const venue = await venueDeltaOrder(first.context, outcome)
    expect(venue.onChainOrderType).toBe('Order')
    expect(venue.input).toMatchObject({ chainId: 1, token: token('USDC').toLowerCase() })
    expect(venue.output).toMatchObject({ chainId: 8453, token: token('USDC', 8453).toLowerCase() })
    // A crosschain order records the destination chain's baseline too (the conservation check reads it).
    expect(first.context.journal.getBalanceBaseline(8453, first.context.account.address, token('USDC', 8453))).toBeDefined()

    await expectRepeatsCreateNothing(5, 'crosschain.sqlite', first, intent, outcome, () => venueOrderCount(first.context))
  })
})

describe('executor OTC intent', () => {
  it('posts a P2P order to the named counterparty once, which fills it', async () => {
    const first = await executorFor(6, 'otc.sqlite')
    const posts = countRequests(sandbox(), 'POST /ft/p2p/*')
    const [counterparty] = otcCounterpartyAddresses()
    const intent = intentOf('otc-1', {
      kind: 'otc',
      chainId: 1,
      makerAsset: token('USDC'),
      takerAsset: token('WETH'),
      makerAmount: parseUnits('200', 6).toString(),
      takerAmount: parseEther('0.1').toString(),
      taker: counterparty,
      expiry: Math.floor(systemClock.now() / 1000) + 3600,
    })
    const outcome = await first.executor.execute(intent)
    expect(outcome.status, outcome.reason).toBe('accepted')
    expect(outcome.order).toMatchObject({
      mode: 'otc',
      submitted: true,
      srcToken: token('USDC').toLowerCase(),
      destToken: token('WETH').toLowerCase(),
      srcAmount: parseUnits('200', 6),
      destAmount: parseEther('0.1'),
      venueId: outcome.order?.orderHash,
    })
    const orderHash = outcome.order?.orderHash as Hex
    const posted = await getOtcOrder(first.context.api, { orderHash })
    expect(posted).toMatchObject({ type: 'P2P', makerAmount: parseUnits('200', 6), takerAmount: parseEther('0.1') })
    expect(posted.maker.toLowerCase()).toBe(first.context.account.address.toLowerCase())
    expect(['PENDING', 'FULFILLED']).toContain(posted.state)

    await expectRepeatsCreateNothing(6, 'otc.sqlite', first, intent, outcome, async () => posts())
    expect(posts()).toBe(1)

    const filled = await pollOtcOrder(first.context, orderHash, (order) => order.state === 'FULFILLED')
    expect(filled.state).toBe('FULFILLED')
  })

  it('keeps a live OTC order funded when another of the same maker asset fills, and cancels it on chain', async () => {
    const { context, executor } = await executorFor(8, 'otc-two.sqlite')
    const [counterparty] = otcCounterpartyAddresses()
    const expiry = Math.floor(systemClock.now() / 1000) + 3600
    const otc = (key: string, makerAmount: string, taker: Address) =>
      intentOf(key, {
        kind: 'otc',
        chainId: 1,
        makerAsset: token('USDC'),
        takerAsset: token('WETH'),
        makerAmount,
        takerAmount: parseEther('0.1').toString(),
        taker,
        expiry,
      })
    // The first names a taker that never comes; the second the sandbox's counterparty, which fills it.
    const resting = await executor.execute(otc('otc-resting', parseUnits('300', 6).toString(), sandbox().accounts[9]?.address as Address))
    const filledSoon = await executor.execute(otc('otc-filled', parseUnits('200', 6).toString(), counterparty as Address))
    expect([resting.status, filledSoon.status]).toEqual(['accepted', 'accepted'])
    const restingHash = resting.order?.orderHash as Hex
    await pollOtcOrder(context, filledSoon.order?.orderHash as Hex, (order) => order.state === 'FULFILLED')
    // The RFQ allowance covered both orders, so the fill of one leaves the other fully backed.
    const after = await pollOtcOrder(context, restingHash, (order) => order.state !== 'PENDING', 1_000)
    expect(after).toMatchObject({ state: 'PENDING', makerBalance: parseUnits('300', 6) })

    // Named twice, by intent id and by order hash: one cancel transaction, journaled against the order.
    const cancel = await executor.execute(
      intentOf('cancel-otc', { kind: 'cancel', intentIds: [resting.intent.id], orderIds: [restingHash] }),
    )
    expect(cancel.status, cancel.reason).toBe('done')
    expect(context.journal.transactionsOf(resting.order?.id ?? '')).toMatchObject([{ purpose: 'cancel', chainId: 1 }])
    expect((await pollOtcOrder(context, restingHash, (order) => order.state === 'CANCELLED')).state).toBe('CANCELLED')
  })

  it('raises a USDT-style allowance through 0 for a second live order', async () => {
    const { context, executor } = await executorFor(8, 'otc-usdt.sqlite')
    const taker = sandbox().accounts[9]?.address as Address
    const otc = (key: string, makerAmount: bigint) =>
      intentOf(key, {
        kind: 'otc',
        chainId: 1,
        makerAsset: token('USDT'),
        takerAsset: token('WETH'),
        makerAmount: makerAmount.toString(),
        takerAmount: parseEther('0.05').toString(),
        taker,
        expiry: Math.floor(systemClock.now() / 1000) + 3600,
      })
    const first = await executor.execute(otc('usdt-1', parseUnits('100', 6)))
    const second = await executor.execute(otc('usdt-2', parseUnits('250', 6)))
    expect([first.status, second.status], second.reason).toEqual(['accepted', 'accepted'])
    // approve 100; then approve 0 and approve 350 (both orders).
    const approvals = context.journal
      .transactionsFrom(context.account.address, 1)
      .filter((transaction) => transaction.purpose === 'approve')
    expect(approvals).toHaveLength(3)
    // While the allowance passed through 0 the venue may have suspended the first order; its tracker restores it.
    for (const [outcome, amount] of [
      [first, parseUnits('100', 6)],
      [second, parseUnits('250', 6)],
    ] as const) {
      const venue = await pollOtcOrder(context, outcome.order?.orderHash as Hex, (order) => order.state === 'PENDING')
      expect(venue).toMatchObject({ state: 'PENDING', makerBalance: amount })
    }
  })
})

describe('executor cancel intent', () => {
  it('cancels the order of another intent once; a repeat or a restart returns the same outcome', async () => {
    const first = await executorFor(7, 'cancel.sqlite')
    const limit = intentOf('limit-to-cancel', {
      kind: 'limit',
      chainId: 1,
      srcToken: token('USDC'),
      destToken: token('WETH'),
      srcAmount: parseUnits('500', 6).toString(),
      destAmount: parseEther('5').toString(),
      validitySeconds: 3600,
    })
    const placed = await first.executor.execute(limit)
    expect(placed.status, placed.reason).toBe('accepted')
    expect(await venueDeltaOrder(first.context, placed)).toMatchObject({ type: 'LIMIT', onChainOrderType: 'Order' })

    const cancels = countRequests(sandbox(), 'POST /v2/delta/orders/cancel')
    // Named twice, by intent id and by venue id: one cancellation.
    const cancel = intentOf('cancel-1', { kind: 'cancel', intentIds: [limit.id], orderIds: [placed.order?.venueId] })
    const outcome = await first.executor.execute(cancel)
    expect(outcome.status, outcome.reason).toBe('done')
    expect(outcome.order).toBeUndefined()
    expect(first.context.journal.getIntent(cancel.id)).toMatchObject({ kind: 'cancel', status: 'done' })
    expect(['CANCELLING', 'CANCELLED']).toContain((await venueDeltaOrder(first.context, placed)).status)

    const again = await first.executor.execute(cancel)
    expect(again.status).toBe('done')
    const restarted = await executorFor(7, 'cancel.sqlite')
    expect((await restarted.executor.execute(cancel)).status).toBe('done')
    expect(cancels()).toBe(1)
    expect(restarted.context.journal.listOrders()).toHaveLength(1)
  })

  it('fails a cancel intent naming an intent that has no order', async () => {
    const { context, executor } = await executorFor(7, 'cancel.sqlite')
    const cancel = intentOf('cancel-unknown', { kind: 'cancel', intentIds: ['no-such-intent'] })
    const outcome = await executor.execute(cancel)
    expect(outcome.status).toBe('failed')
    expect(context.journal.getIntent(cancel.id)).toMatchObject({ status: 'failed', refusalLimit: 'cancel' })
    expect(outcome.reason).toContain('no-such-intent')
  })

  it('completes a cancel intent naming an intent that was refused before it had an order: nothing to cancel', async () => {
    const { context, executor } = await executorFor(7, 'cancel.sqlite')
    context.journal.recordIntent({
      id: 'refused-earlier',
      strategy: 'kinds',
      kind: 'limit',
      intent: {},
      refused: { limit: 'maxOpenOrdersPerStrategy', reason: 'too many open orders' },
    })
    const cancel = intentOf('cancel-refused', { kind: 'cancel', intentIds: ['refused-earlier'] })
    const outcome = await executor.execute(cancel)
    expect(outcome.status).toBe('done')
    expect(context.journal.getIntent(cancel.id)).toMatchObject({ status: 'done' })
  })
})

/** Reads the OTC order until `accept` holds or `timeoutMs` passed; returns the last read. */
async function pollOtcOrder(
  context: ExecutorContext,
  orderHash: Hex,
  accept: (order: OtcOrder) => boolean,
  timeoutMs = 15_000,
): Promise<OtcOrder> {
  const started = performance.now()
  for (;;) {
    const order = await getOtcOrder(context.api, { orderHash })
    if (accept(order) || performance.now() - started > timeoutMs) return order
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
