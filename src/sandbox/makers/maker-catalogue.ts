import type { MakerPair, MakerToken } from '../../protocol/maker-wire.js'
import type { DeployedToken } from '../chains/fixture.js'
import type { ChainVenue } from '../venue/chain-venue.js'

/** A maker's pair whose two tokens the sandbox chain knows. */
export type MakerPairOnChain = { id: string; base: DeployedToken; quote: DeployedToken }

/** What a maker trades on the chain, in the chain's own tokens. */
export type MakerCatalogue = {
  /** Token id → the chain's token. */
  tokens: ReadonlyMap<string, DeployedToken>
  pairs: readonly MakerPairOnChain[]
}

/**
 * Keeps the maker's tokens the chain has (same address, same decimals, ERC-20) and the pairs between them. Whatever
 * is left out is reported through `ignore` (the caller logs each reason once).
 */
export function mapMakerCatalogue(
  chain: ChainVenue,
  { tokens, pairs }: { tokens: Readonly<Record<string, MakerToken>>; pairs: Readonly<Record<string, MakerPair>> },
  ignore: (reason: string) => void,
): MakerCatalogue {
  const known = new Map<string, DeployedToken>()
  for (const [id, token] of Object.entries(tokens)) {
    const onChain = chain.tokenByAddress(token.address)
    if (!onChain) {
      ignore(`token ${id} (${token.address}) is not a token of chain ${chain.chainId}`)
      continue
    }
    if (onChain.decimals !== token.decimals) {
      ignore(`token ${id} (${token.address}) has ${token.decimals} decimals on the maker, ${onChain.decimals} on chain ${chain.chainId}`)
      continue
    }
    known.set(id, onChain)
  }
  const mapped: MakerPairOnChain[] = []
  for (const [id, pair] of Object.entries(pairs)) {
    const base = known.get(pair.base)
    const quote = known.get(pair.quote)
    if (!base || !quote) {
      ignore(`pair ${id} names ${!base ? `base ${pair.base}` : `quote ${pair.quote}`}, which is not a known token`)
      continue
    }
    if (base.address === quote.address) {
      ignore(`pair ${id} has the same token on both sides`)
      continue
    }
    mapped.push({ id, base, quote })
  }
  return { tokens: known, pairs: mapped }
}
