import { randomUUID } from 'node:crypto'
import { erc20Abi, type Hex, parseEventLogs, parseUnits, zeroAddress } from 'viem'
import { afterAll, describe, expect, it } from 'vitest'
import { createApiClient } from '../../src/api/client.js'
import { createChainClients } from '../../src/chain/chain-clients.js'
import { type Journal, openJournal } from '../../src/journal/journal.js'
import { reconcileOrders } from '../../src/journal/reconcile/reconcile-orders.js'
import { createLogger } from '../../src/log/logger.js'
import type { DeltaOrderStatus } from '../../src/protocol/delta-status.js'
import {
  approveDelta,
  type DeltaQuote,
  deltaToken,
  deltaWallet,
  mustBuild,
  mustPrice,
  noAgents,
  sandboxNow,
  signToSign,
  submitDelta,
} from '../helpers/delta.js'
import { request, useSandbox } from '../helpers/sandbox.js'
import { createJournalDirectory } from './journal-fixtures.js'

const [source, destination] = [1, 8453]
const everyAgent = { excludeAgents: [] }

describe('reconcileOrders: Delta orders', () => {
  const sandbox = useSandbox({ chainIds: [source, destination], speed: 60, market: 'still' })
  const directory = createJournalDirectory()
  afterAll(() => directory.cleanup())

  function openTestJournal(): Journal {
    return openJournal({ file: directory.path(`${randomUUID()}.sqlite`), clock: sandbox().venue.clock })
  }

  function reconcile(journal: Journal, index: number, extra: { singleReadLimit?: number } = {}) {
    const s = sandbox()
    return reconcileOrders({
      journal,
      api: createApiClient({ baseUrl: s.url, rateLimit: false, retry: false }),
      chains: createChainClients({ chains: s.chains.map(({ chainId, rpcUrl }) => ({ chainId, rpcUrls: [rpcUrl] })) }),
      account: deltaWallet(s, source, index).account.address,
      clock: s.venue.clock,
      logger: createLogger({ level: 'silent' }),
      ...extra,
    })
  }

  /** Quote, build and sign as the executor does; the journal gets the intent and the signed order before submission. */
  async function submitJournaled(
    journal: Journal,
    index: number,
    quote: DeltaQuote,
    submit: Record<string, unknown> = everyAgent,
    intent?: { id: string; slice: number },
  ) {
    const s = sandbox()
    const wallet = deltaWallet(s, quote.chainId, index)
    const owner = wallet.account.address
    const price = await mustPrice(s, { ...quote, extra: { userAddress: owner, ...quote.extra } })
    const built = await mustBuild(s, { route: price.route, side: price.side, owner, deadline: sandboxNow(s) + 3600 })
    const signature = await signToSign(wallet, built.toSign)
    const value = built.toSign.value as Record<string, string> & { bridge: { outputToken: string; destinationChainId: string } }
    const destChainId = quote.destChainId ?? quote.chainId
    const intentId = intent?.id ?? `intent-${built.orderHash}`
    journal.recordIntent({ id: intentId, strategy: 'test', kind: destChainId === quote.chainId ? 'swap' : 'crosschain', intent: quote })
    const orderId = `${intentId}/${intent?.slice ?? 0}`
    journal.recordSignedOrder({
      id: orderId,
      intentId,
      mode: 'delta',
      account: owner,
      beneficiary: value.beneficiary === zeroAddress ? owner : (value.beneficiary as string),
      chainId: quote.chainId,
      destChainId,
      orderHash: built.orderHash,
      nonce: BigInt(value.nonce as string),
      deadline: Number(value.deadline),
      srcToken: value.srcToken as string,
      destToken: destChainId === quote.chainId ? (value.destToken as string) : value.bridge.outputToken,
      srcAmount: BigInt(value.srcAmount as string),
      destAmount: BigInt(value.destAmount as string),
      side: price.side,
      signedPayload: { order: value, signature },
    })
    const answer = await submitDelta(s, { chainId: quote.chainId, order: value, signature, partner: 'anon', ...submit })
    expect(answer.status, answer.text).toBe(200)
    const venueId = (answer.json as { id: string }).id
    journal.markSubmitted(orderId, { venueId })
    return { orderId, intentId, venueId, owner }
  }

  async function waitForVenue(venueId: string, statuses: readonly DeltaOrderStatus[]): Promise<void> {
    const started = performance.now()
    for (;;) {
      const status = sandbox().delta.store.get(venueId)?.status
      if (status && statuses.includes(status)) return
      if (performance.now() - started > 15_000) throw new Error(`order ${venueId} is ${status}, not ${statuses.join(' or ')}`)
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  }

  /** What the chain's Transfer logs of `token` in `txHash` moved out of `from` or into `to`. */
  async function transferred(chainId: number, txHash: string, token: string, filter: { from?: string; to?: string }): Promise<bigint> {
    const client = sandbox().venue.chains.get(chainId)?.clients.publicClient
    const receipt = await client?.getTransactionReceipt({ hash: txHash as Hex })
    if (!receipt) throw new Error(`no receipt ${txHash}`)
    return parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs })
      .filter((log) => log.address.toLowerCase() === token.toLowerCase())
      .filter((log) => filter.from === undefined || log.args.from.toLowerCase() === filter.from.toLowerCase())
      .filter((log) => filter.to === undefined || log.args.to.toLowerCase() === filter.to.toLowerCase())
      .reduce((sum, log) => sum + log.args.value, 0n)
  }

  const usdc = (chainId = source) => deltaToken(sandbox(), chainId, 'USDC').address
  const weth = () => deltaToken(sandbox(), source, 'WETH').address

  it('records the status, a fill equal to the Transfer logs with source both, and completes the intent once the order fills', async () => {
    const journal = openTestJournal()
    await approveDelta(deltaWallet(sandbox(), source, 1), usdc())
    const placed = await submitJournaled(journal, 1, { chainId: source, src: 'USDC', dest: 'WETH', amount: parseUnits('250', 6) })
    await waitForVenue(placed.venueId, ['COMPLETED'])

    const report = await reconcile(journal, 1)

    expect(report.errors).toEqual([])
    expect(report).toMatchObject({ checked: { delta: 1 }, statusChanges: 1, fills: { recorded: 1, chainConfirmed: 1, venueOnly: 0 } })
    expect(report.mismatches).toEqual([])
    expect(report.intentsCompleted).toBe(1)
    expect(journal.getOrder({ id: placed.orderId })?.status).toBe('COMPLETED')
    expect(journal.getIntent(placed.intentId)?.status).toBe('done')
    const [fill, ...others] = journal.fillsOf(placed.orderId)
    expect(others).toEqual([])
    const originTx = sandbox().delta.store.get(placed.venueId)?.transactions[0]?.originTx as string
    expect(fill).toMatchObject({ txHash: originTx.toLowerCase(), chainId: source, source: 'both', destinationTxHash: null })
    expect(fill?.logIndex).toEqual(expect.any(Number))
    expect(fill?.blockNumber).toEqual(expect.any(Number))
    expect(fill?.spentAmount).toBe(await transferred(source, originTx, usdc(), { from: placed.owner }))
    expect(fill?.receivedAmount).toBe(await transferred(source, originTx, weth(), { to: placed.owner }))
    expect(fill?.spentAmount).toBe(parseUnits('250', 6))

    const history = journal.orderHistory(placed.orderId)
    const again = await reconcile(journal, 1)
    expect(again).toMatchObject({
      checked: { delta: 0 },
      statusChanges: 0,
      fills: { recorded: 0 },
      refunds: 0,
      intentsCompleted: 0,
      mismatches: [],
      errors: [],
    })
    expect(journal.orderHistory(placed.orderId)).toEqual(history)
    expect(journal.fillsOf(placed.orderId)).toEqual([fill])
    journal.close()
  })

  it('records the chain figure and reports a mismatch when the venue misreports a fill', async () => {
    const journal = openTestJournal()
    await approveDelta(deltaWallet(sandbox(), source, 2), usdc())
    const placed = await submitJournaled(journal, 2, { chainId: source, src: 'USDC', dest: 'WETH', amount: parseUnits('120', 6) })
    await waitForVenue(placed.venueId, ['COMPLETED'])
    // A venue fault no real part produces on demand: its transactions[] overstates what the owner received.
    const venueFill = sandbox().delta.store.get(placed.venueId)?.transactions[0]
    if (!venueFill) throw new Error('no venue fill')
    const onChain = venueFill.receivedAmount
    venueFill.receivedAmount = onChain + 1_000n

    const report = await reconcile(journal, 2)

    expect(report.mismatches).toEqual([
      { orderId: placed.orderId, txHash: venueFill.originTx.toLowerCase(), leg: 'received', venue: onChain + 1_000n, chain: onChain },
    ])
    expect(journal.fillsOf(placed.orderId)).toMatchObject([{ receivedAmount: onChain, source: 'both' }])
    expect(onChain).toBe(await transferred(source, venueFill.originTx, weth(), { to: placed.owner }))
    journal.close()
  })

  it('pages the open orders, then the final ones, reads what no page held singly, and reports an order unknown to the venue without stopping', async () => {
    const journal = openTestJournal()
    const wallet = deltaWallet(sandbox(), source, 3)
    await approveDelta(wallet, usdc())
    const quote = { chainId: source, src: 'USDC', dest: 'WETH', amount: parseUnits('40', 6) }
    const waiting = await submitJournaled(journal, 3, quote, noAgents)
    const filled = await submitJournaled(journal, 3, { ...quote, amount: parseUnits('41', 6) })
    const unknown = await submitJournaled(journal, 3, { ...quote, amount: parseUnits('42', 6) }, noAgents)
    await waitForVenue(filled.venueId, ['COMPLETED'])
    // The journal holds a venue id the venue never issued (a journal restored from another environment).
    const ghostIntent = `intent-ghost-${randomUUID()}`
    journal.recordIntent({ id: ghostIntent, strategy: 'test', kind: 'swap', intent: {} })
    const ghost = journal.recordSignedOrder({
      id: `${ghostIntent}/0`,
      intentId: ghostIntent,
      mode: 'delta',
      account: unknown.owner,
      chainId: source,
      orderHash: `0x${'ab'.repeat(32)}`,
      srcToken: usdc(),
      destToken: weth(),
      srcAmount: 1n,
      destAmount: 1n,
      side: 'SELL',
      signedPayload: {},
    })
    journal.markSubmitted(ghost.id, { venueId: randomUUID() })

    const report = await reconcile(journal, 3, { singleReadLimit: 0 })

    // One page of open orders, one of final orders (the filled one), one single read (the ghost, on neither).
    expect(report.venueReads).toEqual({ pages: 2, single: 1 })
    expect(report.checked.delta).toBe(3)
    expect(report.errors).toEqual([{ orderId: ghost.id, mode: 'delta', stage: 'venue', message: expect.any(String) }])
    expect(journal.getOrder({ id: waiting.orderId })?.status).toBe('PENDING')
    expect(journal.getOrder({ id: unknown.orderId })?.status).toBe('PENDING')
    expect(journal.getOrder({ id: filled.orderId })?.status).toBe('COMPLETED')
    expect(journal.fillsOf(filled.orderId)).toHaveLength(1)
    expect(journal.getIntent(filled.intentId)?.status).toBe('done')
    expect(journal.getIntent(waiting.intentId)?.status).toBe('accepted')
    journal.close()
  })

  it('completes an intent only once its last order is final', async () => {
    const s = sandbox()
    const journal = openTestJournal()
    const wallet = deltaWallet(s, source, 6)
    await approveDelta(wallet, usdc())
    const quote = { chainId: source, src: 'USDC', dest: 'WETH', amount: parseUnits('30', 6) }
    const intent = `intent-two-orders-${randomUUID()}`
    const filled = await submitJournaled(journal, 6, quote, everyAgent, { id: intent, slice: 0 })
    const resting = await submitJournaled(journal, 6, { ...quote, amount: parseUnits('31', 6) }, noAgents, { id: intent, slice: 1 })
    await waitForVenue(filled.venueId, ['COMPLETED'])

    const first = await reconcile(journal, 6)
    expect(first).toMatchObject({ statusChanges: 2, intentsCompleted: 0, errors: [] })
    expect(journal.getOrder({ id: filled.orderId })?.status).toBe('COMPLETED')
    expect(journal.getIntent(intent)?.status).toBe('accepted')

    const cancellation = await request(s.url, 'POST', '/v2/delta/orders/build/cancellation', { orderIds: [resting.venueId] })
    expect(cancellation.status, cancellation.text).toBe(200)
    const signature = await signToSign(wallet, (cancellation.json as { toSign: Parameters<typeof signToSign>[1] }).toSign)
    const cancelled = await request(s.url, 'POST', '/v2/delta/orders/cancel', { orderIds: [resting.venueId], signature })
    expect(cancelled.status, cancelled.text).toBe(200)
    await waitForVenue(resting.venueId, ['CANCELLED'])

    const second = await reconcile(journal, 6)
    expect(second).toMatchObject({ statusChanges: 1, intentsCompleted: 1, fills: { recorded: 0 }, errors: [] })
    expect(journal.getOrder({ id: resting.orderId })?.status).toBe('CANCELLED')
    expect(journal.getIntent(intent)?.status).toBe('done')
    journal.close()
  })

  it('records the source leg, nothing received and the bridge refund when a crosschain transfer fails', async () => {
    const s = sandbox()
    await request(s.url, 'POST', '/_sandbox/bridge', { failures: 'always' })
    const journal = openTestJournal()
    await approveDelta(deltaWallet(s, source, 4), usdc())
    const placed = await submitJournaled(journal, 4, {
      chainId: source,
      destChainId: destination,
      src: 'USDC',
      dest: 'USDC',
      amount: parseUnits('75', 6),
    })
    await waitForVenue(placed.venueId, ['REFUNDED'])
    await request(s.url, 'POST', '/_sandbox/bridge', { failures: 'random' })

    const report = await reconcile(journal, 4)

    expect(report.errors).toEqual([])
    expect(report).toMatchObject({ statusChanges: 1, refunds: 1, fills: { recorded: 1, chainConfirmed: 1 }, intentsCompleted: 1 })
    expect(report.notes).toContainEqual(expect.objectContaining({ orderId: placed.orderId, note: expect.stringMatching(/not delivered/) }))
    expect(journal.getOrder({ id: placed.orderId })?.status).toBe('REFUNDED')
    const venue = s.delta.store.get(placed.venueId)
    const originTx = venue?.transactions[0]?.originTx as string
    const [fill] = journal.fillsOf(placed.orderId)
    expect(fill).toMatchObject({ txHash: originTx.toLowerCase(), source: 'both', receivedAmount: 0n, destinationTxHash: null })
    expect(fill?.spentAmount).toBe(await transferred(source, originTx, usdc(), { from: placed.owner }))
    const [refund, ...moreRefunds] = journal.refundsOf(placed.orderId)
    expect(moreRefunds).toEqual([])
    const refundTx = venue?.refunds[0]?.tx as string
    expect(refund).toMatchObject({ txHash: refundTx.toLowerCase(), chainId: source, token: usdc().toLowerCase() })
    expect(refund?.amount).toBe(await transferred(source, refundTx, usdc(), { to: placed.owner }))
    expect(refund?.amount).toBe(fill?.spentAmount)

    const again = await reconcile(journal, 4)
    expect(again).toMatchObject({ statusChanges: 0, refunds: 0, fills: { recorded: 0 }, errors: [] })
    journal.close()
  })

  it('records the delivery on the destination chain when a crosschain order completes', async () => {
    const s = sandbox()
    await request(s.url, 'POST', '/_sandbox/bridge', { failures: 'never' })
    const journal = openTestJournal()
    await approveDelta(deltaWallet(s, source, 5), usdc())
    const placed = await submitJournaled(journal, 5, {
      chainId: source,
      destChainId: destination,
      src: 'USDC',
      dest: 'USDC',
      amount: parseUnits('90', 6),
      extra: { includeBridges: 'sandbox-cheap' },
    })
    // The cheap bridge delivers after 180 sandbox seconds (3 s here): the order sits in BRIDGING meanwhile.
    await waitForVenue(placed.venueId, ['BRIDGING'])
    const whileBridging = await reconcile(journal, 5)
    expect(whileBridging).toMatchObject({ statusChanges: 1, fills: { recorded: 0 }, errors: [] })
    expect(journal.getOrder({ id: placed.orderId })?.status).toBe('BRIDGING')
    expect(journal.fillsOf(placed.orderId)).toEqual([])
    await waitForVenue(placed.venueId, ['COMPLETED'])
    await request(s.url, 'POST', '/_sandbox/bridge', { failures: 'random' })

    const report = await reconcile(journal, 5)

    expect(report.errors).toEqual([])
    expect(journal.getOrder({ id: placed.orderId })?.status).toBe('COMPLETED')
    const transaction = s.delta.store.get(placed.venueId)?.transactions[0]
    const [fill] = journal.fillsOf(placed.orderId)
    expect(fill).toMatchObject({
      txHash: transaction?.originTx.toLowerCase(),
      source: 'both',
      destinationChainId: destination,
      destinationTxHash: transaction?.destinationTx?.toLowerCase(),
    })
    expect(fill?.spentAmount).toBe(await transferred(source, transaction?.originTx as string, usdc(), { from: placed.owner }))
    expect(fill?.receivedAmount).toBe(
      await transferred(destination, transaction?.destinationTx as string, usdc(destination), { to: placed.owner }),
    )
    expect(fill?.receivedAmount).toBeGreaterThan(0n)
    journal.close()
  })
})
