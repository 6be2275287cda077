import type { Address, Hex } from 'viem'
import type { RfqOrder } from '../../protocol/rfq-order.js'

/** Lifecycle of an OTC order (section 3.2); the sandbox never produces DRAFT. */
export type OtcOrderState = 'DRAFT' | 'PENDING' | 'FULFILLED' | 'CANCELLED' | 'SUSPENDED' | 'EXPIRED'

/** P2P: a named taker may fill; LIMIT: anyone may (`taker` is the zero address). */
export type OtcOrderType = 'P2P' | 'LIMIT'

/** States in which an order still reserves the maker's funds and can become fillable. */
export const liveOtcStates: ReadonlySet<OtcOrderState> = new Set(['PENDING', 'SUSPENDED'])

export type StoredOtcOrder = {
  /** EIP-712 digest under the RFQ domain of `chainId`, lowercase. */
  orderHash: Hex
  chainId: number
  /** The signed struct, as posted. */
  order: RfqOrder
  /** As posted (64 or 65 bytes for an EOA, anything its wallet accepts for an EIP-1271 maker), lowercase. */
  signature: Hex
  permitMakerAsset: Hex | null
  type: OtcOrderType
  /** Low 160 bits of nonceAndMeta. */
  takerFromMeta: Address
  state: OtcOrderState
  /** Sums of the contract's OrderFilled events for this order. */
  filledMakerAmount: bigint
  filledTakerAmount: bigint
  /** min(balance, allowance to the RFQ contract) of the maker in makerAsset, at the last check. */
  makerFunds: bigint
  /** Latest fill or cancellation transaction. */
  transactionHash: Hex | null
  /** `${transactionHash}:${logIndex}` of the events already counted, so replaying a range is harmless. */
  appliedLogs: Set<string>
  /** Sandbox ms when the order last became PENDING (the counterparty fills some seconds after). */
  pendingSince: number | undefined
  /** Unix seconds of the sandbox clock. */
  createdAt: number
  updatedAt: number
  history: { state: OtcOrderState; at: number; reason?: string }[]
}

/**
 * Maker amount still fillable: the contract's remaining taker amount converted at the order's rate, rounded down
 * as the contract rounds one fill of the rest (protocol-facts: maker fill = takerFill * makerAmount / takerAmount).
 */
export function fillableMakerAmount(stored: StoredOtcOrder): bigint {
  const { makerAmount, takerAmount } = stored.order
  const remainingTaker = takerAmount > stored.filledTakerAmount ? takerAmount - stored.filledTakerAmount : 0n
  return (remainingTaker * makerAmount) / takerAmount
}

/** Maker amount this order reserves: what it still needs while it is live, nothing once it is over. */
export function reservedMakerAmount(stored: StoredOtcOrder): bigint {
  return liveOtcStates.has(stored.state) ? fillableMakerAmount(stored) : 0n
}

/** Maker amount a taker could fill right now. */
export function swappableMakerAmount(stored: StoredOtcOrder): bigint {
  if (stored.state !== 'PENDING') return 0n
  return minBigint(fillableMakerAmount(stored), stored.makerFunds)
}

/** The state the maker's funds call for: SUSPENDED when they no longer cover what the order still needs. */
export function stateForFunds(stored: StoredOtcOrder): 'PENDING' | 'SUSPENDED' {
  return stored.makerFunds < fillableMakerAmount(stored) ? 'SUSPENDED' : 'PENDING'
}

/** Math.min for bigints. */
export function minBigint(first: bigint, ...rest: bigint[]): bigint {
  let min = first
  for (const value of rest) if (value < min) min = value
  return min
}
