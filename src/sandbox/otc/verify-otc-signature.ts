import {
  type Address,
  type Hex,
  hexToBigInt,
  isAddressEqual,
  type PublicClient,
  parseAbi,
  parseSignature,
  recoverAddress,
  size,
} from 'viem'
import { hashRfqOrder, type RfqDomainParameters, type RfqOrder } from '../../protocol/rfq-order.js'
import { fromCompactSignature } from '../../protocol/signature.js'

const eip1271Abi = parseAbi(['function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)'])
const eip1271MagicValue = '0x1626ba7e'
/** Highest `s` the contract's ecrecover path accepts (lower half of the curve order, EIP-2). */
const maxLowS = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n

export type VerifyOtcSignatureParameters = {
  order: RfqOrder
  signature: Hex
  domain: RfqDomainParameters
  /** Domains of other chains and contracts, to tell a user whose signature fits one of them. */
  otherDomains: readonly RfqDomainParameters[]
}

export type VerifyOtcSignatureReturnType = { valid: true; orderHash: Hex } | { valid: false; orderHash: Hex; reason: string }

/**
 * Checks a maker's signature as the RFQ contract will on the first fill: ecrecover of a 65-byte or 64-byte
 * (ERC-2098) signature for an EOA, `isValidSignature` (EIP-1271) when the maker has code.
 */
export async function verifyOtcSignature(
  client: PublicClient,
  { order, signature, domain, otherDomains }: VerifyOtcSignatureParameters,
): Promise<VerifyOtcSignatureReturnType> {
  const orderHash = hashRfqOrder(order, domain)
  const code = await client.getCode({ address: order.maker })
  if (code && code !== '0x') {
    const accepted = await client
      .readContract({ address: order.maker, abi: eip1271Abi, functionName: 'isValidSignature', args: [orderHash, signature] })
      .catch(() => undefined)
    if (accepted?.toLowerCase() === eip1271MagicValue) return { valid: true, orderHash }
    return {
      valid: false,
      orderHash,
      reason: `the maker ${order.maker} is a contract and its isValidSignature(${orderHash}, signature) did not return ${eip1271MagicValue} (EIP-1271)`,
    }
  }

  const bytes = size(signature)
  if (bytes !== 64 && bytes !== 65) {
    return {
      valid: false,
      orderHash,
      reason: `an EOA signature must be 65 bytes (r, s, v) or 64 bytes (ERC-2098 compact); received ${bytes} bytes`,
    }
  }
  let full: Hex
  try {
    full = fromCompactSignature(signature)
    if (hexToBigInt(parseSignature(full).s) > maxLowS) {
      return {
        valid: false,
        orderHash,
        reason: 's is in the upper half of the curve order (a malleable signature the RFQ contract refuses)',
      }
    }
  } catch {
    return { valid: false, orderHash, reason: 'the signature is not a valid ECDSA signature (bad v)' }
  }
  const signer = await recoverSigner(orderHash, full)
  if (signer && isAddressEqual(signer, order.maker)) return { valid: true, orderHash }

  for (const other of otherDomains) {
    const otherSigner = await recoverSigner(hashRfqOrder(order, other), full)
    if (otherSigner && isAddressEqual(otherSigner, order.maker)) {
      return {
        valid: false,
        orderHash,
        reason:
          `the signature was made for the RFQ domain of chainId ${other.chainId} and verifyingContract ${other.verifyingContract}; ` +
          `orders posted to chain ${domain.chainId} must be signed with chainId ${domain.chainId} and verifyingContract ${domain.verifyingContract}`,
      }
    }
  }
  return {
    valid: false,
    orderHash,
    reason:
      `it recovers to ${signer ?? 'no address'}, not to the maker ${order.maker}, under the domain ` +
      `{ name: "AUGUSTUS RFQ", version: "1", chainId: ${domain.chainId}, verifyingContract: ${domain.verifyingContract} }; ` +
      'check that every signed field equals the posted one',
  }
}

async function recoverSigner(hash: Hex, signature: Hex): Promise<Address | undefined> {
  try {
    return await recoverAddress({ hash, signature })
  } catch {
    return undefined
  }
}
