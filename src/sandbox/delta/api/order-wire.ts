import type { Address, Hex } from 'viem'
import { z } from 'zod'
import type { DeltaBridge, DeltaOrder, ExternalOrder, TwapBuyOrder, TwapOrder } from '../../../protocol/delta-order.js'
import type { SignedStruct } from '../order-store.js'
import { hexSchema, uintSchema } from './wire.js'

// The signed struct on the wire (`toSign.value` of the build, `order` of the submission): amounts as decimal strings,
// and numbers where the real service writes numbers (deadline, kind, interval, numSlices, bridge.destinationChainId,
// bridge.scalingFactor).

export type OrderWire = Record<string, unknown>

export function bridgeToWire(bridge: DeltaBridge): OrderWire {
  return {
    protocolSelector: bridge.protocolSelector,
    destinationChainId: Number(bridge.destinationChainId),
    outputToken: bridge.outputToken,
    scalingFactor: bridge.scalingFactor,
    protocolData: bridge.protocolData,
  }
}

export function deltaOrderToWire(order: DeltaOrder): OrderWire {
  return {
    owner: order.owner,
    beneficiary: order.beneficiary,
    srcToken: order.srcToken,
    destToken: order.destToken,
    srcAmount: order.srcAmount.toString(),
    destAmount: order.destAmount.toString(),
    expectedAmount: order.expectedAmount.toString(),
    deadline: Number(order.deadline),
    kind: order.kind,
    nonce: order.nonce.toString(),
    partnerAndFee: order.partnerAndFee.toString(),
    permit: order.permit,
    metadata: order.metadata,
    bridge: bridgeToWire(order.bridge),
  }
}

function twapHeadToWire(order: TwapOrder | TwapBuyOrder): OrderWire {
  return {
    owner: order.owner,
    beneficiary: order.beneficiary,
    srcToken: order.srcToken,
    destToken: order.destToken,
    nonce: order.nonce.toString(),
    partnerAndFee: order.partnerAndFee.toString(),
    deadline: Number(order.deadline),
    interval: Number(order.interval),
    numSlices: order.numSlices,
  }
}

export function twapOrderToWire(order: TwapOrder): OrderWire {
  return {
    ...twapHeadToWire(order),
    destAmountPerSlice: order.destAmountPerSlice.toString(),
    totalSrcAmount: order.totalSrcAmount.toString(),
    permit: order.permit,
    metadata: order.metadata,
    bridge: bridgeToWire(order.bridge),
  }
}

export function twapBuyOrderToWire(order: TwapBuyOrder): OrderWire {
  return {
    ...twapHeadToWire(order),
    totalDestAmount: order.totalDestAmount.toString(),
    maxSrcAmount: order.maxSrcAmount.toString(),
    permit: order.permit,
    metadata: order.metadata,
    bridge: bridgeToWire(order.bridge),
  }
}

export function externalOrderToWire(order: ExternalOrder): OrderWire {
  return {
    owner: order.owner,
    handler: order.handler,
    srcToken: order.srcToken,
    destToken: order.destToken,
    srcAmount: order.srcAmount.toString(),
    destAmount: order.destAmount.toString(),
    expectedAmount: order.expectedAmount.toString(),
    deadline: Number(order.deadline),
    kind: order.kind,
    nonce: order.nonce.toString(),
    partnerAndFee: order.partnerAndFee.toString(),
    permit: order.permit,
    metadata: order.metadata,
    data: order.data,
  }
}

export function signedStructToWire(signed: SignedStruct): OrderWire {
  switch (signed.kind) {
    case 'Order':
      return deltaOrderToWire(signed.order)
    case 'TWAPOrder':
      return twapOrderToWire(signed.order)
    case 'TWAPBuyOrder':
      return twapBuyOrderToWire(signed.order)
    case 'ExternalOrder':
      return externalOrderToWire(signed.order)
  }
}

// ---------------------------------------------------------------- parsing

/** Any case on the wire; lowercase inside (the hash covers the bytes, not the spelling, and checksums cost a keccak each). */
const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'expected an address (0x + 40 hex)')
  .transform((value) => value.toLowerCase() as Address)
const kind = z.union([z.literal(0), z.literal(1)])
const uintMax = (bits: number) => uintSchema.refine((value) => value < 1n << BigInt(bits), `expected a uint${bits}`)
const uint256 = uintMax(256)

const bridgeSchema = z.strictObject({
  protocolSelector: z
    .string()
    .regex(/^0x[0-9a-fA-F]{8}$/, 'expected 4 bytes of hex')
    .transform((value) => value as Hex),
  destinationChainId: uint256,
  outputToken: address,
  scalingFactor: z.number().int().min(-128).max(127),
  protocolData: hexSchema,
})

const orderSchema = z.strictObject({
  owner: address,
  beneficiary: address,
  srcToken: address,
  destToken: address,
  srcAmount: uint256,
  destAmount: uint256,
  expectedAmount: uint256,
  deadline: uint256,
  kind,
  nonce: uint256,
  partnerAndFee: uint256,
  permit: hexSchema,
  metadata: hexSchema,
  bridge: bridgeSchema,
})

const twapHead = {
  owner: address,
  beneficiary: address,
  srcToken: address,
  destToken: address,
  nonce: uint256,
  partnerAndFee: uint256,
  deadline: uintMax(64),
  interval: uintMax(64),
  numSlices: z.number().int().min(0).max(0xffffffff),
  permit: hexSchema,
  metadata: hexSchema,
  bridge: bridgeSchema,
}

const twapOrderSchema = z.strictObject({ ...twapHead, destAmountPerSlice: uint256, totalSrcAmount: uint256 })
const twapBuyOrderSchema = z.strictObject({ ...twapHead, totalDestAmount: uint256, maxSrcAmount: uint256 })

const externalOrderSchema = z.strictObject({
  owner: address,
  handler: address,
  srcToken: address,
  destToken: address,
  srcAmount: uint256,
  destAmount: uint256,
  expectedAmount: uint256,
  deadline: uint256,
  kind,
  nonce: uint256,
  partnerAndFee: uint256,
  permit: hexSchema,
  metadata: hexSchema,
  data: hexSchema,
})

const signedStructSchemas = {
  Order: orderSchema.transform((order): SignedStruct => ({ kind: 'Order', order })),
  TWAPOrder: twapOrderSchema.transform((order): SignedStruct => ({ kind: 'TWAPOrder', order })),
  TWAPBuyOrder: twapBuyOrderSchema.transform((order): SignedStruct => ({ kind: 'TWAPBuyOrder', order })),
  ExternalOrder: externalOrderSchema.transform((order): SignedStruct => ({ kind: 'ExternalOrder', order })),
}

/** The `order` of a submission, parsed strictly as the struct its fields name (TWAP fields, a handler). */
export const submittedOrderSchema = z.object({
  order: z.record(z.string(), z.unknown()).transform((wire, context): SignedStruct => {
    const result = signedStructSchemas[structKindOf(wire)].safeParse(wire)
    if (result.success) return result.data
    for (const issue of result.error.issues) context.addIssue({ ...issue, path: issue.path } as never)
    return z.NEVER
  }),
})

function structKindOf(fields: Readonly<Record<string, unknown>>): SignedStruct['kind'] {
  if ('totalDestAmount' in fields || 'maxSrcAmount' in fields) return 'TWAPBuyOrder'
  if ('interval' in fields || 'numSlices' in fields || 'totalSrcAmount' in fields) return 'TWAPOrder'
  if ('handler' in fields) return 'ExternalOrder'
  return 'Order'
}
