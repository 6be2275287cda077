import type { Hex } from 'viem'
import { BaseError } from '../errors/base.js'

/** Order of the secp256k1 group: a private key is an integer in [1, n − 1]. */
const curveOrder = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

/**
 * The key as 0x + 64 lowercase hex digits. The value never reaches an error message, not even in part: errors say
 * only what shape was expected and how long the input was.
 */
export function checkPrivateKey(value: string, source = 'the private key'): Hex {
  const trimmed = value.trim()
  if (!/^(0x)?[0-9a-fA-F]{64}$/.test(trimmed)) {
    throw new InvalidPrivateKeyError(`${source} must be 64 hex digits (optionally 0x-prefixed), received ${trimmed.length} characters`)
  }
  const key = `0x${trimmed.replace(/^0x/, '').toLowerCase()}` as Hex
  const scalar = BigInt(key)
  if (scalar === 0n || scalar >= curveOrder) throw new InvalidPrivateKeyError(`${source} is not a valid secp256k1 key (out of range)`)
  return key
}

/** The configured private key is malformed. Fatal: the user fixes the key (DELTAFLOW_PRIVATE_KEY or the keystore). */
export class InvalidPrivateKeyError extends BaseError {
  override name = 'InvalidPrivateKeyError' as const
  constructor(reason: string) {
    super(`Invalid private key: ${reason}`, {
      hint: 'Set DELTAFLOW_PRIVATE_KEY to the 32-byte key in hex, or use an encrypted keystore instead.',
      errorClass: 'fatal',
    })
  }
}
