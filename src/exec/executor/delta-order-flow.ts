import { type Address, type Hex, keccak256, maxUint256 } from 'viem'
import { type BuildDeltaOrderParameters, type BuildDeltaOrderReturnType, buildDeltaOrder } from '../../api/delta/build-delta-order.js'
import type { DeltaPrice } from '../../api/delta/delta-price-schema.js'
import type { JsonObject } from '../../api/json.js'
import type { PermitPreference } from '../../chain/approval-plan.js'
import { requireChainClients } from '../../chain/chain-clients.js'
import { signDeltaOrder } from '../../chain/sign-delta-order.js'
import { resolveSpender, type Spender } from '../../chain/spender.js'
import type { Intent } from '../../domain/intents/intent-schema.js'
import { orderIdOf } from '../../domain/order-id.js'
import type { JournalOrder } from '../../journal/orders.js'
import { approveForTrade } from '../approve-for-trade.js'
import { recordBalanceBaselines } from './balance-baselines.js'
import { ExecutorStateError } from './execution-errors.js'
import type { ExecutorContext } from './executor-context.js'
import { deterministicNonce } from './order-identity.js'
import { submitStoredDeltaOrder } from './submit-stored.js'

/** How a Delta order is to be built from a price: the build fields beyond the route, owner, deadline, nonce and permit. */
export type DeltaOrderPlan = {
  intent: Exclude<Intent, { kind: 'cancel' | 'otc' }>
  price: DeltaPrice
  chainId: number
  destChainId: number
  srcToken: Address
  /** On destChainId. */
  destToken: Address
  beneficiary: Address
  side: 'SELL' | 'BUY'
  /** Unix seconds. */
  deadline: number
  build: Omit<BuildDeltaOrderParameters, 'route' | 'side' | 'owner' | 'beneficiary' | 'deadline' | 'nonce' | 'permit'>
  /** MARKET orders may carry a permit; LIMIT and TWAP orders settle over time and need an on-chain approval. */
  permitPreference: PermitPreference
  submit: { type: 'MARKET' | 'LIMIT'; partiallyFillable: boolean }
}

/** What the journal keeps of a signed Delta order: enough to submit it again, exactly as signed. */
export type StoredDeltaPayload = {
  chainId: number
  order: JsonObject
  signature: Hex
  primaryType: string
  type: 'MARKET' | 'LIMIT'
  partiallyFillable: boolean
}

/** What an order's approval, build and signature rest on: derived (and the balance baselines recorded) before anything is sent. */
export type DeltaOrderGround = {
  orderId: string
  spender: Spender<'delta'>
  /** Deterministic: a restart that builds the order again builds it with the same nonce. */
  nonce: bigint
  /** The most source the order may take as planned; a built order asking more is refused unsigned. */
  plannedMaxSrc: bigint
  /** The allowance to hold: the planned amount plus what the account's other open orders of the token can still pull. */
  required: bigint
}

/**
 * Approves (or permits), builds, signs, journals the signed order, then submits it once. The order is written before
 * the venue sees it; a restart finds it and resolves it by hash instead of building another.
 */
export async function executeDeltaOrder(context: ExecutorContext, plan: DeltaOrderPlan): Promise<JournalOrder> {
  const { journal, account, api } = context
  const stored = journal.getOrder({ id: orderIdOf(plan.intent.id) })
  if (stored) return stored.submitted ? stored : submitStoredDeltaOrder(context, stored)

  const chain = requireChainClients(context.chains, plan.chainId)
  const ground = await prepareDeltaOrder(context, plan)
  const { spender, required } = ground
  // Approve (or permit) first, for the most the order can take as planned, then build once with the permit: a token
  // that moves only by permit cannot even be built without one.
  const { permit, approvals } = await approveForTrade({
    chain,
    account,
    queue: context.queueFor(plan.chainId),
    spender,
    token: plan.srcToken,
    required,
    deadline: BigInt(plan.deadline),
    permitPreference: plan.permitPreference,
    policy: context.settings.approvalPolicy,
    settlesOverTime: plan.submit.type === 'LIMIT' || plan.build.orderType === 'TWAPOrder' || plan.build.orderType === 'TWAPBuyOrder',
  })
  for (const txHash of approvals) {
    journal.recordApproval({
      chainId: plan.chainId,
      owner: account.address,
      token: plan.srcToken,
      spender: spender.address,
      mode: 'approve',
      amount: context.settings.approvalPolicy === 'unlimited' ? maxUint256 : required,
      txHash,
    })
  }
  const built = await buildDeltaOrder(api, {
    ...plan.build,
    route: plan.price.route,
    side: plan.side,
    owner: account.address,
    beneficiary: plan.beneficiary,
    deadline: plan.deadline,
    nonce: ground.nonce,
    permit: permit ?? '0x',
  })
  const order = await signAndRecordDeltaOrder(context, plan, ground, { built, permit })
  return submitStoredDeltaOrder(context, order)
}

/** The order's id, spender, nonce and amounts, with the balance baselines recorded (read from the chain the first time). */
export async function prepareDeltaOrder(
  context: Pick<ExecutorContext, 'journal' | 'chains' | 'account' | 'contracts'>,
  plan: DeltaOrderPlan,
): Promise<DeltaOrderGround> {
  const orderId = orderIdOf(plan.intent.id)
  const spender = resolveSpender({ contracts: context.contracts, chainId: plan.chainId, mode: 'delta' })
  const nonce = deterministicNonce(context.account.address, orderId, 128)
  await recordBalanceBaselines(context, [
    { chainId: plan.chainId, tokens: plan.destChainId === plan.chainId ? [plan.srcToken, plan.destToken] : [plan.srcToken] },
    ...(plan.destChainId === plan.chainId ? [] : [{ chainId: plan.destChainId, tokens: [plan.destToken] }]),
  ])
  const plannedMaxSrc = plannedMaxSource(plan)
  // What the account's open Delta orders of this token can still pull: an approval for a new order must leave it to them
  // (an approve sets the allowance, it does not add to it).
  const required = plannedMaxSrc + context.journal.outstandingSourceAmount({ mode: 'delta', chainId: plan.chainId, token: plan.srcToken })
  return { orderId, spender, nonce, plannedMaxSrc, required }
}

/**
 * Checks the built order against the plan, signs it and journals the signed order (and the permit that travels with
 * it): everything between the build's answer and the submission.
 */
export async function signAndRecordDeltaOrder(
  context: Pick<ExecutorContext, 'journal' | 'account'>,
  plan: DeltaOrderPlan,
  ground: DeltaOrderGround,
  { built, permit }: { built: BuildDeltaOrderReturnType; permit: Hex | undefined },
): Promise<JournalOrder> {
  const { journal, account } = context
  const { orderId, spender, plannedMaxSrc } = ground
  const amounts = orderAmounts(built.toSign.value)
  if (amounts.maxSrc > plannedMaxSrc) {
    throw new ExecutorStateError('The built Delta order can take more source than was planned and approved', {
      details: { orderHash: built.orderHash, built: amounts.maxSrc.toString(), planned: plannedMaxSrc.toString() },
      hint: 'The venue computed the order differently from the quote; nothing was signed. Try again with a fresh quote.',
      errorClass: 'operational',
    })
  }
  const signed = await signDeltaOrder(account, { toSign: built.toSign, delta: spender, orderHash: built.orderHash })
  const payload: StoredDeltaPayload = {
    chainId: plan.chainId,
    order: built.toSign.value,
    signature: signed.signature,
    primaryType: signed.primaryType,
    ...plan.submit,
  }
  const order = journal.recordSignedOrder({
    id: orderId,
    intentId: plan.intent.id,
    mode: 'delta',
    account: account.address,
    beneficiary: plan.beneficiary,
    chainId: plan.chainId,
    destChainId: plan.destChainId,
    orderHash: signed.orderHash,
    nonce: ground.nonce,
    deadline: plan.deadline,
    srcToken: plan.srcToken,
    destToken: plan.destToken,
    srcAmount: amounts.maxSrc,
    destAmount: amounts.minDest,
    side: plan.side,
    signedPayload: payload,
  })
  if (permit !== undefined && permit.length > 4) {
    journal.recordApproval({
      chainId: plan.chainId,
      owner: account.address,
      token: plan.srcToken,
      spender: spender.address,
      mode: 'permit',
      amount: amounts.maxSrc,
      permitKind: `delta-permit-${(permit.length - 2) / 2}`,
      permitHash: keccak256(permit),
      orderId,
    })
  }
  return order
}

/** The most source the order will take, from the plan as the build computes it (a BUY adds its slippage, rounded up). */
function plannedMaxSource(plan: DeltaOrderPlan): bigint {
  const { build } = plan
  if (build.orderType === 'TWAPOrder' && build.totalSrcAmount !== undefined) return build.totalSrcAmount
  if (build.orderType === 'TWAPBuyOrder' && build.maxSrcAmount !== undefined) return build.maxSrcAmount
  const input = plan.price.route.origin.input.amount
  if (plan.side === 'SELL') return input
  if (build.limitAmount !== undefined) return build.limitAmount
  const numerator = input * BigInt(10_000 + (build.slippage ?? 100))
  return numerator === 0n ? 0n : (numerator - 1n) / 10_000n + 1n
}

/** The most source the order can take and the least destination it gives, from the signed struct. */
function orderAmounts(value: JsonObject): { maxSrc: bigint; minDest: bigint } {
  const field = (name: string): bigint | undefined => (value[name] === undefined ? undefined : BigInt(String(value[name])))
  const slices = field('numSlices')
  const perSlice = field('destAmountPerSlice')
  return {
    maxSrc: field('srcAmount') ?? field('totalSrcAmount') ?? field('maxSrcAmount') ?? 0n,
    minDest: field('destAmount') ?? field('totalDestAmount') ?? (perSlice !== undefined && slices !== undefined ? perSlice * slices : 0n),
  }
}
