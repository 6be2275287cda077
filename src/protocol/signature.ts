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
  return serializeCompactSignature(signatureToCompactSignature(parseSignature(signature)))
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
