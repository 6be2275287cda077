import type { Address } from 'viem'
import { getAmountIn, getAmountOut } from './amm-math.js'

export type PoolState = {
  address: Address
  token0: Address
  token1: Address
  reserve0: bigint
  reserve1: bigint
  feeBps: bigint
  /** e.g. "WETH/USDC". */
  name: string
}

export type Side = 'SELL' | 'BUY'

export type Hop = {
  pool: PoolState
  tokenIn: Address
  tokenOut: Address
  amountIn: bigint
  amountOut: bigint
}

export type SwapRoute = {
  side: Side
  srcToken: Address
  destToken: Address
  srcAmount: bigint
  destAmount: bigint
  hops: Hop[]
}

export type FindRouteParameters = {
  pools: readonly PoolState[]
  srcToken: Address
  destToken: Address
  /** srcToken amount for SELL, destToken amount for BUY. */
  amount: bigint
  side: Side
  /** At most this many pools in a row (3 pools = 4 tokens, the service's `route` limit). */
  maxHops?: number
  /** When set, only these token sequences (lowercase addresses) are tried. */
  tokenPath?: readonly Address[]
}

const lower = (address: Address) => address.toLowerCase() as Address

/** Best route through the pools: most output for a SELL, least input for a BUY. Undefined when nothing can fill it. */
export function findBestRoute({
  pools,
  srcToken,
  destToken,
  amount,
  side,
  maxHops = 3,
  tokenPath,
}: FindRouteParameters): SwapRoute | undefined {
  let best: SwapRoute | undefined
  for (const path of enumeratePoolPaths(pools, lower(srcToken), lower(destToken), maxHops)) {
    if (tokenPath && !matchesTokenPath(path, lower(srcToken), tokenPath)) continue
    const route = side === 'SELL' ? quoteSell(path, lower(srcToken), amount) : quoteBuy(path, lower(destToken), amount)
    if (!route) continue
    if (!best || (side === 'SELL' ? route.destAmount > best.destAmount : route.srcAmount < best.srcAmount)) best = route
  }
  return best
}

/** The route's output at the pools' marginal prices (no fee, no impact), in destToken units for a SELL. */
export function spotAmount(route: SwapRoute): bigint {
  let value = route.side === 'SELL' ? route.srcAmount : route.destAmount
  const hops = route.side === 'SELL' ? route.hops : [...route.hops].reverse()
  for (const hop of hops) {
    const [reserveIn, reserveOut] = oriented(hop.pool, hop.tokenIn)
    value = route.side === 'SELL' ? (value * reserveOut) / reserveIn : (value * reserveIn) / reserveOut
  }
  return value
}

/** Price impact in percent: how much worse the route is than its spot amount. */
export function priceImpactPercent(route: SwapRoute): number {
  const spot = spotAmount(route)
  if (spot === 0n) return 100
  const actual = route.side === 'SELL' ? route.destAmount : route.srcAmount
  const ratio = Number((actual * 1_000_000n) / spot) / 1_000_000
  return route.side === 'SELL' ? Math.max(0, (1 - ratio) * 100) : Math.max(0, (ratio - 1) * 100)
}

function* enumeratePoolPaths(pools: readonly PoolState[], from: Address, to: Address, maxHops: number): Generator<PoolState[]> {
  const visit = function* (token: Address, used: PoolState[], seen: Set<Address>): Generator<PoolState[]> {
    if (used.length >= maxHops) return
    for (const pool of pools) {
      if (used.includes(pool)) continue
      const next = otherToken(pool, token)
      if (!next || seen.has(next)) continue
      const path = [...used, pool]
      if (next === to) yield path
      else yield* visit(next, path, new Set([...seen, next]))
    }
  }
  yield* visit(from, [], new Set([from]))
}

function quoteSell(path: PoolState[], srcToken: Address, srcAmount: bigint): SwapRoute | undefined {
  const hops: Hop[] = []
  let token = srcToken
  let amount = srcAmount
  for (const pool of path) {
    const tokenOut = otherToken(pool, token) as Address
    const [reserveIn, reserveOut] = oriented(pool, token)
    const amountOut = getAmountOut(amount, reserveIn, reserveOut, pool.feeBps)
    if (amountOut === 0n) return undefined
    hops.push({ pool, tokenIn: token, tokenOut, amountIn: amount, amountOut })
    token = tokenOut
    amount = amountOut
  }
  return { side: 'SELL', srcToken, destToken: token, srcAmount, destAmount: amount, hops }
}

function quoteBuy(path: PoolState[], destToken: Address, destAmount: bigint): SwapRoute | undefined {
  // Walk the path backwards from the destination to learn the input each hop needs.
  const tokens: Address[] = [destToken]
  for (const pool of [...path].reverse()) tokens.unshift(otherToken(pool, tokens[0] as Address) as Address)
  const hops: Hop[] = []
  let amount = destAmount
  for (let index = path.length - 1; index >= 0; index--) {
    const pool = path[index] as PoolState
    const tokenIn = tokens[index] as Address
    const [reserveIn, reserveOut] = oriented(pool, tokenIn)
    const amountIn = getAmountIn(amount, reserveIn, reserveOut, pool.feeBps)
    if (amountIn === undefined) return undefined
    hops.unshift({ pool, tokenIn, tokenOut: tokens[index + 1] as Address, amountIn, amountOut: amount })
    amount = amountIn
  }
  return { side: 'BUY', srcToken: tokens[0] as Address, destToken, srcAmount: amount, destAmount, hops }
}

function matchesTokenPath(path: PoolState[], srcToken: Address, tokenPath: readonly Address[]): boolean {
  if (tokenPath.length !== path.length + 1) return false
  let token = srcToken
  if (tokenPath[0] !== token) return false
  for (const [index, pool] of path.entries()) {
    token = otherToken(pool, token) as Address
    if (tokenPath[index + 1] !== token) return false
  }
  return true
}

function otherToken(pool: PoolState, token: Address): Address | undefined {
  if (lower(pool.token0) === token) return lower(pool.token1)
  if (lower(pool.token1) === token) return lower(pool.token0)
  return undefined
}

function oriented(pool: PoolState, tokenIn: Address): [bigint, bigint] {
  return lower(pool.token0) === lower(tokenIn) ? [pool.reserve0, pool.reserve1] : [pool.reserve1, pool.reserve0]
}
