import type { Address } from 'viem'
import { z } from 'zod'
import { describeReceived, issueMessage } from '../../domain/wire-fields.js'
import { makerAddressSchema, makerPairSchema, makerTokenSchema, priceGridSchema } from '../../protocol/maker-wire.js'
import { type PriceLevel, parseDecimal } from '../../protocol/price-grid.js'
import type { MakerBookUpdate } from '../maker-book.js'

/** A chain's offer as the book takes it, or why the chain is off. */
/** `invalid`: the strategy returned a malformed offer for the chain (rather than switching it off itself). */
export type CheckedChainOffer = { update: OfferUpdate } | { off: string; invalid?: boolean }

type OfferUpdate = MakerBookUpdate & Required<Pick<MakerBookUpdate, 'tokens' | 'pairs' | 'prices'>>

export type CheckMakerOfferParameters = {
  /** The chains the maker serves: each gets an entry in the result. */
  chainIds: readonly number[]
  /**
   * The decimals of a token the maker may sell on a chain (its balance is read, it is approved to the RFQ contract),
   * undefined for any other token: a pair of tokens the runtime does not hold is refused.
   */
  decimalsOf: (chainId: number, token: Address) => number | undefined
}

export type CheckMakerOfferResult =
  | { ok: true; chains: Map<number, CheckedChainOffer> }
  /** The output as a whole is unusable (not an array, an unserved or repeated chain): every chain goes off. */
  | { ok: false; reason: string }

const idKey = z.string().min(1).max(100)
const chainIdSchema = z.number().int().positive()
const offChainSchema = z.strictObject({ chainId: chainIdSchema, off: z.string().min(1).max(500) })
const chainOfferSchema = z.strictObject({
  chainId: chainIdSchema,
  tokens: z.record(idKey, makerTokenSchema),
  pairs: z.record(idKey, makerPairSchema),
  prices: z.record(idKey, priceGridSchema),
  blacklist: z.array(makerAddressSchema).optional(),
})

/**
 * Validates what a maker strategy returned before anything of it is served: the shapes of the maker document
 * (decimal strings, ERC20 tokens, grids not crossed), each side in order (bids from the highest price down, asks
 * from the lowest up) with positive amounts, pairs over listed tokens, grids of listed pairs, and tokens the runtime
 * holds with their true decimals. A chain with a problem is off with the first problems as its reason; a chain the
 * strategy left out is off too.
 */
export function checkMakerOffer(output: unknown, { chainIds, decimalsOf }: CheckMakerOfferParameters): CheckMakerOfferResult {
  if (!Array.isArray(output)) return { ok: false, reason: `expected an array of chain offers, received ${describeReceived(output)}` }
  const chains = new Map<number, CheckedChainOffer>()
  for (const [index, entry] of output.entries()) {
    const chainId: unknown = typeof entry === 'object' && entry !== null ? Reflect.get(entry, 'chainId') : undefined
    if (typeof chainId !== 'number' || !chainIds.includes(chainId)) {
      return {
        ok: false,
        reason: `offer ${index}: expected chainId to be a served chain (${chainIds.join(', ')}), received ${describeReceived(chainId)}`,
      }
    }
    if (chains.has(chainId)) return { ok: false, reason: `offer ${index}: chain ${chainId} is offered twice` }
    chains.set(chainId, checkChainOffer(entry, chainId, decimalsOf))
  }
  for (const chainId of chainIds) if (!chains.has(chainId)) chains.set(chainId, { off: `no offer for chain ${chainId}` })
  return { ok: true, chains }
}

function checkChainOffer(entry: object, chainId: number, decimalsOf: CheckMakerOfferParameters['decimalsOf']): CheckedChainOffer {
  if ('off' in entry) {
    const parsed = offChainSchema.safeParse(entry)
    return parsed.success ? { off: parsed.data.off } : { off: `invalid offer: ${describeIssues(parsed.error.issues)}`, invalid: true }
  }
  const parsed = chainOfferSchema.safeParse(entry)
  if (!parsed.success) return { off: `invalid offer: ${describeIssues(parsed.error.issues)}`, invalid: true }
  const { tokens, pairs, prices, blacklist } = parsed.data
  const problems: string[] = []
  for (const [id, token] of Object.entries(tokens)) {
    const decimals = decimalsOf(chainId, token.address)
    if (decimals === undefined)
      problems.push(`tokens.${id}: ${token.address} is not among the balances the strategy reads on chain ${chainId}`)
    else if (decimals !== token.decimals)
      problems.push(`tokens.${id}.decimals: the token has ${decimals} decimals on chain ${chainId}, received ${token.decimals}`)
  }
  for (const [id, pair] of Object.entries(pairs)) {
    if (!(pair.base in tokens)) problems.push(`pairs.${id}.base: "${pair.base}" is not a listed token`)
    if (!(pair.quote in tokens)) problems.push(`pairs.${id}.quote: "${pair.quote}" is not a listed token`)
    if (pair.base === pair.quote) problems.push(`pairs.${id}: base and quote are the same token`)
  }
  for (const [id, grid] of Object.entries(prices)) {
    if (!(id in pairs)) problems.push(`prices.${id}: not a listed pair`)
    problems.push(
      ...sideProblems(`prices.${id}.bids`, grid.bids, 'descending'),
      ...sideProblems(`prices.${id}.asks`, grid.asks, 'ascending'),
    )
  }
  if (problems.length > 0) return { off: `invalid offer: ${summarize(problems)}`, invalid: true }
  const update: OfferUpdate = { tokens, pairs, prices }
  if (blacklist !== undefined) update.blacklist = blacklist
  return { update }
}

/** Best level first: bids never rise, asks never fall; every amount above zero. */
function sideProblems(where: string, levels: readonly PriceLevel[] | undefined, order: 'descending' | 'ascending'): string[] {
  const problems: string[] = []
  let previous: { n: bigint; d: bigint } | undefined
  for (const [index, [priceText, amountText]] of (levels ?? []).entries()) {
    if (parseDecimal(amountText).n === 0n) problems.push(`${where}.${index}: amount must be above zero`)
    const price = parseDecimal(priceText)
    if (previous !== undefined) {
      const left = price.n * previous.d
      const right = previous.n * price.d
      if (order === 'descending' ? left > right : left < right) {
        problems.push(`${where}.${index}: levels out of order (${order === 'descending' ? 'bids must not rise' : 'asks must not fall'})`)
      }
    }
    previous = price
  }
  return problems
}

function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return summarize(issues.map((issue) => `${issue.path.map(String).join('.') || '(offer)'}: ${issueMessage(issue)}`))
}

function summarize(problems: readonly string[]): string {
  const shown = problems.slice(0, 3).join('; ')
  return problems.length > 3 ? `${shown}; and ${problems.length - 3} more` : shown
}
