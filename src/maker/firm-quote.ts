import type { Address } from 'viem'
import type { FirmRequest, MakerPair, MakerToken } from '../protocol/maker-wire.js'
import { packNonceAndMeta } from '../protocol/nonce-and-meta.js'
import { fillFromGrid, type PriceGrid } from '../protocol/price-grid.js'
import type { RfqOrder } from '../protocol/rfq-order.js'
import type { MakerChainSnapshot } from './maker-book.js'

// The pure part of POST /firm (section 4 of the maker document): find the pair the two assets belong to, compute the
// amount the request leaves open from the current grid (exactly as the service prices it, fillFromGrid), and build
// the unsigned RFQ order. The server adds the off switch, the blacklist, signing and journaling around it.

/** The pair a firm request trades, and which of its tokens the maker gives. */
export type FirmPairMatch = {
  pairId: string
  pair: MakerPair
  base: MakerToken
  quote: MakerToken
  /** The token of the pair that is the request's makerAsset (the user buys it). */
  makerSells: 'base' | 'quote'
}

/** The pair whose base and quote are the request's two assets, in either direction; undefined when none is listed. */
export function findFirmPair(
  snapshot: Pick<MakerChainSnapshot, 'tokens' | 'pairs'>,
  { makerAsset, takerAsset }: Pick<FirmRequest, 'makerAsset' | 'takerAsset'>,
): FirmPairMatch | undefined {
  const maker = makerAsset.toLowerCase()
  const taker = takerAsset.toLowerCase()
  for (const [pairId, pair] of Object.entries(snapshot.pairs)) {
    const base = snapshot.tokens[pair.base]
    const quote = snapshot.tokens[pair.quote]
    if (base === undefined || quote === undefined) continue
    const baseAddress = base.address.toLowerCase()
    const quoteAddress = quote.address.toLowerCase()
    if (baseAddress === maker && quoteAddress === taker) return { pairId, pair, base, quote, makerSells: 'base' }
    if (quoteAddress === maker && baseAddress === taker) return { pairId, pair, base, quote, makerSells: 'quote' }
  }
  return undefined
}

export type FirmAmounts = { ok: true; makerAmount: bigint; takerAmount: bigint } | { ok: false; error: string }

/**
 * The order's two amounts: the one the request gives and the other from the grid. The user pays the takerAsset, so
 * it is the grid's source side; a given takerAmount is an exact input (SELL, the output rounds down), a given
 * makerAmount an exact output (BUY, the input rounds up).
 */
export function priceFirmRequest(grid: PriceGrid | undefined, match: FirmPairMatch, request: FirmRequest): FirmAmounts {
  const side = request.takerAmount !== undefined ? 'SELL' : 'BUY'
  const given = request.takerAmount ?? request.makerAmount
  if (given === undefined) return { ok: false, error: 'expected exactly one of makerAmount and takerAmount' }
  const givenField = side === 'SELL' ? 'takerAmount' : 'makerAmount'
  const src = match.makerSells === 'base' ? 'quote' : 'base'
  const fill = fillFromGrid(grid ?? {}, {
    src,
    side,
    amount: given,
    baseDecimals: match.base.decimals,
    quoteDecimals: match.quote.decimals,
  })
  const givenToken = side === 'SELL' ? takerToken(match) : makerToken(match)
  if (!fill.ok) {
    if (fill.reason === 'no-side') {
      return {
        ok: false,
        error: `pair ${match.pairId} is not quoted in this direction: the maker does not sell ${makerToken(match).symbol} now`,
      }
    }
    return {
      ok: false,
      error: `${givenField} ${given} exceeds the depth of pair ${match.pairId}: at most ${fill.depth} (raw units of ${givenToken.symbol})`,
    }
  }
  if (fill.amount === 0n) {
    const otherField = side === 'SELL' ? 'makerAmount' : 'takerAmount'
    return { ok: false, error: `${givenField} ${given} is too small: the ${otherField} rounds to 0` }
  }
  return side === 'SELL'
    ? { ok: true, makerAmount: fill.amount, takerAmount: given }
    : { ok: true, makerAmount: given, takerAmount: fill.amount }
}

export type BuildFirmOrderParameters = {
  request: FirmRequest
  amounts: { makerAmount: bigint; takerAmount: bigint }
  /** The maker's address: it holds the funds and signs. */
  maker: Address
  /** The random part of nonceAndMeta, below 2^96. */
  nonce: bigint
  /** Unix seconds. */
  expiry: bigint
}

/** The unsigned order: taker = the filling contract, the user in the low 160 bits of nonceAndMeta. */
export function buildFirmOrder({ request, amounts, maker, nonce, expiry }: BuildFirmOrderParameters): RfqOrder {
  return {
    nonceAndMeta: packNonceAndMeta({ intendedTaker: request.userAddress, nonce }),
    expiry,
    makerAsset: request.makerAsset,
    takerAsset: request.takerAsset,
    maker,
    taker: request.takerAddress,
    makerAmount: amounts.makerAmount,
    takerAmount: amounts.takerAmount,
  }
}

function makerToken(match: FirmPairMatch): MakerToken {
  return match.makerSells === 'base' ? match.base : match.quote
}

function takerToken(match: FirmPairMatch): MakerToken {
  return match.makerSells === 'base' ? match.quote : match.base
}
