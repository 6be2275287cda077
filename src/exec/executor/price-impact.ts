import type { DeltaPrice } from '../../api/delta/delta-price-schema.js'
import type { MarketPriceRoute } from '../../api/market/price-route-schema.js'

/**
 * Price impact of a quote in percent, from its own USD values (input value lost on the way to the output, fees
 * included); undefined when the values are missing or zero. Display values, so only a guard, never an amount.
 */
export function priceImpactPercent(quote: { delta: DeltaPrice } | { market: MarketPriceRoute }): number | undefined {
  const [input, output] =
    'delta' in quote
      ? [quote.delta.route.origin.input.amountUSD, quote.delta.route.destination.output.amountUSD]
      : [quote.market.srcUSD, quote.market.destUSD]
  const inputUsd = Number(input)
  const outputUsd = Number(output)
  // A zero output value is a token the service has no USD price for, not a total loss: the amounts were quoted.
  if (!(inputUsd > 0) || !(outputUsd > 0) || !Number.isFinite(inputUsd) || !Number.isFinite(outputUsd)) return undefined
  return Math.max(0, ((inputUsd - outputUsd) / inputUsd) * 100)
}
