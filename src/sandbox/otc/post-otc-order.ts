import { type Address, isAddressEqual } from 'viem'
import { nativeTokenPlaceholder, rfqAddresses, zeroAddress } from '../../protocol/addresses.js'
import { unpackNonceAndMeta } from '../../protocol/nonce-and-meta.js'
import type { RfqDomainParameters, RfqOrder } from '../../protocol/rfq-order.js'
import { unixSeconds } from '../../time/clock.js'
import { ApiError } from '../server/api-error.js'
import type { SandboxVenue } from '../venue/sandbox-venue.js'
import type { OtcChainTracker } from './otc-chain-tracker.js'
import { otcErrors } from './otc-errors.js'
import type { StoredOtcOrder } from './otc-order.js'
import type { OtcOrderBody } from './otc-order-request.js'
import type { OtcOrderStore } from './otc-order-store.js'
import { readMakerFunds } from './read-maker-funds.js'
import { verifyOtcSignature } from './verify-otc-signature.js'

export type OtcDeskContext = {
  venue: SandboxVenue
  store: OtcOrderStore
  trackers: ReadonlyMap<number, OtcChainTracker>
}

export type PostOtcOrderParameters = { chainId: number; body: OtcOrderBody }

/**
 * POST /ft/p2p/{chainId}/: checks the order and its signature against the RFQ domain of that chain, then stores it
 * PENDING, or SUSPENDED when the maker's balance or RFQ allowance does not cover makerAmount (section 3.2).
 * Posting an order already stored returns the stored one.
 */
export async function postOtcOrder(context: OtcDeskContext, { chainId, body }: PostOtcOrderParameters): Promise<StoredOtcOrder> {
  const tracker = context.trackers.get(chainId)
  if (!tracker) {
    throw new ApiError(otcErrors.unsupportedChain, {
      message: `Unsupported chain: ${chainId} is not running in this sandbox (running: ${[...context.trackers.keys()].join(', ')})`,
    })
  }
  const { chain } = tracker
  if (isNativeAsset(body.makerAsset)) {
    throw new ApiError(otcErrors.nativeMakerAsset, {
      message:
        `Invalid makerAsset: ${body.makerAsset} is the native asset, and the RFQ contract moves ERC-20 tokens only; ` +
        `wrap it first (${chain.wrappedNative.symbol} ${chain.wrappedNative.address} on chain ${chainId}) and sign the order with the wrapped token`,
    })
  }
  if (isNativeAsset(body.takerAsset)) {
    throw new ApiError(otcErrors.nativeTakerAsset, {
      message:
        `Invalid takerAsset: ${body.takerAsset} is the native asset, and the RFQ contract moves ERC-20 tokens only; ` +
        `ask for ${chain.wrappedNative.symbol} ${chain.wrappedNative.address} instead`,
    })
  }
  const order: RfqOrder = {
    nonceAndMeta: body.nonceAndMeta,
    expiry: BigInt(body.expiry),
    makerAsset: body.makerAsset,
    takerAsset: body.takerAsset,
    maker: body.maker,
    taker: body.taker,
    makerAmount: body.makerAmount,
    takerAmount: body.takerAmount,
  }
  const rfq = chain.fixture.contracts.rfq
  const domain = { chainId, verifyingContract: rfq }
  const verified = await verifyOtcSignature(chain.clients.publicClient, {
    order,
    signature: body.signature,
    domain,
    otherDomains: otherRfqDomains(context, domain),
  })
  if (!verified.valid) throw new ApiError(otcErrors.invalidSignature, { message: `Invalid signature: ${verified.reason}` })
  // A retried post of a stored order gets it back, even once it has expired.
  const existing = context.store.get(verified.orderHash)
  if (existing) return existing
  const nowSeconds = unixSeconds(context.venue.clock)
  if (body.expiry !== 0 && body.expiry < nowSeconds) {
    throw new ApiError(otcErrors.orderExpired, {
      message: `Order expired: expiry ${body.expiry} is before the sandbox time ${nowSeconds} (use 0 for an order that never expires)`,
    })
  }

  const funds = await readMakerFunds(chain.clients.publicClient, { token: order.makerAsset, maker: order.maker, spender: rfq }).catch(
    () => {
      throw new ApiError(otcErrors.makerAssetNotToken, {
        message: `Invalid makerAsset: no ERC-20 token answers balanceOf and allowance at ${order.makerAsset} on chain ${chainId}`,
      })
    },
  )
  return tracker.admit({
    orderHash: verified.orderHash.toLowerCase() as StoredOtcOrder['orderHash'],
    chainId,
    order,
    signature: body.signature,
    permitMakerAsset: body.permitMakerAsset ?? null,
    type: isAddressEqual(order.taker, zeroAddress) ? 'LIMIT' : 'P2P',
    // protocol-facts: the intended taker sits in the low 160 bits (section 4.3 words the packing the other way round).
    takerFromMeta: unpackNonceAndMeta(order.nonceAndMeta).intendedTaker,
    state: 'PENDING',
    filledMakerAmount: 0n,
    filledTakerAmount: 0n,
    makerFunds: funds.available,
    transactionHash: null,
    appliedLogs: new Set(),
    pendingSince: undefined,
    createdAt: nowSeconds,
    updatedAt: nowSeconds,
    history: [],
  })
}

function isNativeAsset(address: Address): boolean {
  return isAddressEqual(address, nativeTokenPlaceholder) || isAddressEqual(address, zeroAddress)
}

/** RFQ domains a user may have signed by mistake: the other running chains, and production RFQ contracts. */
function otherRfqDomains(context: OtcDeskContext, domain: RfqDomainParameters): RfqDomainParameters[] {
  const candidates: RfqDomainParameters[] = [
    ...[...context.trackers.values()].map(({ chain }) => ({ chainId: chain.chainId, verifyingContract: chain.fixture.contracts.rfq })),
    ...Object.entries(rfqAddresses).flatMap(([chainId, verifyingContract]) => [
      { chainId: Number(chainId), verifyingContract },
      { chainId: domain.chainId, verifyingContract },
      { chainId: Number(chainId), verifyingContract: domain.verifyingContract },
    ]),
  ]
  const seen = new Set([`${domain.chainId}:${domain.verifyingContract.toLowerCase()}`])
  return candidates.filter((candidate) => {
    const key = `${candidate.chainId}:${candidate.verifyingContract.toLowerCase()}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
