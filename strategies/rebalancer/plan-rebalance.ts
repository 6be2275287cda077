/** One chain's target: a relative weight (the targets' weights are normalised by their sum). */
export type ChainWeight = { chainId: number; weight: number }

/** Where one chain stands: its balance, its target amount, and both as basis points of the total. */
export type ChainShare = {
  chainId: number
  amount: bigint
  /** The total times this chain's weight over the sum of weights, rounded down. */
  targetAmount: bigint
  /** amount / total in basis points (rounded down); 0 when the total is 0. */
  shareBps: number
  targetBps: number
}

export type RebalancePlan =
  | {
      action: 'none'
      /** empty: nothing held; within-band: every share is in its band; below-minimum: the transfer is too small. */
      reason: 'empty' | 'within-band' | 'below-minimum'
      shares: ChainShare[]
    }
  | { action: 'transfer'; fromChainId: number; toChainId: number; amount: bigint; shares: ChainShare[] }

export type PlanRebalanceParameters = {
  targets: readonly ChainWeight[]
  /** Raw units held per chain id; a chain of `targets` missing here counts as 0. */
  balances: ReadonlyMap<number, bigint>
  /** How far a share may stray from its target, in basis points of the total (200 = ±2 percentage points). */
  bandBps: number
  /** Least raw units worth a transfer. */
  minTradeAmount: bigint
}

/**
 * Decides the next transfer towards the target weights: none while every chain's share is within ±bandBps of its
 * target; otherwise from the chain furthest above its target to the one furthest below, the smaller of the two
 * gaps (so one of them lands on its target, and N chains need at most N-1 transfers). The band is compared exactly,
 * in bigint: |amount·W − total·weight|·10000 ≤ bandBps·total·W, with W the sum of weights.
 */
export function planRebalance({ targets, balances, bandBps, minTradeAmount }: PlanRebalanceParameters): RebalancePlan {
  const weightSum = targets.reduce((sum, target) => sum + BigInt(target.weight), 0n)
  const total = targets.reduce((sum, target) => sum + (balances.get(target.chainId) ?? 0n), 0n)
  const shares = targets.map(({ chainId, weight }): ChainShare => {
    const amount = balances.get(chainId) ?? 0n
    return {
      chainId,
      amount,
      targetAmount: weightSum === 0n ? 0n : (total * BigInt(weight)) / weightSum,
      shareBps: total === 0n ? 0 : Number((amount * 10_000n) / total),
      targetBps: weightSum === 0n ? 0 : Number((BigInt(weight) * 10_000n) / weightSum),
    }
  })
  if (total === 0n || weightSum === 0n) return { action: 'none', reason: 'empty', shares }

  // Deviations scaled by W, so the comparison needs no division.
  const deviations = targets.map((target, index) => (shares[index]?.amount ?? 0n) * weightSum - total * BigInt(target.weight))
  const tolerance = BigInt(bandBps) * total * weightSum
  if (deviations.every((deviation) => abs(deviation) * 10_000n <= tolerance)) return { action: 'none', reason: 'within-band', shares }

  const source = indexOfExtreme(deviations, (candidate, best) => candidate > best)
  const destination = indexOfExtreme(deviations, (candidate, best) => candidate < best)
  const from = shares[source]
  const to = shares[destination]
  if (!from || !to || source === destination) return { action: 'none', reason: 'within-band', shares }
  const surplus = from.amount - from.targetAmount
  const deficit = to.targetAmount - to.amount
  const amount = smaller(surplus, deficit)
  if (amount <= 0n || amount < minTradeAmount) return { action: 'none', reason: 'below-minimum', shares }
  if (amount > from.amount) throw new Error(`planRebalance: transfer ${amount} exceeds the ${from.amount} held on chain ${from.chainId}`)
  return { action: 'transfer', fromChainId: from.chainId, toChainId: to.chainId, amount, shares }
}

/** Math.min for bigint. */
function smaller(left: bigint, right: bigint): bigint {
  if (left < right) return left
  return right
}

function abs(value: bigint): bigint {
  return value < 0n ? -value : value
}

/** The first index whose value beats every other by `better` (ties keep the earlier chain of the config). */
function indexOfExtreme(values: readonly bigint[], better: (candidate: bigint, best: bigint) => boolean): number {
  let best = 0
  values.forEach((value, index) => {
    const current = values[best]
    if (current !== undefined && better(value, current)) best = index
  })
  return best
}
