import type { Hex } from 'viem'
import { getOtcFillableBalance } from '../../api/otc/get-otc-fillable-balance.js'
import { getOtcOrder } from '../../api/otc/get-otc-order.js'
import type { OtcOrder } from '../../api/otc/otc-order-schema.js'
import { postOtcOrder } from '../../api/otc/post-otc-order.js'
import { applyApprovalPlan } from '../../chain/apply-approval-plan.js'
import { planApproval } from '../../chain/approval-plan.js'
import { requireChainClients } from '../../chain/chain-clients.js'
import { detectTokenCapabilities } from '../../chain/detect-token-capabilities.js'
import { readAllowances } from '../../chain/read-allowances.js'
import { signRfqOrder } from '../../chain/sign-rfq-order.js'
import { resolveSpender, type Spender } from '../../chain/spender.js'
import type { Intent } from '../../domain/intents/intent-schema.js'
import { orderIdOf } from '../../domain/order-id.js'
import type { Journal } from '../../journal/journal.js'
import { JournalConflictError } from '../../journal/journal-errors.js'
import type { JournalOrder } from '../../journal/orders.js'
import { packNonceAndMeta } from '../../protocol/nonce-and-meta.js'
import type { RfqOrder } from '../../protocol/rfq-order.js'
import { unixSeconds } from '../../time/clock.js'
import { recordBalanceBaselines } from './balance-baselines.js'
import { isFinalRefusal, isNotFound, reasonOf } from './execution-errors.js'
import type { ExecutorContext } from './executor-context.js'
import { deterministicNonce } from './order-identity.js'

/** What the journal keeps of a signed OTC order: the struct (decimal strings) and the maker's signature. */
type StoredOtcPayload = { order: Record<keyof RfqOrder, string>; signature: Hex }

/**
 * Posts a maker-signed P2P order: approves the RFQ contract on chain (the order settles whenever the taker fills it;
 * see approveRfq), signs, journals, posts once. No gas is spent on the order itself.
 */
export async function executeOtcOrder(context: ExecutorContext, intent: Extract<Intent, { kind: 'otc' }>): Promise<JournalOrder> {
  const { journal, account } = context
  const orderId = orderIdOf(intent.id)
  const stored = journal.getOrder({ id: orderId })
  if (stored) return stored.submitted ? stored : postStoredOtcOrder(context, stored)

  const rfq = resolveSpender({ contracts: context.contracts, chainId: intent.chainId, mode: 'rfq' })
  await recordBalanceBaselines(context, [{ chainId: intent.chainId, tokens: [intent.makerAsset, intent.takerAsset] }])
  await approveRfq(context, intent, rfq)
  const nonce = deterministicNonce(account.address, orderId, 96)
  const order: RfqOrder = {
    nonceAndMeta: packNonceAndMeta({ intendedTaker: intent.taker, nonce }),
    expiry: BigInt(intent.expiry),
    makerAsset: intent.makerAsset,
    takerAsset: intent.takerAsset,
    maker: account.address,
    taker: intent.taker,
    makerAmount: intent.makerAmount,
    takerAmount: intent.takerAmount,
  }
  const signed = await signRfqOrder(account, order, rfq)
  const payload: StoredOtcPayload = {
    order: Object.fromEntries(Object.entries(order).map(([key, value]) => [key, String(value)])) as StoredOtcPayload['order'],
    signature: signed.signature,
  }
  const recorded = journal.recordSignedOrder({
    id: orderId,
    intentId: intent.id,
    mode: 'otc',
    account: account.address,
    chainId: intent.chainId,
    orderHash: signed.orderHash,
    nonce,
    deadline: intent.expiry,
    srcToken: intent.makerAsset,
    destToken: intent.takerAsset,
    srcAmount: intent.makerAmount,
    destAmount: intent.takerAmount,
    side: 'SELL',
    signedPayload: payload,
  })
  return postStoredOtcOrder(context, recorded)
}

/**
 * Approves the RFQ contract for this order on top of what the maker's live orders of the token still reserve at the
 * venue: the orders share one allowance, and an allowance of this order alone would leave the others short once
 * one fills (the venue then suspends them). USDT-style tokens go through 0 first; a permit-only token cannot back
 * an RFQ order and is refused (ApprovalNotPossibleError).
 */
async function approveRfq(context: ExecutorContext, intent: Extract<Intent, { kind: 'otc' }>, rfq: Spender<'rfq'>): Promise<void> {
  const { account, journal } = context
  const chain = requireChainClients(context.chains, intent.chainId)
  const reservedByToken = await getOtcFillableBalance(context.api, {
    chainId: intent.chainId,
    account: account.address,
    token: intent.makerAsset,
  })
  const reserved = reservedByToken[intent.makerAsset.toLowerCase()] ?? 0n
  const required = reserved + intent.makerAmount
  const [token, allowances] = await Promise.all([
    detectTokenCapabilities(chain.publicClient, { token: intent.makerAsset }),
    readAllowances(chain.publicClient, { token: intent.makerAsset, owner: account.address, spender: rfq }),
  ])
  const plan = planApproval({
    mode: 'rfq',
    token,
    owner: account.address,
    spender: rfq,
    required,
    ...allowances,
    policy: context.settings.approvalPolicy,
    settlesOverTime: true,
    permitPreference: 'onchain',
  })
  const applied = await applyApprovalPlan({ plan, client: chain.publicClient, queue: context.queueFor(intent.chainId), account })
  // An RFQ plan has on-chain steps only (a reset to 0, then the approve), one transaction each, in order.
  applied.transactions.forEach((transaction, index) => {
    const step = plan.steps[index]
    journal.recordApproval({
      chainId: intent.chainId,
      owner: account.address,
      token: intent.makerAsset,
      spender: rfq.address,
      mode: 'approve',
      amount: step?.type === 'approve' ? step.amount : 0n,
      txHash: transaction.hash,
    })
  })
}

/** Posts a journaled OTC order as signed; a final refusal fails it, anything else leaves it for recovery. */
export async function postStoredOtcOrder(context: ExecutorContext, order: JournalOrder): Promise<JournalOrder> {
  const { order: fields, signature } = order.signedPayload as StoredOtcPayload
  const rfqOrder: RfqOrder = {
    nonceAndMeta: BigInt(fields.nonceAndMeta),
    expiry: BigInt(fields.expiry),
    makerAsset: fields.makerAsset as `0x${string}`,
    takerAsset: fields.takerAsset as `0x${string}`,
    maker: fields.maker as `0x${string}`,
    taker: fields.taker as `0x${string}`,
    makerAmount: BigInt(fields.makerAmount),
    takerAmount: BigInt(fields.takerAmount),
  }
  try {
    const venueOrder = await postOtcOrder(context.api, { chainId: order.chainId, order: rfqOrder, signature })
    return acceptVenueOtcOrder(context.journal, order, venueOrder)
  } catch (error) {
    if (!isFinalRefusal(error)) throw error
    // The venue may already hold it (a post whose answer was lost): its copy wins over the refusal of a repeat.
    const known = await readOtcOrder(context, order)
    if (known) return acceptVenueOtcOrder(context.journal, order, known)
    const reason = reasonOf(error)
    context.journal.closeUnsentOrder({
      orderId: order.id,
      status: 'CANCELLED',
      reason,
      statusReason: `refused at submission: ${reason}`,
      stage: 'venue',
    })
    return context.journal.getOrder({ id: order.id }) as JournalOrder
  }
}

/** Startup recovery of an OTC order signed but not known to be posted. */
export async function resolveInFlightOtcOrder(context: ExecutorContext, order: JournalOrder): Promise<JournalOrder> {
  const known = await readOtcOrder(context, order)
  if (known) return acceptVenueOtcOrder(context.journal, order, known)
  const now = unixSeconds(context.clock)
  if (order.deadline !== null && order.deadline !== 0 && order.deadline - context.settings.resubmitMarginSeconds <= now) {
    const reason = `signed but never reached the venue, and its expiry ${order.deadline} is too close to post (now ${now})`
    context.journal.closeUnsentOrder({ orderId: order.id, status: 'EXPIRED', reason, stage: 'venue' })
    return context.journal.getOrder({ id: order.id }) as JournalOrder
  }
  return postStoredOtcOrder(context, order)
}

async function readOtcOrder(context: ExecutorContext, order: JournalOrder): Promise<OtcOrder | undefined> {
  try {
    return await getOtcOrder(context.api, { orderHash: order.orderHash as Hex })
  } catch (error) {
    if (isNotFound(error)) return undefined
    throw error
  }
}

function acceptVenueOtcOrder(journal: Journal, order: JournalOrder, venueOrder: OtcOrder): JournalOrder {
  if (venueOrder.orderHash.toLowerCase() !== order.orderHash) {
    throw new JournalConflictError('the venue answered another OTC order hash', { orderId: order.id, venueOrderHash: venueOrder.orderHash })
  }
  journal.markSubmitted(order.id, { venueId: venueOrder.orderHash.toLowerCase() })
  journal.recordStatus({ orderId: order.id, status: venueOrder.state, reason: 'venue' })
  return journal.getOrder({ id: order.id }) as JournalOrder
}
