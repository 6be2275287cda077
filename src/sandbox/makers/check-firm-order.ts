import { type Address, isAddressEqual } from 'viem'
import type { FirmOrder } from '../../protocol/maker-wire.js'
import { unpackNonceAndMeta } from '../../protocol/nonce-and-meta.js'
import type { RfqOrder } from '../../protocol/rfq-order.js'
import { readMakerFunds } from '../otc/read-maker-funds.js'
import { verifyOtcSignature } from '../otc/verify-otc-signature.js'
import type { ChainVenue } from '../venue/chain-venue.js'

/** A firm order must stay valid at least this long after the chain's latest block (a user still has to sign and send). */
export const minFirmOrderLifetimeSeconds = 60n

/** What the build asked the maker for, and the user's bound. */
export type FirmExpectation = {
  srcToken: Address
  destToken: Address
  side: 'SELL' | 'BUY'
  /** SELL: the exact source; BUY: the exact destination. */
  amount: bigint
  /** SELL: the least destination the user accepts; BUY: the most source the user pays. */
  bound: bigint
  user: Address
  /** The filling contract (the chain's Market router). */
  taker: Address
}

/** The fill of an accepted order: what the router takes from the user and what the maker pays out. */
export type FirmFill = { order: RfqOrder; signature: FirmOrder['signature']; takerFill: bigint; makerFill: bigint }

export type FirmCheck = { ok: true; fill: FirmFill } | { ok: false; reason: string }

/**
 * Checks a maker's firm order as the service does before building on it: the assets asked for, the router as taker,
 * the user in the low 160 bits of nonceAndMeta, at least a minute of life left on-chain, a fill that meets the user's
 * bound (SELL: takerFill = the source; BUY: the least takerFill whose rounded-down maker share covers the
 * destination), the maker's signature (ecrecover, or EIP-1271 for a contract maker) and the maker's balance and
 * allowance to the RFQ contract for this fill.
 */
export async function checkFirmOrder(chain: ChainVenue, wire: FirmOrder, expected: FirmExpectation): Promise<FirmCheck> {
  const order: RfqOrder = {
    nonceAndMeta: wire.nonceAndMeta,
    expiry: BigInt(wire.expiry),
    makerAsset: wire.makerAsset,
    takerAsset: wire.takerAsset,
    maker: wire.maker,
    taker: wire.taker,
    makerAmount: wire.makerAmount,
    takerAmount: wire.takerAmount,
  }
  const refuse = (reason: string): FirmCheck => ({ ok: false, reason })
  if (!isAddressEqual(order.makerAsset, expected.destToken) || !isAddressEqual(order.takerAsset, expected.srcToken)) {
    return refuse(
      `the order trades makerAsset ${order.makerAsset} for takerAsset ${order.takerAsset}; asked for ${expected.destToken} for ${expected.srcToken}`,
    )
  }
  if (!isAddressEqual(order.taker, expected.taker)) {
    return refuse(`the order's taker is ${order.taker}, not the filling contract ${expected.taker}`)
  }
  const intended = unpackNonceAndMeta(order.nonceAndMeta).intendedTaker
  if (!isAddressEqual(intended, expected.user)) {
    return refuse(`the order's nonceAndMeta names ${intended} in its low 160 bits, not the user ${expected.user}`)
  }
  const { publicClient } = chain.clients
  const latest = (await publicClient.getBlock({ blockTag: 'latest' })).timestamp
  if (order.expiry < latest + minFirmOrderLifetimeSeconds) {
    return refuse(`the order expires at ${order.expiry}, less than ${minFirmOrderLifetimeSeconds} s after the latest block (${latest})`)
  }
  const fill = fillOf(order, expected)
  if (typeof fill === 'string') return refuse(fill)
  const signature = await verifyOtcSignature(publicClient, {
    order,
    signature: wire.signature,
    domain: { chainId: chain.chainId, verifyingContract: chain.fixture.contracts.rfq },
    otherDomains: [],
  })
  if (!signature.valid) return refuse(`bad signature: ${signature.reason}`)
  const funds = await readMakerFunds(publicClient, { token: order.makerAsset, maker: order.maker, spender: chain.fixture.contracts.rfq })
  if (funds.balance < fill.makerFill)
    return refuse(`the maker ${order.maker} holds ${funds.balance} of ${order.makerAsset}; the fill pays ${fill.makerFill}`)
  if (funds.allowance < fill.makerFill) {
    return refuse(
      `the maker ${order.maker} approved ${funds.allowance} of ${order.makerAsset} to the RFQ contract; the fill pays ${fill.makerFill}`,
    )
  }
  return { ok: true, fill: { order, signature: wire.signature, ...fill } }
}

/** The fill the router will ask of the order, or why the order cannot serve the user. */
function fillOf(order: RfqOrder, expected: FirmExpectation): { takerFill: bigint; makerFill: bigint } | string {
  if (expected.side === 'SELL') {
    const takerFill = expected.amount
    if (takerFill > order.takerAmount) return `the order takes at most ${order.takerAmount}; the user sells ${takerFill}`
    const makerFill = (takerFill * order.makerAmount) / order.takerAmount
    if (makerFill < expected.bound) return `the order pays ${makerFill} for ${takerFill}; the user's minimum is ${expected.bound}`
    return { takerFill, makerFill }
  }
  const takerFill = ceilDiv(expected.amount * order.takerAmount, order.makerAmount)
  if (takerFill > order.takerAmount) return `the order pays at most ${order.makerAmount}; the user buys ${expected.amount}`
  if (takerFill > expected.bound) return `the order costs ${takerFill} for ${expected.amount}; the user's maximum is ${expected.bound}`
  return { takerFill, makerFill: (takerFill * order.makerAmount) / order.takerAmount }
}

function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator
}
