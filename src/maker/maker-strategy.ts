import type { Address } from 'viem'
import type { z } from 'zod'
import type { MakerPair, MakerToken } from '../protocol/maker-wire.js'
import type { PriceGrid } from '../protocol/price-grid.js'
import type { DeepReadonly } from '../strategy/frozen-copy.js'
import { checkMakerStrategyDefinition, type makerStrategyApiVersion } from './runtime/check-maker-strategy.js'

// The plugin contract of a maker strategy (`deltaflow maker`): a pure function from reference prices, the maker
// wallet's balances and its recent firm quotes to the offer served on each chain. The runtime polls, the strategy
// prices, the server signs: a strategy never does I/O and reads time only from `now`.

/** An exact price: quote-token units per one whole base token, numerator / denominator (denominator > 0). */
export type ExactPrice = { numerator: bigint; denominator: bigint }

/** A reference price a strategy needs, on one chain, for one base/quote pair of token addresses. */
export type ReferenceRequest =
  | {
      /** Unique among the strategy's references; the key of `references` in `quote`. */
      id: string
      chainId: number
      base: Address
      quote: Address
      /**
       * The service's own Market quotes (`GET /prices` with `excludeRFQ=true`, so the maker never prices off its own
       * liquidity) of `size` raw base units: a SELL of base gives the bid, a BUY of base the ask.
       */
      source: 'market'
      size: bigint
      /** Which quotes the mid comes from: both (their average, default) or one side. */
      sides?: 'both' | 'sell' | 'buy' | undefined
    }
  | {
      id: string
      chainId: number
      base: Address
      quote: Address
      /** A configured price (tests, quiet pairs): always fresh. */
      source: 'fixed'
      /** Quote per whole base, a decimal string such as "1850.25". */
      price: string
    }

/** The latest reference of a request; `mid` is undefined until a first price arrived. */
export type ReferencePrice = {
  id: string
  chainId: number
  base: Address
  quote: Address
  /** What a SELL of base was quoted (market source). */
  bid: ExactPrice | undefined
  /** What a BUY of base was quoted (market source). */
  ask: ExactPrice | undefined
  mid: ExactPrice | undefined
  /** Clock ms the price was received (now, for a fixed price); undefined before the first. */
  at: number | undefined
  /** Why the last poll failed, when it did (the previous price, if any, is kept and ages). */
  lastError: string | undefined
}

/** A token of the maker wallet the strategy needs to know the balance of (and that the maker may sell). */
export type MakerBalanceRequest = { chainId: number; token: Address }

export type MakerBalance = MakerBalanceRequest & {
  /** The wallet's balance, raw units. */
  balance: bigint
  /** What open firm quotes could still take of it. */
  reserved: bigint
  /** What new quotes may sell: min(balance, allowance to the RFQ contract) − reserved, never below 0. */
  available: bigint
  /** Clock ms of the read. */
  at: number
}

/** A firm quote the maker signed (from the journal), for risk limits over a window. */
export type MakerFirmQuote = {
  chainId: number
  makerAsset: Address
  takerAsset: Address
  makerAmount: bigint
  takerAmount: bigint
  /** Clock ms. */
  quotedAt: number
  status: 'open' | 'filled' | 'partially-filled' | 'expired'
  filledMakerAmount: bigint
  filledTakerAmount: bigint
}

/** What one chain serves: its tokens, pairs and grids (a retired pair has `{}`), or nothing because it is off. */
export type MakerChainOffer =
  | {
      chainId: number
      tokens: Readonly<Record<string, MakerToken>>
      pairs: Readonly<Record<string, MakerPair>>
      prices: Readonly<Record<string, PriceGrid>>
      blacklist?: readonly Address[] | undefined
    }
  | {
      chainId: number
      /** Why the maker does not quote on this chain (stale reference, risk limit): `/prices` fails with it. */
      off: string
    }

export type MakerQuoteParameters<Config> = {
  config: DeepReadonly<Config>
  /** Unix ms of the injected clock. */
  now: number
  /** By reference id. */
  references: DeepReadonly<Record<string, ReferencePrice>>
  /** One per requested balance that was read; a missing one was never read. */
  balances: DeepReadonly<MakerBalance[]>
  /** Firm quotes of the last `firmWindowSeconds(config)` (none when it is absent). */
  firmQuotes: DeepReadonly<MakerFirmQuote[]>
}

/** A maker strategy: see defineMakerStrategy. */
export type MakerStrategyDefinition<Schema extends z.ZodType = z.ZodType> = {
  apiVersion: typeof makerStrategyApiVersion
  /** Letters, digits, `.`, `_` and `-`; stamped on every log line and off reason. */
  name: string
  configSchema: Schema
  /** The reference prices `quote` receives. */
  references: (config: DeepReadonly<z.output<Schema>>) => readonly ReferenceRequest[]
  /** The wallet balances `quote` receives; these are also the tokens the maker may sell (approved to the RFQ contract). */
  balances: (config: DeepReadonly<z.output<Schema>>) => readonly MakerBalanceRequest[]
  /** How far back `firmQuotes` reaches, seconds of clock time. Absent: no firm quotes are passed. */
  firmWindowSeconds?: ((config: DeepReadonly<z.output<Schema>>) => number) | undefined
  /**
   * The offer of every served chain. Pure: no I/O, time from `now`. Throwing, or returning a crossed, unordered or
   * malformed grid, switches the maker off with the reason (the previous book is never served after that).
   */
  quote: (parameters: MakerQuoteParameters<z.output<Schema>>) => readonly MakerChainOffer[]
}

/**
 * Declares a maker strategy; the config type is inferred from `configSchema`. Checks the definition's shape now.
 *
 * @example
 * export default defineMakerStrategy({
 *   apiVersion: 1,
 *   name: 'fixed-weth',
 *   configSchema: z.object({ price: z.string() }),
 *   references: (config) => [{ id: 'weth', chainId: 1, base: WETH, quote: USDC, source: 'fixed', price: config.price }],
 *   balances: () => [{ chainId: 1, token: WETH }, { chainId: 1, token: USDC }],
 *   quote: ({ references }) => [{ chainId: 1, tokens, pairs, prices: { 'WETH/USDC': { bids: [['1849', '1']], asks: [['1851', '1']] } } }],
 * })
 */
export function defineMakerStrategy<Schema extends z.ZodType>(
  definition: MakerStrategyDefinition<Schema>,
): MakerStrategyDefinition<Schema> {
  checkMakerStrategyDefinition(definition, definition.name)
  return definition
}
