import { parseTransaction } from 'viem'
import { requireChainClients } from '../../chain/chain-clients.js'
import type { JournalOrder } from '../../journal/orders.js'
import { unixSeconds } from '../../time/clock.js'
import { reasonOf } from './execution-errors.js'
import { dataHashOf, type ExecutorContext } from './executor-context.js'
import type { StoredMarketPayload } from './market-order-flow.js'
import { resolveInFlightOtcOrder } from './otc-order-flow.js'
import { resolveInFlightDeltaOrder } from './submit-stored.js'

export type RecoveryOutcome = {
  orderId: string
  mode: JournalOrder['mode']
  /** What the order turned out to be: already at the venue / on chain, submitted now, or given up. */
  outcome: 'found' | 'submitted' | 'expired' | 'dropped' | 'failed' | 'error'
  detail: string
}

/**
 * Resolves every order that may have been in flight when the process stopped (signed, not known to be submitted),
 * before any new order: Delta by hash at the venue, OTC by hash at the venue, Market by transaction hash and nonce on
 * chain. What the venue or the chain already has counts as submitted; what it lacks is sent again, exactly as signed,
 * only while still valid; nothing is ever built or signed twice.
 */
export async function recoverInFlightOrders(context: ExecutorContext): Promise<RecoveryOutcome[]> {
  const outcomes: RecoveryOutcome[] = []
  for (const order of context.journal.inFlightOrders()) {
    try {
      outcomes.push(await recoverOrder(context, order))
    } catch (error) {
      context.logger?.warn({ orderId: order.id, reason: reasonOf(error) }, 'recovery of an in-flight order failed; it stays in flight')
      outcomes.push({ orderId: order.id, mode: order.mode, outcome: 'error', detail: reasonOf(error) })
    }
  }
  return outcomes
}

/** Resolves one in-flight order (see recoverInFlightOrders). */
export async function recoverOrder(context: ExecutorContext, order: JournalOrder): Promise<RecoveryOutcome> {
  const base = { orderId: order.id, mode: order.mode }
  if (order.mode === 'market') return { ...base, ...(await recoverMarketOrder(context, order)) }
  const resolved = order.mode === 'delta' ? await resolveInFlightDeltaOrder(context, order) : await resolveInFlightOtcOrder(context, order)
  if (resolved.submitted) return { ...base, outcome: 'submitted', detail: `at the venue as ${resolved.venueId}, ${resolved.status}` }
  return { ...base, outcome: resolved.status === 'EXPIRED' ? 'expired' : 'failed', detail: resolved.status }
}

/**
 * A Market order's transaction: mined or pending → submitted; unknown with its nonce still free → broadcast again
 * (the same signed bytes, so it can only ever be mined once); unknown with its nonce taken → dropped.
 */
async function recoverMarketOrder(context: ExecutorContext, order: JournalOrder): Promise<Pick<RecoveryOutcome, 'outcome' | 'detail'>> {
  const { journal } = context
  const payload = order.signedPayload as StoredMarketPayload
  const { publicClient } = requireChainClients(context.chains, order.chainId)
  const known = await publicClient.getTransaction({ hash: payload.txHash }).catch(() => undefined)
  if (!journal.getTransaction(payload.txHash)) {
    // The hook died between the order and its transaction row: write the row now, before anything is broadcast.
    journal.recordTransaction({
      txHash: payload.txHash,
      orderId: order.id,
      purpose: 'swap',
      chainId: order.chainId,
      nonce: payload.nonce,
      from: order.account,
      to: payload.to,
      value: BigInt(payload.value),
      dataHash: dataHashOf(parseTransaction(payload.serializedTransaction).data ?? '0x'),
    })
  }
  if (known) {
    journal.markSubmitted(order.id)
    return { outcome: 'found', detail: `transaction ${payload.txHash} is ${known.blockNumber === null ? 'pending' : 'mined'}` }
  }
  const minedNonce = await publicClient.getTransactionCount({ address: order.account as `0x${string}`, blockTag: 'latest' })
  if (minedNonce > payload.nonce) {
    const reason = `transaction ${payload.txHash} was never mined; nonce ${payload.nonce} went to another transaction`
    journal.dropTransaction({ txHash: payload.txHash, reason })
    journal.failIntent(order.intentId, reason, 'chain')
    return { outcome: 'dropped', detail: reason }
  }
  const now = unixSeconds(context.clock)
  if (payload.deadline - context.settings.resubmitMarginSeconds <= now) {
    const reason = `transaction ${payload.txHash} never reached the node and its deadline ${payload.deadline} is too close (now ${now})`
    journal.dropTransaction({ txHash: payload.txHash, reason })
    journal.failIntent(order.intentId, reason, 'chain')
    return { outcome: 'dropped', detail: reason }
  }
  await publicClient.sendRawTransaction({ serializedTransaction: payload.serializedTransaction })
  journal.markSubmitted(order.id)
  return { outcome: 'submitted', detail: `broadcast ${payload.txHash} again` }
}
