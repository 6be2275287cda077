import type { Hex } from 'viem'
import { type DeltaPermit, decodeDeltaPermit } from '../../protocol/delta-permit.js'
import { ApiError } from '../server/api-error.js'
import { marketErrors } from './market-errors.js'

export type TokenPermit = Extract<DeltaPermit, { type: 'eip2612' | 'dai' }>
export type Permit2Payload = Extract<DeltaPermit, { type: 'permit2Approved' | 'permit2Transfer' | 'permit2Allowance' }>

/**
 * The `permit` of a build, by its length as the Delta permit field encodes it (protocol-facts): a token's own permit
 * (EIP-2612, DAI-style), which the sandbox submits before the swap, or a Permit2 payload, which the router uses in the
 * swap in place of an allowance to it (section 5.6 of the service document allows either).
 */
export type MarketPermit =
  | { kind: 'none' }
  | { kind: 'token'; permit: TokenPermit }
  | { kind: 'permit2'; permit: Permit2Payload; bytes: Hex }

export function classifyPermit(bytes: Hex | undefined): MarketPermit {
  if (bytes === undefined || bytes === '0x') return { kind: 'none' }
  let decoded: DeltaPermit
  try {
    decoded = decodeDeltaPermit(bytes)
  } catch {
    throw permitNotSupported(`a permit of ${(bytes.length - 2) / 2} bytes has no meaning`)
  }
  switch (decoded.type) {
    case 'none':
      return { kind: 'none' }
    case 'eip2612':
    case 'dai':
      return { kind: 'token', permit: decoded }
    default:
      return { kind: 'permit2', permit: decoded, bytes }
  }
}

export function permitNotSupported(detail: string): ApiError {
  return new ApiError(marketErrors.permitNotSupported, {
    message: `Permit not supported: ${detail}; send an EIP-2612 (224 bytes) or DAI-style (256 bytes) permit to the router, a Permit2 payload (1, 96 or 192 bytes) for the router, or approve the router`,
  })
}

export function invalidPermit(detail: string): ApiError {
  return new ApiError(marketErrors.invalidPermit, { message: `Invalid permit: ${detail}` })
}
