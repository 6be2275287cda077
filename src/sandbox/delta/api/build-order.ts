import type { Address, Hex } from 'viem'
import { type DeltaPermit, decodeDeltaPermit } from '../../../protocol/delta-permit.js'
import type { DeltaDomainParameters } from '../../../protocol/delta-types.js'
import { packPartnerAndFee } from '../../../protocol/partner-and-fee.js'
import { ApiError, commonErrors } from '../../server/api-error.js'
import { parseRequestPart } from '../../server/validate.js'
import type { SandboxVenue } from '../../venue/sandbox-venue.js'
import type { SignedStruct } from '../order-store.js'
import { type BuildRequest, buildRequestSchema, settlesOverTime } from './build-request.js'
import { buildExternalStruct, buildStandardStruct, buildTwapBuyStruct, buildTwapStruct, type CommonFields } from './build-structs.js'
import type { DeltaApiContext } from './delta-api-context.js'
import { requireDeltaChain } from './delta-chains.js'
import { deltaError, deltaErrors } from './delta-errors.js'
import { type DeltaToken, isNativeSpelling, isValidNativeSpelling, resolveDeltaToken } from './delta-tokens.js'
import { type OrderWire, signedStructToWire } from './order-wire.js'
import { type ParsedRoute, routeSchema } from './route-json.js'
import { routeRegistryOf } from './route-registry.js'
import { hashSignedStruct, type TypedDataOf, typedDataOf } from './signed-struct.js'

export type BuiltOrderJson = {
  toSign: { domain: TypedDataOf['domain']; types: TypedDataOf['types']; value: OrderWire }
  orderHash: Hex
}

/** POST /v2/delta/orders/build: the EIP-712 typed data of an order over a route of GET /v2/delta/prices. */
export function buildDeltaOrder({ venue }: DeltaApiContext, rawBody: unknown): BuiltOrderJson {
  if (rawBody !== null && typeof rawBody === 'object' && (rawBody as Record<string, unknown>).deadline === undefined) {
    throw deltaError(deltaErrors.missingDeadline, 'body.deadline is required (unix seconds)')
  }
  const request = parseRequestPart(buildRequestSchema, rawBody, 'body')
  const route = recallRoute(venue, request)
  const { chain, delta } = requireDeltaChain(venue, route.origin.input.token.chainId)
  const srcAddress = route.origin.input.token.address
  if (isNativeSpelling(srcAddress) && !isValidNativeSpelling(srcAddress)) {
    throw deltaError(
      deltaErrors.invalidSrcToken,
      `the native asset must be 0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE, received ${srcAddress}`,
    )
  }
  const src = routeToken(resolveDeltaToken(chain, srcAddress), srcAddress)
  // Crosschain, the struct's destToken is the bridged token on the source chain (route.origin.output).
  const destAddress = route.origin.output.token.address
  const dest = routeToken(resolveDeltaToken(chain, destAddress), destAddress)
  checkPermit(request, src, decodePermit(request.permit))
  const common: CommonFields = {
    owner: request.owner,
    srcToken: orderToken(src),
    destToken: orderToken(dest),
    nonce: request.nonce ?? nextNonce(venue),
    partnerAndFee: packPartnerAndFee({
      partner: request.partnerAddress,
      feeBps: request.partnerFeeBps,
      partnerTakesSurplus: request.partnerTakesSurplus,
      capSurplus: request.capSurplus,
    }),
    permit: request.permit,
    metadata: request.metadata,
  }
  const parameters = { request, route, common }
  const domain: DeltaDomainParameters = { chainId: chain.chainId, verifyingContract: delta }
  switch (request.orderType) {
    case 'Order':
    case 'FillableOrder':
      return toSignOf(buildStandardStruct(parameters), domain)
    case 'ExternalOrder':
      return toSignOf(buildExternalStruct(parameters), domain)
    case 'TWAPOrder':
      return toSignOf(buildTwapStruct(parameters), domain)
    case 'TWAPBuyOrder':
      return toSignOf(buildTwapBuyStruct(parameters), domain)
    case 'ProductiveOrder':
      throw deltaError(
        deltaErrors.invalidProductiveOrderParams,
        request.strategy
          ? `strategy ${request.strategy} is not a Delta strategy on chain ${chain.chainId}: the sandbox has no yield strategies`
          : 'strategy (address) is required',
      )
  }
}

/** The route must be one this run quoted, unmodified, and built on the side it was quoted for. */
function recallRoute(venue: SandboxVenue, request: BuildRequest): ParsedRoute {
  const quoted = routeRegistryOf(venue).recall(request.route)
  if (!quoted) {
    throw deltaError(
      deltaErrors.routeValidation,
      'the route differs from every route GET /v2/delta/prices returned in this sandbox run (mutated, re-encoded, or numbers cast from strings)',
    )
  }
  if (quoted.side !== request.side) {
    throw deltaError(deltaErrors.routeValidation, `side ${request.side} differs from the quote's side ${quoted.side}`)
  }
  return routeSchema.parse(request.route)
}

function decodePermit(permit: Hex): DeltaPermit {
  try {
    return decodeDeltaPermit(permit)
  } catch (cause) {
    throw new ApiError(commonErrors.validation, { message: `Validation failed: body.permit: ${(cause as Error).message.split('\n')[0]}` })
  }
}

/**
 * Permit-only tokens need a permit; LIMIT and TWAP orders settle over time, so they must rely on an on-chain
 * approval: none (ERC-20 allowance) or 0x01 (existing Permit2 allowance).
 */
function checkPermit(request: BuildRequest, src: DeltaToken, permit: DeltaPermit): void {
  if (!src.native && src.pooled.kind === 'permitOnly' && permit.type === 'none') {
    throw deltaError(deltaErrors.permitRequired, `${src.pooled.symbol} moves only through a permit or Permit2`)
  }
  if (settlesOverTime(request) && permit.type !== 'none' && permit.type !== 'permit2Approved') {
    throw deltaError(deltaErrors.permitNotAllowed, `a ${permit.type} permit cannot back an order that settles over time`)
  }
}

function routeToken(token: DeltaToken | undefined, address: string): DeltaToken {
  if (!token) throw deltaError(deltaErrors.routeValidation, `token ${address} of the route is unknown`)
  return token
}

/** Tokens as the real service writes them in a struct: lowercase, the native asset as its mixed-case placeholder. */
function orderToken(token: DeltaToken): Address {
  return token.native ? token.orderAddress : (token.orderAddress.toLowerCase() as Address)
}

const nonceCounters = new WeakMap<SandboxVenue, { next: bigint }>()

/** Unique per build: sandbox milliseconds followed by a six-digit counter. */
function nextNonce(venue: SandboxVenue): bigint {
  let counter = nonceCounters.get(venue)
  if (!counter) {
    counter = { next: 0n }
    nonceCounters.set(venue, counter)
  }
  const nonce = BigInt(venue.clock.now()) * 1_000_000n + (counter.next % 1_000_000n)
  counter.next += 1n
  return nonce
}

function toSignOf(signed: SignedStruct, domain: DeltaDomainParameters): BuiltOrderJson {
  const { domain: typedDomain, types } = typedDataOf(signed, domain)
  return { toSign: { domain: typedDomain, types, value: signedStructToWire(signed) }, orderHash: hashSignedStruct(signed, domain) }
}
