import { decimalToRaw, defineMakerStrategy, type ReferenceRequest } from '../../src/index.js'
import { marketMakerConfigSchema } from './market-maker-config.js'
import { quoteChain, referenceId } from './quote-chain.js'

/**
 * Market maker: per chain and pair (base/quote token ids of `chains.<id>.tokens`), a grid around a reference mid —
 * the service's own Market quotes of `reference.size` base without RFQ liquidity (the average of a SELL and a BUY
 * quote, or one side), or a fixed `reference.price`.
 *
 * Grid: `levels` bids and asks, the first `spreadBps` from the mid, each next one `stepBps` further; level k holds
 * `size` × (1 + `sizeGrowthBps`)^k whole base tokens. Inventory skew: the mid moves against the wallet's holdings of the
 * pair, up to `maxSkewBps` (long base → lower asks and bids), around `targetBaseShareBps` of the pair's value held in
 * base. Depth is capped by what the wallet can sell (asks by its base, bids by its quote at their price, both net of
 * open firm quotes); prices are rounded outward to `priceDecimals` (bids down, asks up), amounts down to the token's
 * decimals; best level first; never crossed. A pair listed under `retire` stays in /pairs with `{}` prices.
 *
 * Off switch (the chain's /prices fails with the reason): a reference older than `maxReferenceAgeSeconds` (or none
 * yet), a balance not read yet, a token's inventory below its `minBalance` or above its `maxBalance`, or a pair's firm
 * quotes reaching `maxFirmNotional.amount` quote tokens over `maxFirmNotional.windowSeconds`.
 */
export default defineMakerStrategy({
  apiVersion: 1,
  name: 'market-maker',
  configSchema: marketMakerConfigSchema,

  references: (config) =>
    Object.entries(config.chains).flatMap(([chainKey, chain]) =>
      Object.entries(chain.pairs)
        .filter(([id]) => !chain.retire.includes(id))
        .flatMap(([id, pair]): ReferenceRequest[] => {
          const base = chain.tokens[pair.base]
          const quote = chain.tokens[pair.quote]
          if (!base || !quote) return []
          const common = { id: referenceId(Number(chainKey), id), chainId: Number(chainKey), base: base.address, quote: quote.address }
          return pair.reference.source === 'fixed'
            ? [{ ...common, source: 'fixed', price: pair.reference.price }]
            : [{ ...common, source: 'market', size: decimalToRaw(pair.reference.size, base.decimals), sides: pair.reference.sides }]
        }),
    ),

  balances: (config) =>
    Object.entries(config.chains).flatMap(([chainKey, chain]) =>
      Object.values(chain.tokens).map((token) => ({ chainId: Number(chainKey), token: token.address })),
    ),

  firmWindowSeconds: (config) =>
    Math.max(
      0,
      ...Object.values(config.chains).flatMap((chain) =>
        Object.values(chain.pairs).map((pair) => pair.maxFirmNotional?.windowSeconds ?? 0),
      ),
    ),

  quote: (input) => Object.entries(input.config.chains).map(([chainKey, chain]) => quoteChain(Number(chainKey), chain, input)),
})
