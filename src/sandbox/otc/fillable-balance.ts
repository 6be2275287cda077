import type { Address } from 'viem'
import { reservedMakerAmount } from './otc-order.js'
import type { OtcOrderStore } from './otc-order-store.js'

export type FillableBalanceParameters = {
  chainId: number
  account: Address
  /** Scope the answer to this token (it is then present even when nothing is reserved). */
  token?: Address | undefined
}

/**
 * Section 2.7: lowercase token address → maker amount reserved by the account's live (PENDING or SUSPENDED) orders,
 * as a decimal string.
 */
export function fillableBalance(store: OtcOrderStore, { chainId, account, token }: FillableBalanceParameters): Record<string, string> {
  const totals = new Map<string, bigint>()
  if (token) totals.set(token.toLowerCase(), 0n)
  for (const stored of store.liveOf(chainId, account)) {
    const key = stored.order.makerAsset.toLowerCase()
    if (token && key !== token.toLowerCase()) continue
    totals.set(key, (totals.get(key) ?? 0n) + reservedMakerAmount(stored))
  }
  return Object.fromEntries([...totals].map(([address, amount]) => [address, amount.toString()]))
}
