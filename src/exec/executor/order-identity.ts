import { type Address, hexToBigInt, stringToBytes } from 'viem'
import { keccak256Hex } from '../../protocol/keccak.js'

/**
 * A nonce derived from the account and the local order id, so that a restart that has to build the order again
 * builds it with the same nonce (and the venue's duplicate check by hash, or the contract's by nonce, holds).
 * `bits` is 128 for Delta orders, 96 for RFQ orders (the upper bits of nonceAndMeta).
 */
export function deterministicNonce(account: Address, orderId: string, bits: 96 | 128): bigint {
  const digest = hexToBigInt(keccak256Hex(stringToBytes(`deltaflow:${account.toLowerCase()}:${orderId}`)))
  return digest >> BigInt(256 - bits)
}
