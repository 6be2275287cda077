import {
  compactSignatureToSignature,
  type Hex,
  parseCompactSignature,
  parseSignature,
  serializeCompactSignature,
  serializeSignature,
  signatureToCompactSignature,
  size,
} from 'viem'
import { ProtocolEncodingError } from './errors.js'

/**
 * ERC-2098 compact form (64 bytes: r ‖ yParity·2^255 + s). Delta orders are sent with EOA signatures in this form.
 * A 64-byte input is returned unchanged (lowercased).
 */
export function toCompactSignature(signature: Hex): Hex {
  const length = signatureLength(signature)
  if (length === 64) return signature.toLowerCase() as Hex
  return compactOfValid(signature) ?? serializeCompactSignature(signatureToCompactSignature(parseSignature(signature)))
}

/** secp256k1's group order: r and s (and, compact, yParity·2^255 + s) lie in [1, n). */
const curveOrder = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

/**
 * The compact form of a 65-byte signature by string operations, as viem's parse and serialize give it; undefined for
 * one they refuse (r, s or yParity out of range), which then takes viem's path to its error.
 */
function compactOfValid(signature: Hex): Hex | undefined {
  const r = signature.slice(2, 66)
  const s = signature.slice(66, 130)
  const v = Number.parseInt(signature.slice(130), 16)
  const yParity = v === 0 || v === 27 ? 0 : v === 1 || v === 28 ? 1 : undefined
  if (yParity === undefined || !inOrder(r) || !inOrder(s)) return undefined
  const yParityAndS = yParity === 0 ? s : (Number.parseInt(s.slice(0, 2), 16) | 0x80).toString(16) + s.slice(2)
  return inOrder(yParityAndS) ? (`0x${r}${yParityAndS}`.toLowerCase() as Hex) : undefined
}

function inOrder(word: string): boolean {
  const value = BigInt(`0x${word}`)
  return value > 0n && value < curveOrder
}

/** The 65-byte (r ‖ s ‖ v) form of a signature; a 65-byte input is returned unchanged (lowercased). */
export function fromCompactSignature(signature: Hex): Hex {
  const length = signatureLength(signature)
  if (length === 65) return signature.toLowerCase() as Hex
  return serializeSignature(compactSignatureToSignature(parseCompactSignature(signature)))
}

function signatureLength(signature: Hex): 64 | 65 {
  const length = /^0x[0-9a-fA-F]*$/.test(signature) && signature.length % 2 === 0 ? size(signature) : -1
  if (length !== 64 && length !== 65) {
    throw new ProtocolEncodingError(
      'An ECDSA signature must be 64 (ERC-2098 compact) or 65 bytes of hex',
      { received: signature.length > 140 ? `${signature.slice(0, 140)}…` : signature, bytes: length },
      'Pass the signature exactly as the wallet returned it.',
    )
  }
  return length
}
