import type { DeltaPrice } from '../../api/delta/delta-price-schema.js'
import type { MarketPriceRoute } from '../../api/market/price-route-schema.js'
import { ModeUnavailableError, resolveSpender, type TradingMode } from '../../chain/spender.js'
import type { Intent } from '../../domain/intents/intent-schema.js'
import { BaseError } from '../../errors/base.js'
import { nativeTokenPlaceholder } from '../../protocol/addresses.js'
import { chooseMode, type ModeChoice } from '../mode/choose-mode.js'
import { quoteTrade, type TradeQuotes } from '../quote-trade.js'
import type { RiskQuote } from '../risk/intent-spend.js'
import type { ExecutorContext } from './executor-context.js'
import { priceImpactPercent } from './price-impact.js'

export type PricedSwap = {
  choice: ModeChoice
  /** What the service's unified quote (/v2/quote, mode ALL) would have chosen, when asked. */
  serviceChoice: 'delta' | 'market' | undefined
  delta: DeltaPrice | undefined
  market: MarketPriceRoute | undefined
  /** Of the chosen mode's quote. */
  riskQuote: RiskQuote
}

/**
 * Prices a same-chain swap in both modes (the mode a chain lacks is `unavailable`, and is not asked for), asks the
 * unified quote for the service's own pick when both are quoted, and chooses by comparing net amounts (gas, fees and
 * the Delta partner fee) under the preference and the intent's override.
 */
/** Delta takes the native asset only as a deposit held by the Delta contract, which the executor does not make. */
export class NativeDeltaSourceError extends BaseError {
  override name = 'NativeDeltaSourceError'
  constructor() {
    super('selling the native asset through Delta needs a deposit into the Delta contract, which deltaflow does not make', {
      hint: 'Sell the wrapped token (WETH) through Delta, or let Market take the native asset.',
      errorClass: 'operational',
    })
  }
}

export async function priceSwap(context: ExecutorContext, intent: Extract<Intent, { kind: 'swap' }>): Promise<PricedSwap> {
  const available = (mode: TradingMode): ModeUnavailableError | undefined => {
    try {
      resolveSpender({ contracts: context.contracts, chainId: intent.chainId, mode })
      return undefined
    } catch (error) {
      if (error instanceof ModeUnavailableError) return error
      throw error
    }
  }
  const deltaMissing = available('delta')
  const nativeSource = intent.srcToken.toLowerCase() === nativeTokenPlaceholder.toLowerCase()
  const marketMissing = available('market')
  // Every mode the chain has is quoted, an override too: the journal then shows what the override gave up, and a
  // mode the intent did not ask for is never recorded as missing from the chain.
  const mode = deltaMissing ? (marketMissing ? undefined : 'market') : marketMissing ? 'delta' : 'all'
  const [srcDecimals, destDecimals] = await Promise.all([
    context.decimalsOf(intent.chainId, intent.srcToken),
    context.decimalsOf(intent.chainId, intent.destToken),
  ])
  const quotes: TradeQuotes =
    mode === undefined
      ? { delta: undefined, market: undefined, chosen: undefined }
      : await quoteTrade(context.api, {
          chainId: intent.chainId,
          destChainId: intent.chainId,
          srcToken: { address: intent.srcToken, decimals: srcDecimals },
          destToken: { address: intent.destToken, decimals: destDecimals },
          amount: intent.amount,
          side: intent.side,
          mode,
          userAddress: context.account.address,
        })
  const choice = chooseMode({
    side: intent.side,
    delta: deltaMissing ? { error: deltaMissing } : nativeSource ? { error: new NativeDeltaSourceError() } : quotes.delta,
    market: marketMissing ? { error: marketMissing } : quotes.market,
    preference: context.settings.preference,
    override: intent.mode === 'auto' ? undefined : intent.mode,
  })
  const delta = quotes.delta && 'price' in quotes.delta ? quotes.delta.price : undefined
  const market = quotes.market && 'route' in quotes.market ? quotes.market.route : undefined
  const riskQuote: RiskQuote =
    choice.mode === 'delta' && delta
      ? { srcAmount: delta.route.origin.input.amount, priceImpactPercent: priceImpactPercent({ delta }) }
      : choice.mode === 'market' && market
        ? { srcAmount: market.srcAmount, priceImpactPercent: priceImpactPercent({ market }) }
        : {}
  return { choice, serviceChoice: mode === 'all' ? quotes.chosen : undefined, delta, market, riskQuote }
}
