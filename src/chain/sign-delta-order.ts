import { type Hex, isAddressEqual } from 'viem'
import { deltaOrderTypes, externalOrderTypes, getDeltaDomain, twapBuyOrderTypes, twapOrderTypes } from '../protocol/delta-types.js'
import { toCompactSignature } from '../protocol/signature.js'
import { compileStructHasher, domainSeparatorOf, typedDataDigest } from '../protocol/typed-data-hash.js'
import type { SigningAccount } from './sign-token-permit.js'
import type { Spender } from './spender.js'
import {
  compareDomain,
  compareTypes,
  normaliseStruct,
  type Problems,
  SignedPayloadMismatchError,
  type TypedFields,
} from './typed-data-check.js'

/** `toSign` of POST /v2/delta/orders/build, as received (parsed JSON, not yet trusted). */
export type ReceivedToSign = { domain?: unknown; types?: unknown; value?: unknown }

/** The signed struct families of protocol-facts, by primary type. */
const orderTypes = {
  Order: deltaOrderTypes,
  TWAPOrder: twapOrderTypes,
  TWAPBuyOrder: twapBuyOrderTypes,
  ExternalOrder: externalOrderTypes,
} as const satisfies Record<string, TypedFields>

export type DeltaPrimaryType = keyof typeof orderTypes

/** An address as normaliseStruct leaves it (lowercase). */
const normalisedAddress = /^0x[0-9a-f]{40}$/

/** Struct hashers compiled once per order type (viem's hashTypedData re-derives the type strings on every call). */
const orderHashers = {
  Order: compileStructHasher(deltaOrderTypes, 'Order'),
  TWAPOrder: compileStructHasher(twapOrderTypes, 'TWAPOrder'),
  TWAPBuyOrder: compileStructHasher(twapBuyOrderTypes, 'TWAPBuyOrder'),
  ExternalOrder: compileStructHasher(externalOrderTypes, 'ExternalOrder'),
} satisfies Record<DeltaPrimaryType, unknown>

export type SignDeltaOrderParameters = {
  toSign: ReceivedToSign
  /** The Delta contract of the order's source chain: the expected verifying contract and chain id. */
  delta: Spender<'delta'>
  /** The build response's `orderHash`, when it has one: the signed digest must equal it. */
  orderHash?: Hex | undefined
  /** Fields the order must carry as the build request named them (e.g. `permit`, `srcToken`, `beneficiary`). */
  expected?: Readonly<Record<string, unknown>> | undefined
}

export type SignDeltaOrderReturnType = {
  /** ERC-2098 compact (64 bytes), the form Delta orders are submitted with. */
  signature: Hex
  orderHash: Hex
  primaryType: DeltaPrimaryType
}

/**
 * Signs a built Delta order after checking it: the types are exactly one of the protocol's order structs, the value
 * has exactly its fields with valid values, the domain is Portikus 2.0.0 on the Delta contract of the chain, the
 * owner is the signer, the `expected` fields match, and the digest equals the server's `orderHash`. Any difference
 * is a SignedPayloadMismatchError and nothing is signed.
 */
export async function signDeltaOrder(account: SigningAccount, parameters: SignDeltaOrderParameters): Promise<SignDeltaOrderReturnType> {
  const { toSign, delta, orderHash, expected = {} } = parameters
  const problems: Problems = []
  const primaryType = primaryTypeOf(toSign.types, problems)
  if (!primaryType) throw new SignedPayloadMismatchError('Delta order', problems)
  const types = orderTypes[primaryType]
  const domain = getDeltaDomain({ chainId: delta.chainId, verifyingContract: delta.address })
  compareTypes(toSign.types, types, domain, problems)
  compareDomain(toSign.domain, domain, problems)
  const message = normaliseStruct(types, primaryType, toSign.value, 'value', problems)
  const owner = message.owner
  if (typeof owner === 'string' && normalisedAddress.test(owner) && !isAddressEqual(owner as Hex, account.address)) {
    problems.push(`value.owner: the order is owned by ${owner}, not by the signing account ${account.address}`)
  }
  compareExpected(types, primaryType, message, expected, problems)
  if (problems.length > 0) throw new SignedPayloadMismatchError('Delta order', problems, { chainId: delta.chainId, primaryType })
  const digest = typedDataDigest(domainSeparatorOf(domain), orderHashers[primaryType](message))
  if (orderHash !== undefined && digest.toLowerCase() !== orderHash.toLowerCase()) {
    throw new SignedPayloadMismatchError('Delta order', [`orderHash: the server says ${orderHash}, the payload hashes to ${digest}`], {
      chainId: delta.chainId,
      primaryType,
    })
  }
  // A local key signs the digest just computed (the same signature as signTypedData, without hashing twice).
  const signature = account.sign
    ? await account.sign({ hash: digest })
    : await account.signTypedData({ domain, types, primaryType, message } as never)
  return { signature: toCompactSignature(signature), orderHash: digest, primaryType }
}

function primaryTypeOf(types: unknown, problems: Problems): DeltaPrimaryType | undefined {
  const names = typeof types === 'object' && types !== null ? Object.keys(types) : []
  const candidates = (Object.keys(orderTypes) as DeltaPrimaryType[]).filter((name) => names.includes(name))
  if (candidates.length === 1) return candidates[0]
  problems.push(
    candidates.length === 0
      ? `types: none of ${Object.keys(orderTypes).join(', ')} (received ${names.join(', ') || 'nothing'})`
      : `types: more than one order struct (${candidates.join(', ')})`,
  )
  return undefined
}

/** Each expected field, normalised by its type like the value, must be equal to the signed one. */
export function compareExpected(
  types: TypedFields,
  typeName: string,
  message: Record<string, unknown>,
  expected: Readonly<Record<string, unknown>>,
  problems: Problems,
): void {
  const fields = types[typeName] ?? []
  for (const [name, wanted] of Object.entries(expected)) {
    const field = fields.find((candidate) => candidate.name === name)
    if (!field) {
      problems.push(`expected.${name}: not a field of ${typeName}`)
      continue
    }
    const normalisedWanted = normaliseStruct({ ...types, Expected: [field] }, 'Expected', { [name]: wanted }, 'expected', problems)[name]
    if (!sameValue(normalisedWanted, message[name])) {
      problems.push(`value.${name}: built with ${show(normalisedWanted)}, the payload carries ${show(message[name])}`)
    }
  }
}

function sameValue(a: unknown, b: unknown): boolean {
  return show(a) === show(b)
}

function show(value: unknown): string {
  return JSON.stringify(value, (_key, inner) => (typeof inner === 'bigint' ? inner.toString() : inner)) ?? 'nothing'
}
