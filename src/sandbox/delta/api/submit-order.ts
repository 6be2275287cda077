import { randomUUID } from 'node:crypto'
import type { Hex } from 'viem'
import { z } from 'zod'
import { nativeTokenPlaceholder } from '../../../protocol/addresses.js'
import { type DeltaPermitType, decodeDeltaPermit } from '../../../protocol/delta-permit.js'
import { ApiError, commonErrors } from '../../server/api-error.js'
import { parseRequestPart } from '../../server/validate.js'
import type { OnChainOrderType, SignedStruct, StoredDeltaOrder } from '../order-store.js'
import type { DeltaApiContext } from './delta-api-context.js'
import { requireDeltaChain } from './delta-chains.js'
import { deltaError, deltaErrors } from './delta-errors.js'
import { type DeltaOrderJson, formatDeltaOrder } from './format-order.js'
import { type ReadSpendableParameters, readSpendable } from './funds-check.js'
import { submittedOrderSchema } from './order-wire.js'
import { verifySignature } from './signature-check.js'
import { hashSignedStruct, type StructFacts, structFacts } from './signed-struct.js'
import { addressSchema, hexSchema } from './wire.js'

/** SubmitOrderV2Request (section 4.1). */
const submitBodySchema = z.object({
  chainId: z.number().int(),
  order: z.record(z.string(), z.unknown()),
  signature: hexSchema,
  partner: z.string(),
  type: z.enum(['MARKET', 'LIMIT']).default('MARKET'),
  referrerAddress: addressSchema.optional(),
  partiallyFillable: z.boolean().default(false),
  includeAgents: z.array(z.string()).optional(),
  excludeAgents: z.array(z.string()).optional(),
})

type SubmitBody = z.infer<typeof submitBodySchema>

/**
 * POST /v2/delta/orders: verifies the owner's signature over the order under the chain's Portikus domain, the
 * deadline and TWAP rules, the permit policy, then allowance and balance (one batched RPC round trip), and stores the
 * order as PENDING. Submitting an order already stored (same hash) returns the stored order.
 */
export async function submitDeltaOrder({ venue, store }: DeltaApiContext, rawBody: unknown): Promise<DeltaOrderJson> {
  const body = parseRequestPart(submitBodySchema, rawBody, 'body')
  const { chain, delta } = requireDeltaChain(venue, body.chainId)
  const { order: signed } = parseRequestPart(submittedOrderSchema, body, 'body')
  const facts = structFacts(signed)
  const orderHash = hashSignedStruct(signed, { chainId: chain.chainId, verifyingContract: delta })
  const signature = await verifySignature({ chain, signer: facts.owner, digest: orderHash, signature: body.signature })
  if (!signature) {
    throw deltaError(
      deltaErrors.invalidSignature,
      `the signature does not recover to order.owner ${facts.owner} over the Portikus domain of chain ${chain.chainId}`,
    )
  }
  const known = store.getByHash(orderHash)
  if (known) return formatDeltaOrder(known)

  const now = BigInt(Math.floor(venue.clock.now() / 1000))
  if (now > facts.deadline) throw deltaError(deltaErrors.orderExpired, `deadline ${facts.deadline} is before now ${now}`)
  checkTwapRules(signed, now)
  const destChainId = facts.destinationChainId === 0n ? chain.chainId : Number(facts.destinationChainId)
  if (!venue.chains.has(destChainId)) {
    throw new ApiError(commonErrors.validation, {
      message: `Validation failed: body.order.bridge.destinationChainId: chain ${destChainId} is not running in this sandbox`,
    })
  }
  const permitType = permitTypeOf(facts.permit)
  if (
    (body.type === 'LIMIT' || body.partiallyFillable || signed.kind === 'TWAPOrder' || signed.kind === 'TWAPBuyOrder') &&
    !isOnChainApproval(permitType)
  ) {
    throw deltaError(deltaErrors.permitNotAllowed, `a ${permitType} permit cannot back an order that settles over time`)
  }
  await checkFunds({ chain, delta, facts, permitType, now })

  const stored = store.getByHash(orderHash)
  if (stored) return formatDeltaOrder(stored)
  return formatDeltaOrder(store.add(newStoredOrder(venue.clock.now(), body, { signed, facts, orderHash, signature, destChainId })))
}

function checkTwapRules(signed: SignedStruct, now: bigint): void {
  if (signed.kind !== 'TWAPOrder' && signed.kind !== 'TWAPBuyOrder') return
  const { order } = signed
  const slices = BigInt(order.numSlices)
  if (order.interval < 60n || order.numSlices < 2) {
    throw deltaError(
      signed.kind === 'TWAPOrder' ? deltaErrors.invalidTwapParams : deltaErrors.invalidTwapBuyParams,
      'interval must be >= 60 and numSlices >= 2',
    )
  }
  if (signed.kind === 'TWAPOrder' && signed.order.totalSrcAmount < slices) throw deltaError(deltaErrors.twapTotalSrc)
  if (signed.kind === 'TWAPBuyOrder' && signed.order.totalDestAmount < slices) throw deltaError(deltaErrors.twapTotalDest)
  if (signed.kind === 'TWAPBuyOrder' && signed.order.maxSrcAmount < slices) throw deltaError(deltaErrors.twapMaxSrc)
  const earliest = now + slices * order.interval
  if (order.deadline < earliest)
    throw deltaError(deltaErrors.twapDeadline, `deadline ${order.deadline} is before now + numSlices x interval = ${earliest}`)
}

function permitTypeOf(permit: Hex): DeltaPermitType {
  try {
    return decodeDeltaPermit(permit).type
  } catch (cause) {
    throw new ApiError(commonErrors.validation, {
      message: `Validation failed: body.order.permit: ${(cause as Error).message.split('\n')[0]}`,
    })
  }
}

function isOnChainApproval(permitType: DeltaPermitType): boolean {
  return permitType === 'none' || permitType === 'permit2Approved'
}

type CheckFundsParameters = Omit<ReadSpendableParameters, 'owner' | 'token' | 'native'> & { facts: StructFacts }

/** The owner must have approved and hold the most source the order can take. */
async function checkFunds({ chain, delta, facts, permitType, now }: CheckFundsParameters): Promise<void> {
  const native = facts.srcToken.toLowerCase() === nativeTokenPlaceholder.toLowerCase()
  const { allowance, balance } = await readSpendable({ chain, delta, owner: facts.owner, token: facts.srcToken, native, permitType, now })
  const needed = facts.maxSrcAmount
  if (allowance < needed) {
    const spender =
      permitType === 'permit2Approved' ? `Permit2 (and Permit2's to the Delta contract ${delta})` : `the Delta contract ${delta}`
    throw deltaError(deltaErrors.insufficientAllowance, `allowance ${allowance} of ${facts.srcToken} to ${spender} is below ${needed}`)
  }
  if (balance < needed) {
    const held = native ? `deposit in the Delta contract` : `balance of ${facts.srcToken}`
    throw deltaError(deltaErrors.insufficientBalance, `${held} is ${balance}, below ${needed}`)
  }
}

function onChainOrderTypeOf(signed: SignedStruct, partiallyFillable: boolean): OnChainOrderType {
  if (signed.kind === 'Order') return partiallyFillable ? 'FillableOrder' : 'Order'
  return signed.kind
}

function newStoredOrder(
  now: number,
  body: SubmitBody,
  parsed: { signed: SignedStruct; facts: StructFacts; orderHash: Hex; signature: Hex; destChainId: number },
): StoredDeltaOrder {
  const { signed, facts } = parsed
  return {
    id: randomUUID(),
    chainId: body.chainId,
    destChainId: parsed.destChainId,
    status: 'PENDING',
    side: facts.side,
    type: body.type,
    onChainOrderType: onChainOrderTypeOf(signed, body.partiallyFillable),
    orderHash: parsed.orderHash,
    owner: facts.owner,
    beneficiary: facts.beneficiary,
    partner: body.partner,
    signed,
    orderWire: body.order,
    signature: parsed.signature,
    partiallyFillable: body.partiallyFillable,
    includeAgents: body.includeAgents,
    excludeAgents: body.excludeAgents,
    referrerAddress: body.referrerAddress,
    filledSrcAmount: 0n,
    filledDestAmount: 0n,
    transactions: [],
    refunds: [],
    cancelQueued: false,
    auctionInFlight: false,
    createdAt: now,
    updatedAt: now,
    expiresAt: Number(facts.deadline) * 1000,
    history: [],
  }
}
