import type { PoolState } from './route-finder.js'

/**
 * The exchange name of registered market makers' liquidity: `AugustusRFQ`, the name production lists among its
 * exchanges (GET /adapters) for liquidity settled through its RFQ contract, where makers' firm quotes settle.
 */
export const makerExchangeName = 'AugustusRFQ'

/**
 * The sandbox's "DEXs": its constant-product pools grouped by fee tier, `SandboxPool<feeBps>` — SandboxPool30 for the
 * 0.30 % pools (WETH pairs, WBTC pairs), SandboxPool5 for the 0.05 % stable pools. These are the names
 * `includeDEXS` / `excludeDEXS` take and `swapExchanges[].exchange` shows.
 */
export function exchangeName(pool: Pick<PoolState, 'feeBps'>): string {
  return `SandboxPool${pool.feeBps}`
}

export function exchangeNames(pools: readonly PoolState[]): string[] {
  return [...new Set(pools.map(exchangeName))].sort()
}

/** Whether maker liquidity may route: not with `excludeRFQ`, and only when `includeDEXS` / `excludeDEXS` let AugustusRFQ in. */
export function makersAllowed({
  include,
  exclude,
  excludeRFQ,
}: {
  include?: readonly string[] | undefined
  exclude?: readonly string[] | undefined
  excludeRFQ: boolean
}): boolean {
  const name = makerExchangeName.toLowerCase()
  if (excludeRFQ || (exclude ?? []).some((entry) => entry.toLowerCase() === name)) return false
  return !include || include.length === 0 || include.some((entry) => entry.toLowerCase() === name)
}

/** The pools left after `includeDEXS` / `excludeDEXS` (names compared case-insensitively). */
export function filterPoolsByExchange(
  pools: readonly PoolState[],
  { include, exclude }: { include?: readonly string[] | undefined; exclude?: readonly string[] | undefined },
): PoolState[] {
  const included = include && include.length > 0 ? new Set(include.map((name) => name.toLowerCase())) : undefined
  const excluded = new Set((exclude ?? []).map((name) => name.toLowerCase()))
  return pools.filter((pool) => {
    const name = exchangeName(pool).toLowerCase()
    return (!included || included.has(name)) && !excluded.has(name)
  })
}
