import type { Intent } from '../../domain/intents/intent-schema.js'
import { tokenKey } from './risk-limits-schema.js'

/** What the executor learnt from pricing the intent, when it has priced it. */
export type RiskQuote = {
  /** Source raw units the quote asks for (the input of a BUY). */
  srcAmount?: bigint | undefined
  /** Price impact of the quote, percent. */
  priceImpactPercent?: number | undefined
}

export type IntentSpend =
  | {
      /** tokenKey of the source token. */
      token: string
      /** Most raw units the intent can spend. */
      amount: bigint
      /** Raw units of one trade: the amount, or one TWAP slice. */
      perTrade: bigint
    }
  | { token: string; quoteRequired: true }

/**
 * The most of its source token an intent can spend: SELL amounts as given, a BUY's quoted source plus its slippage
 * allowance, a TWAP buy's maxSrcAmount, an OTC order's makerAmount. Undefined for a cancel (it spends nothing).
 */
export function intentSpend(intent: Intent, quote: RiskQuote | undefined): IntentSpend | undefined {
  switch (intent.kind) {
    case 'swap':
    case 'crosschain': {
      const token = tokenKey(intent.chainId, intent.srcToken)
      if (intent.side === 'SELL') return { token, amount: intent.amount, perTrade: intent.amount }
      if (quote?.srcAmount === undefined) return { token, quoteRequired: true }
      const amount = ceilDiv(quote.srcAmount * BigInt(10_000 + intent.maxSlippageBps), 10_000n)
      return { token, amount, perTrade: amount }
    }
    case 'limit':
      return { token: tokenKey(intent.chainId, intent.srcToken), amount: intent.srcAmount, perTrade: intent.srcAmount }
    case 'twap-sell':
      return {
        token: tokenKey(intent.chainId, intent.srcToken),
        amount: intent.totalSrcAmount,
        perTrade: intent.totalSrcAmount / BigInt(intent.numSlices),
      }
    case 'twap-buy':
      return {
        token: tokenKey(intent.chainId, intent.srcToken),
        amount: intent.maxSrcAmount,
        perTrade: intent.maxSrcAmount / BigInt(intent.numSlices),
      }
    case 'otc':
      return { token: tokenKey(intent.chainId, intent.makerAsset), amount: intent.makerAmount, perTrade: intent.makerAmount }
    case 'cancel':
      return undefined
  }
}

function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator
}
