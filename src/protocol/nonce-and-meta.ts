import { type Address, getAddress, isAddress, numberToHex } from 'viem'
import { ProtocolEncodingError } from './errors.js'

const addressBits = 160n
const addressMask = (1n << addressBits) - 1n
/** The nonce (random part) lives in the upper 96 bits. */
export const maxNonceAndMetaNonce = (1n << 96n) - 1n

export type NonceAndMeta = {
  /** Whom the order is meant for: the P2P counterparty, or the end user of a firm quote (zero: anyone). */
  intendedTaker: Address
  /** Below 2^96. */
  nonce: bigint
}

/**
 * `nonceAndMeta = intendedTaker + (nonce << 160)`, as the RFQ contract, the SDK and the maker document pack it
 * (section 4.3 of the API document words it the other way round; protocol-facts says to follow this one).
 */
export function packNonceAndMeta({ intendedTaker, nonce }: NonceAndMeta): bigint {
  if (!isAddress(intendedTaker, { strict: false })) {
    throw new ProtocolEncodingError('nonceAndMeta: intendedTaker is not an address', { intendedTaker })
  }
  if (nonce < 0n || nonce > maxNonceAndMetaNonce) {
    throw new ProtocolEncodingError('nonceAndMeta: the nonce must fit in 96 bits', { nonce, max: maxNonceAndMetaNonce })
  }
  return (nonce << addressBits) | BigInt(intendedTaker)
}

export function unpackNonceAndMeta(value: bigint): NonceAndMeta {
  if (value < 0n || value >= 1n << 256n) {
    throw new ProtocolEncodingError('nonceAndMeta must be a uint256', { value })
  }
  return {
    intendedTaker: getAddress(numberToHex(value & addressMask, { size: 20 })),
    nonce: value >> addressBits,
  }
}
