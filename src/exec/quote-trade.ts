import type { Address } from 'viem'
import type { ApiClient } from '../api/client.js'
import type { DeltaPrice } from '../api/delta/delta-price-schema.js'
import { getDeltaPrices } from '../api/delta/get-delta-prices.js'
import { type FallbackReason, getQuote } from '../api/get-quote.js'
import { getMarketPrices } from '../api/market/get-market-prices.js'
import type { MarketPriceRoute } from '../api/market/price-route-schema.js'
import { DeltaFallbackError } from './mode/delta-fallback.js'

export type TradeRequest = {
  chainId: number
  destChainId: number
  srcToken: { address: Address; decimals: number }
  destToken: { address: Address; decimals: number }
  /** Raw units of the fixed side. */
  amount: bigint
  side: 'SELL' | 'BUY'
  mode: 'delta' | 'market' | 'all'
  userAddress: Address
}

export type TradeQuotes = {
  delta: { price: DeltaPrice } | { error: Error } | undefined
  market: { route: MarketPriceRoute } | { error: Error } | undefined
  /** The mode the trade would use: the requested one, or the service's choice for `all`. */
  chosen: 'delta' | 'market' | undefined
  /** Why the unified quote (`all`) answered Market: Delta could not price this trade. */
  fallbackReason?: FallbackReason | undefined
}

/**
 * Prices a trade in each mode asked for (a failure is kept, not thrown) and names the mode that would execute it.
 * When the unified quote falls back to Market, Delta is not available for this trade: its price (if one was answered
 * separately) is replaced by a DeltaFallbackError, so no mode choice picks it.
 */
export async function quoteTrade(api: ApiClient, trade: TradeRequest): Promise<TradeQuotes> {
  const crosschain = trade.destChainId !== trade.chainId
  const wantDelta = trade.mode !== 'market'
  const wantMarket = trade.mode !== 'delta' && !crosschain
  const settle = <T>(promise: Promise<T>) =>
    promise.then(
      (value) => value,
      (error: Error) => ({ error }),
    )
  const [delta, market] = await Promise.all([
    wantDelta ? settle(getDeltaPrices(api, deltaQuery(trade)).then((price) => ({ price }))) : undefined,
    wantMarket
      ? settle(
          getMarketPrices(api, {
            srcToken: trade.srcToken.address,
            destToken: trade.destToken.address,
            srcDecimals: trade.srcToken.decimals,
            destDecimals: trade.destToken.decimals,
            amount: trade.amount,
            side: trade.side,
            network: trade.chainId,
            userAddress: trade.userAddress,
          }).then((route) => ({ route })),
        )
      : undefined,
  ])
  if (trade.mode === 'delta') return { delta, market, chosen: delta && 'price' in delta ? 'delta' : undefined }
  if (trade.mode === 'market') return { delta, market, chosen: market && 'route' in market ? 'market' : undefined }
  const unified = await settle(getQuote(api, { mode: 'ALL', ...deltaQuery(trade) }))
  if (!('mode' in unified)) return { delta, market, chosen: undefined }
  if (unified.mode === 'delta' || !unified.fallbackReason) return { delta, market, chosen: unified.mode }
  const { fallbackReason } = unified
  return {
    delta: delta && 'price' in delta ? { error: new DeltaFallbackError(fallbackReason) } : delta,
    market,
    chosen: 'market',
    fallbackReason,
  }
}

/** The query Delta prices and the unified quote share. */
function deltaQuery(trade: TradeRequest) {
  return {
    chainId: trade.chainId,
    srcToken: trade.srcToken.address,
    destToken: trade.destToken.address,
    amount: trade.amount,
    srcDecimals: trade.srcToken.decimals,
    destDecimals: trade.destToken.decimals,
    side: trade.side,
    userAddress: trade.userAddress,
    ...(trade.destChainId === trade.chainId ? {} : { destChainId: trade.destChainId }),
  }
}
