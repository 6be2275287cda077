import type { Address } from 'viem'
import type { DeltaPrice } from '../../api/delta/delta-price-schema.js'
import { getDeltaPrices } from '../../api/delta/get-delta-prices.js'
import type { Intent } from '../../domain/intents/intent-schema.js'
import { unixSeconds } from '../../time/clock.js'
import type { RiskQuote } from '../risk/intent-spend.js'
import type { DeltaOrderPlan } from './delta-order-flow.js'
import type { ExecutorContext } from './executor-context.js'
import { priceImpactPercent } from './price-impact.js'

type DeltaOnlyIntent = Extract<Intent, { kind: 'limit' | 'twap-sell' | 'twap-buy' | 'crosschain' }>

/** A Delta-only intent priced and turned into the order to build, with what the risk limits check against. */
export type PricedDeltaIntent = {
  plan: DeltaOrderPlan
  riskQuote: RiskQuote
  /** Why the intent's own price guard refuses the quote (a TWAP buy slice costing more than maxSrcAmountPerSlice). */
  priceGuard?: string | undefined
}

/**
 * Prices a LIMIT, TWAP or crosschain intent on Delta and plans its order: a LIMIT at the intent's destination amount
 * (partially fillable if asked), a TWAP over one slice's route, a crosschain swap over the recommended bridge route.
 */
export async function planDeltaIntent(context: ExecutorContext, intent: DeltaOnlyIntent): Promise<PricedDeltaIntent> {
  const now = unixSeconds(context.clock)
  const owner = context.account.address
  const destChainId = intent.kind === 'crosschain' ? intent.destChainId : intent.chainId
  const [srcDecimals, destDecimals] = await Promise.all([
    context.decimalsOf(intent.chainId, intent.srcToken),
    context.decimalsOf(destChainId, intent.destToken),
  ])
  const price = (amount: bigint, side: 'SELL' | 'BUY', beneficiary?: Address): Promise<DeltaPrice> =>
    getDeltaPrices(context.api, {
      chainId: intent.chainId,
      srcToken: intent.srcToken,
      destToken: intent.destToken,
      amount,
      srcDecimals,
      destDecimals,
      side,
      userAddress: owner,
      ...(destChainId === intent.chainId ? {} : { destChainId }),
      ...(beneficiary === undefined ? {} : { beneficiary }),
    })
  const common = { intent, chainId: intent.chainId, destChainId, srcToken: intent.srcToken, destToken: intent.destToken }
  switch (intent.kind) {
    case 'limit': {
      const quoted = await price(intent.srcAmount, 'SELL')
      return {
        plan: {
          ...common,
          price: quoted,
          beneficiary: owner,
          side: 'SELL',
          deadline: now + intent.validitySeconds,
          build: { limitAmount: intent.destAmount, partiallyFillable: intent.partiallyFillable, type: 'LIMIT', slippage: 0 },
          permitPreference: 'onchain',
          submit: { type: 'LIMIT', partiallyFillable: intent.partiallyFillable },
        },
        // A LIMIT waits for its price: the quote's impact says nothing about the fill.
        riskQuote: {},
      }
    }
    case 'twap-sell': {
      const quoted = await price(intent.totalSrcAmount / BigInt(intent.numSlices), 'SELL')
      return {
        plan: {
          ...common,
          price: quoted,
          beneficiary: owner,
          side: 'SELL',
          deadline: now + intent.numSlices * intent.intervalSeconds + context.settings.twapDeadlineSlackSeconds,
          build: {
            orderType: 'TWAPOrder',
            interval: intent.intervalSeconds,
            numSlices: intent.numSlices,
            totalSrcAmount: intent.totalSrcAmount,
            slippage: intent.maxSlippageBps,
            ...(intent.minDestAmountPerSlice === undefined ? {} : { limitAmount: intent.minDestAmountPerSlice }),
          },
          permitPreference: 'onchain',
          submit: { type: 'MARKET', partiallyFillable: false },
        },
        riskQuote: { priceImpactPercent: priceImpactPercent({ delta: quoted }) },
      }
    }
    case 'twap-buy': {
      const quoted = await price(intent.totalDestAmount / BigInt(intent.numSlices), 'BUY')
      // The contract lets each slice spend at most maxSrcAmount / numSlices: the per-slice guard holds for every
      // slice, not only the one quoted now, when the signed total is capped at numSlices times it.
      const perSliceCap = intent.maxSrcAmountPerSlice === undefined ? undefined : intent.maxSrcAmountPerSlice * BigInt(intent.numSlices)
      const maxSrcAmount = perSliceCap !== undefined && perSliceCap < intent.maxSrcAmount ? perSliceCap : intent.maxSrcAmount
      return {
        plan: {
          ...common,
          price: quoted,
          beneficiary: owner,
          side: 'BUY',
          deadline: now + intent.numSlices * intent.intervalSeconds + context.settings.twapDeadlineSlackSeconds,
          build: {
            orderType: 'TWAPBuyOrder',
            interval: intent.intervalSeconds,
            numSlices: intent.numSlices,
            totalDestAmount: intent.totalDestAmount,
            maxSrcAmount,
            slippage: intent.maxSlippageBps,
          },
          permitPreference: 'onchain',
          submit: { type: 'MARKET', partiallyFillable: false },
        },
        riskQuote: { priceImpactPercent: priceImpactPercent({ delta: quoted }) },
        priceGuard:
          intent.maxSrcAmountPerSlice !== undefined && quoted.route.origin.input.amount > intent.maxSrcAmountPerSlice
            ? `a slice costs ${quoted.route.origin.input.amount} raw units of ${intent.srcToken} at the quote, above maxSrcAmountPerSlice ${intent.maxSrcAmountPerSlice}`
            : undefined,
      }
    }
    case 'crosschain': {
      const beneficiary = intent.beneficiary ?? owner
      const quoted = await price(intent.amount, intent.side, beneficiary)
      return {
        plan: {
          ...common,
          price: quoted,
          beneficiary,
          side: intent.side,
          deadline: now + context.settings.deltaValiditySeconds,
          build: { slippage: intent.maxSlippageBps },
          permitPreference: context.settings.permitPreference,
          submit: { type: 'MARKET', partiallyFillable: false },
        },
        riskQuote: { srcAmount: quoted.route.origin.input.amount, priceImpactPercent: priceImpactPercent({ delta: quoted }) },
      }
    }
  }
}
