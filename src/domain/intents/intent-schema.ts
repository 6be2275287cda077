import { z } from 'zod'
import { nativeTokenPlaceholder } from '../../protocol/addresses.js'
import {
  integerAtLeast,
  intentAddressSchema,
  intentAmountSchema,
  intentChainIdSchema,
  intentSideSchema,
  nonEmptyNameSchema,
  priceImpactPercentSchema,
  slippageBpsSchema,
  unixMillisecondsSchema,
  unixSecondsSchema,
} from './intent-fields.js'

// What a strategy asks for: plain data, validated here, executed by the executor. Every object is strict (an unknown
// key is refused, so a misspelt limit cannot be silently ignored). Amounts are raw units (bigint after parsing).

/** Who asked. `id` comes from intentId(); `createdAt` is unix ms of the strategy's Clock and is not part of the id. */
const header = {
  strategy: nonEmptyNameSchema('a strategy name (non-empty string)'),
  id: nonEmptyNameSchema('an intent id (non-empty string, see intentId())'),
  createdAt: unixMillisecondsSchema,
}

/** Limits every priced trade carries: what the strategy tolerates; the risk limits may be tighter. */
const tradeLimits = {
  /** Basis points (100 = 1 %). */
  maxSlippageBps: slippageBpsSchema,
  /** Percent (15 = 15 %), as the service's maxImpact. */
  maxPriceImpactPercent: priceImpactPercentSchema,
}

const swapFields = {
  kind: z.literal('swap'),
  chainId: intentChainIdSchema,
  srcToken: intentAddressSchema,
  destToken: intentAddressSchema,
  /** Source amount for SELL, destination amount for BUY. */
  amount: intentAmountSchema,
  side: intentSideSchema,
  /** `auto` lets chooseMode compare both; `delta` or `market` forces that mode for this intent. */
  mode: z.enum(['delta', 'market', 'auto'], { error: 'expected delta, market or auto' }).default('auto'),
  ...tradeLimits,
}

const limitFields = {
  kind: z.literal('limit'),
  chainId: intentChainIdSchema,
  srcToken: intentAddressSchema,
  destToken: intentAddressSchema,
  srcAmount: intentAmountSchema,
  /** The limit: the least destination amount accepted for the whole srcAmount. */
  destAmount: intentAmountSchema,
  partiallyFillable: z.boolean({ error: 'expected true or false' }).default(false),
  /** How long the order stays open, in seconds. */
  validitySeconds: integerAtLeast(60, 'seconds'),
}

const twapTiming = {
  /** At least 2 (section 8). */
  numSlices: integerAtLeast(2, 'slices'),
  /** Seconds between slices, at least 60 (section 8). */
  intervalSeconds: integerAtLeast(60, 'seconds'),
}

const twapSellFields = {
  kind: z.literal('twap-sell'),
  chainId: intentChainIdSchema,
  srcToken: intentAddressSchema,
  destToken: intentAddressSchema,
  totalSrcAmount: intentAmountSchema,
  ...twapTiming,
  /** Price guard: a slice giving less than this is not taken. */
  minDestAmountPerSlice: intentAmountSchema.optional(),
  ...tradeLimits,
}

const twapBuyFields = {
  kind: z.literal('twap-buy'),
  chainId: intentChainIdSchema,
  srcToken: intentAddressSchema,
  destToken: intentAddressSchema,
  totalDestAmount: intentAmountSchema,
  /** The most source spent over all slices. */
  maxSrcAmount: intentAmountSchema,
  ...twapTiming,
  /** Price guard: a slice costing more than this is not taken. */
  maxSrcAmountPerSlice: intentAmountSchema.optional(),
  ...tradeLimits,
}

const crosschainFields = {
  kind: z.literal('crosschain'),
  chainId: intentChainIdSchema,
  destChainId: intentChainIdSchema,
  srcToken: intentAddressSchema,
  /** On destChainId. */
  destToken: intentAddressSchema,
  amount: intentAmountSchema,
  side: intentSideSchema,
  /** Receiver on destChainId; the wallet itself when absent. */
  beneficiary: intentAddressSchema.optional(),
  ...tradeLimits,
}

const otcFields = {
  kind: z.literal('otc'),
  chainId: intentChainIdSchema,
  /** ERC-20 only (wrap the native asset first). */
  makerAsset: intentAddressSchema,
  takerAsset: intentAddressSchema,
  makerAmount: intentAmountSchema,
  takerAmount: intentAmountSchema,
  /** The named counterparty; the zero address makes the order open to anyone. */
  taker: intentAddressSchema,
  /** Unix seconds. */
  expiry: unixSecondsSchema,
}

const idList = z.array(nonEmptyNameSchema('an id (non-empty string)'), { error: 'expected an array of ids' }).default([])

const cancelFields = {
  kind: z.literal('cancel'),
  /** Intents of this strategy whose orders are to be cancelled. */
  intentIds: idList,
  /** Orders by the service's id (Delta order uuid or OTC order hash). */
  orderIds: idList,
}

/** Every kind of intent, in the order the contract documents them. */
export const intentKinds = ['swap', 'limit', 'twap-sell', 'twap-buy', 'crosschain', 'otc', 'cancel'] as const

const kindError = { error: `expected kind to be one of ${intentKinds.join(', ')}` }

/** A validated intent: the schema is the type. */
export const intentSchema = z
  .discriminatedUnion(
    'kind',
    [
      z.strictObject({ ...header, ...swapFields }),
      z.strictObject({ ...header, ...limitFields }),
      z.strictObject({ ...header, ...twapSellFields }),
      z.strictObject({ ...header, ...twapBuyFields }),
      z.strictObject({ ...header, ...crosschainFields }),
      z.strictObject({ ...header, ...otcFields }),
      z.strictObject({ ...header, ...cancelFields }),
    ],
    kindError,
  )
  .superRefine((intent, context) => checkIntentRules(intent, context))

export type Intent = z.output<typeof intentSchema>
export type IntentInput = z.input<typeof intentSchema>
export type IntentKind = Intent['kind']

/** An intent before it has an id and a timestamp: what a strategy writes and what intentId() hashes. */
export const intentContentSchema = z
  .discriminatedUnion(
    'kind',
    [
      z.strictObject({ strategy: header.strategy, ...swapFields }),
      z.strictObject({ strategy: header.strategy, ...limitFields }),
      z.strictObject({ strategy: header.strategy, ...twapSellFields }),
      z.strictObject({ strategy: header.strategy, ...twapBuyFields }),
      z.strictObject({ strategy: header.strategy, ...crosschainFields }),
      z.strictObject({ strategy: header.strategy, ...otcFields }),
      z.strictObject({ strategy: header.strategy, ...cancelFields }),
    ],
    kindError,
  )
  .superRefine((intent, context) => checkIntentRules(intent, context))

export type IntentContent = z.output<typeof intentContentSchema>
export type IntentContentInput = z.input<typeof intentContentSchema>

type RuleContext = { addIssue: (issue: { code: 'custom'; message: string; path: PropertyKey[]; input: unknown }) => void }

/** Rules across fields (the service would refuse these later, with less to go on). */
function checkIntentRules(intent: IntentContent, context: RuleContext): void {
  const refuse = (field: string, message: string, input: unknown) => context.addIssue({ code: 'custom', message, path: [field], input })
  switch (intent.kind) {
    case 'swap':
    case 'limit':
    case 'twap-sell':
    case 'twap-buy':
      if (intent.srcToken === intent.destToken)
        refuse('destToken', `expected a token other than srcToken, received ${intent.destToken}`, intent.destToken)
      break
    case 'crosschain':
      if (intent.destChainId === intent.chainId) {
        refuse(
          'destChainId',
          `expected a chain other than chainId ${intent.chainId} (use kind swap for same-chain), received ${intent.destChainId}`,
          intent.destChainId,
        )
      }
      break
    case 'otc':
      if (intent.makerAsset === intent.takerAsset)
        refuse('takerAsset', `expected a token other than makerAsset, received ${intent.takerAsset}`, intent.takerAsset)
      if (intent.makerAsset === nativeTokenPlaceholder)
        refuse('makerAsset', 'expected an ERC-20 token (wrap the native asset first), received the native placeholder', intent.makerAsset)
      break
    case 'cancel':
      if (intent.intentIds.length + intent.orderIds.length === 0)
        refuse('intentIds', 'expected at least one intent id or order id, received none', intent.intentIds)
      break
  }
  // Every slice must be at least 1 wei (section 8): the service refuses totals below numSlices.
  if (intent.kind === 'twap-sell' && intent.totalSrcAmount < BigInt(intent.numSlices)) {
    refuse(
      'totalSrcAmount',
      `expected at least numSlices (${intent.numSlices}) raw units so no slice rounds to 0, received ${intent.totalSrcAmount}`,
      intent.totalSrcAmount,
    )
  }
  if (intent.kind === 'twap-buy') {
    for (const field of ['totalDestAmount', 'maxSrcAmount'] as const) {
      if (intent[field] < BigInt(intent.numSlices)) {
        refuse(
          field,
          `expected at least numSlices (${intent.numSlices}) raw units so no slice rounds to 0, received ${intent[field]}`,
          intent[field],
        )
      }
    }
  }
}
