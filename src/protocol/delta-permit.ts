import { type Address, concat, decodeAbiParameters, encodeAbiParameters, type Hex, numberToHex, size, slice } from 'viem'
import { ProtocolEncodingError } from './errors.js'
import { toCompactSignature } from './signature.js'

/**
 * The `permit` field of a Delta order, interpreted by its byte length (protocol-facts):
 * 0 none, 1 existing Permit2 allowance, 96 Permit2 signature transfer, 192 Permit2 allowance permit,
 * 224 EIP-2612 permit arguments, 256 DAI-style permit arguments.
 */
export type DeltaPermit =
  /** A plain ERC-20 allowance to the Delta contract is used. */
  | { type: 'none' }
  /** An existing Permit2 allowance (token approved to Permit2, Permit2 allowance to the Delta contract). */
  | { type: 'permit2Approved' }
  /** Permit2 signature transfer: not for fillable orders. `signature` is stored in 64-byte compact form. */
  | { type: 'permit2Transfer'; nonce: bigint; signature: Hex }
  /** Permit2 allowance permit with spender = the Delta contract. */
  | { type: 'permit2Allowance'; amount: bigint; nonce: bigint; expiration: bigint; sigDeadline: bigint; signature: Hex }
  /** `permit(owner, spender, value, deadline, v, r, s)` on an EIP-2612 token. */
  | { type: 'eip2612'; owner: Address; spender: Address; value: bigint; deadline: bigint; v: number; r: Hex; s: Hex }
  /** `permit(holder, spender, nonce, expiry, allowed, v, r, s)` on a DAI-style token. */
  | { type: 'dai'; holder: Address; spender: Address; nonce: bigint; expiry: bigint; allowed: boolean; v: number; r: Hex; s: Hex }

export type DeltaPermitType = DeltaPermit['type']

/** Byte length of each encoding. */
export const deltaPermitLengths: Readonly<Record<DeltaPermitType, number>> = {
  none: 0,
  permit2Approved: 1,
  permit2Transfer: 96,
  permit2Allowance: 192,
  eip2612: 224,
  dai: 256,
}

const maxUint48 = (1n << 48n) - 1n
const maxUint160 = (1n << 160n) - 1n

const eip2612Parameters = [
  { type: 'address' },
  { type: 'address' },
  { type: 'uint256' },
  { type: 'uint256' },
  { type: 'uint8' },
  { type: 'bytes32' },
  { type: 'bytes32' },
] as const

const daiParameters = [
  { type: 'address' },
  { type: 'address' },
  { type: 'uint256' },
  { type: 'uint256' },
  { type: 'bool' },
  { type: 'uint8' },
  { type: 'bytes32' },
  { type: 'bytes32' },
] as const

const permit2AllowanceWords = [{ type: 'uint256' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'uint256' }] as const

export function encodeDeltaPermit(permit: DeltaPermit): Hex {
  switch (permit.type) {
    case 'none':
      return '0x'
    case 'permit2Approved':
      return '0x01'
    case 'permit2Transfer':
      return concat([numberToHex(permit.nonce, { size: 32 }), toCompactSignature(permit.signature)])
    case 'permit2Allowance':
      checkRange('amount', permit.amount, maxUint160)
      checkRange('nonce', permit.nonce, maxUint48)
      checkRange('expiration', permit.expiration, maxUint48)
      return concat([
        encodeAbiParameters(permit2AllowanceWords, [permit.amount, permit.nonce, permit.expiration, permit.sigDeadline]),
        toCompactSignature(permit.signature),
      ])
    case 'eip2612':
      return encodeAbiParameters(eip2612Parameters, [
        permit.owner,
        permit.spender,
        permit.value,
        permit.deadline,
        permit.v,
        permit.r,
        permit.s,
      ])
    case 'dai':
      return encodeAbiParameters(daiParameters, [
        permit.holder,
        permit.spender,
        permit.nonce,
        permit.expiry,
        permit.allowed,
        permit.v,
        permit.r,
        permit.s,
      ])
  }
}

export function decodeDeltaPermit(bytes: Hex): DeltaPermit {
  const length = size(bytes)
  switch (length) {
    case 0:
      return { type: 'none' }
    case 1:
      if (bytes !== '0x01')
        throw new ProtocolEncodingError('A 1-byte Delta permit must be 0x01 (existing Permit2 allowance)', { permit: bytes })
      return { type: 'permit2Approved' }
    case 96:
      return { type: 'permit2Transfer', nonce: BigInt(slice(bytes, 0, 32)), signature: slice(bytes, 32, 96) }
    case 192: {
      const [amount, nonce, expiration, sigDeadline] = decodeAbiParameters(permit2AllowanceWords, slice(bytes, 0, 128))
      return { type: 'permit2Allowance', amount, nonce, expiration, sigDeadline, signature: slice(bytes, 128, 192) }
    }
    case 224: {
      const [owner, spender, value, deadline, v, r, s] = decodeAbiParameters(eip2612Parameters, bytes)
      return { type: 'eip2612', owner, spender, value, deadline, v, r, s }
    }
    case 256: {
      const [holder, spender, nonce, expiry, allowed, v, r, s] = decodeAbiParameters(daiParameters, bytes)
      return { type: 'dai', holder, spender, nonce, expiry, allowed, v, r, s }
    }
    default:
      throw new ProtocolEncodingError(
        `A Delta permit of ${length} bytes has no meaning`,
        { permit: bytes.length > 80 ? `${bytes.slice(0, 80)}…` : bytes, expectedLengths: Object.values(deltaPermitLengths) },
        'Use one of the encodings in encodeDeltaPermit.',
      )
  }
}

function checkRange(field: string, value: bigint, max: bigint): void {
  if (value < 0n || value > max) throw new ProtocolEncodingError(`Permit2 allowance permit: ${field} out of range`, { field, value, max })
}
