import { invert } from '@noble/curves/abstract/modular'
import { secp256k1 } from '@noble/curves/secp256k1'
import { type Address, encodeFunctionData, type Hex, hexToBigInt, isAddressEqual, numberToHex, recoverPublicKey, size, slice } from 'viem'
import { publicKeyToAddress } from 'viem/accounts'
import { toCompactSignature } from '../../../protocol/signature.js'
import type { ChainVenue } from '../../venue/chain-venue.js'
import { ethCalls } from './rpc-batch.js'

type Point = ReturnType<typeof secp256k1.ProjectivePoint.fromHex>
type KnownKey = { point: Point; uses: number }

const curveOrder = secp256k1.CURVE.n
const halfOrder = curveOrder >> 1n
/** Owners whose public key is known; beyond this the oldest are forgotten. */
const maxKnownKeys = 10_000
const knownKeys = new Map<string, KnownKey>()

export type VerifySignatureParameters = {
  chain: ChainVenue
  signer: Address
  digest: Hex
  signature: Hex
}

/**
 * Checks that `signer` signed `digest` as the Delta contract will: an EOA by ecrecover over a 65-byte or 64-byte
 * (ERC-2098) signature with a low s, a contract through EIP-1271 isValidSignature. Returns the signature to store
 * (the 64-byte compact form for an EOA, unchanged for a contract), or undefined when it is not valid.
 *
 * Recovering a key costs milliseconds, so an owner's public key is recovered once and later signatures are verified
 * against it (with precomputed multiples from the second one on), which keeps submissions fast.
 */
export async function verifySignature({ chain, signer, digest, signature }: VerifySignatureParameters): Promise<Hex | undefined> {
  const parts = splitSignature(signature)
  if (parts && parts.s <= halfOrder && (await signedByKey(signer, digest, parts))) return toCompactSignature(signature)
  return (await acceptedByContract(chain, signer, digest, signature)) ? signature : undefined
}

type SignatureParts = { r: bigint; s: bigint; yParity: 0 | 1 }

function splitSignature(signature: Hex): SignatureParts | undefined {
  if (!/^0x[0-9a-fA-F]*$/.test(signature)) return undefined
  const length = size(signature)
  if (length === 65) {
    const v = Number(hexToBigInt(slice(signature, 64, 65)))
    const yParity = v === 0 || v === 27 ? 0 : v === 1 || v === 28 ? 1 : undefined
    if (yParity === undefined) return undefined
    return { r: hexToBigInt(slice(signature, 0, 32)), s: hexToBigInt(slice(signature, 32, 64)), yParity }
  }
  if (length === 64) {
    const yParityAndS = hexToBigInt(slice(signature, 32, 64))
    return { r: hexToBigInt(slice(signature, 0, 32)), s: yParityAndS & ((1n << 255n) - 1n), yParity: yParityAndS >> 255n === 1n ? 1 : 0 }
  }
  return undefined
}

async function signedByKey(signer: Address, digest: Hex, parts: SignatureParts): Promise<boolean> {
  if (parts.r === 0n || parts.r >= curveOrder || parts.s === 0n) return false
  const key = signer.toLowerCase()
  const known = knownKeys.get(key)
  if (known) {
    known.uses += 1
    if (known.uses === 2) secp256k1.utils.precompute(8, known.point)
    return verifyWithKey(known.point, digest, parts)
  }
  let publicKey: Hex
  try {
    // viem recovers from the 65-byte form only: rebuild it from the parts (a 64-byte ERC-2098 input included).
    publicKey = await recoverPublicKey({
      hash: digest,
      signature: { r: numberToHex(parts.r, { size: 32 }), s: numberToHex(parts.s, { size: 32 }), yParity: parts.yParity },
    })
  } catch {
    return false
  }
  if (!isAddressEqual(publicKeyToAddress(publicKey), signer)) return false
  knownKeys.set(key, { point: secp256k1.ProjectivePoint.fromHex(publicKey.slice(2)), uses: 1 })
  if (knownKeys.size > maxKnownKeys) {
    const oldest = knownKeys.keys().next().value
    if (oldest !== undefined) knownKeys.delete(oldest)
  }
  return true
}

/**
 * ECDSA verification that also checks the recovery bit, so it accepts exactly the signatures ecrecover maps to this
 * key: R = (h·G + r·P) / s must have x ≡ r and the signed y parity.
 */
function verifyWithKey(point: Point, digest: Hex, { r, s, yParity }: SignatureParts): boolean {
  const w = invert(s, curveOrder)
  const h = hexToBigInt(digest) % curveOrder
  const u1 = (h * w) % curveOrder
  const u2 = (r * w) % curveOrder
  const base = secp256k1.ProjectivePoint.BASE
  const sum = (u1 === 0n ? secp256k1.ProjectivePoint.ZERO : base.multiply(u1)).add(point.multiply(u2))
  if (sum.equals(secp256k1.ProjectivePoint.ZERO)) return false
  const { x, y } = sum.toAffine()
  return x === r && Number(y & 1n) === yParity
}

const isValidSignatureAbi = [
  {
    type: 'function',
    name: 'isValidSignature',
    stateMutability: 'view',
    inputs: [
      { name: 'hash', type: 'bytes32' },
      { name: 'signature', type: 'bytes' },
    ],
    outputs: [{ name: '', type: 'bytes4' }],
  },
] as const

/** EIP-1271: the signer has code and its isValidSignature(digest, signature) answers the magic value 0x1626ba7e. */
async function acceptedByContract(chain: ChainVenue, signer: Address, digest: Hex, signature: Hex): Promise<boolean> {
  if (!/^0x([0-9a-fA-F]{2})*$/.test(signature)) return false
  const data = encodeFunctionData({ abi: isValidSignatureAbi, functionName: 'isValidSignature', args: [digest, signature] })
  const [code, answer] = await ethCalls(chain.rpcUrl, [
    { method: 'eth_getCode', params: [signer, 'latest'] },
    { method: 'eth_call', params: [{ to: signer, data }, 'latest'] },
  ])
  return code !== undefined && code !== '0x' && answer !== undefined && answer.slice(0, 10).toLowerCase() === '0x1626ba7e'
}
