import { type Hex, hashTypedData } from 'viem'
import { getDeltaDomain, orderCancellationsTypes } from '../protocol/delta-types.js'
import type { ReceivedToSign } from './sign-delta-order.js'
import type { SigningAccount } from './sign-token-permit.js'
import type { Spender } from './spender.js'
import { compareDomain, compareTypes, normaliseStruct, type Problems, SignedPayloadMismatchError } from './typed-data-check.js'

export type SignDeltaCancellationParameters = {
  /** `toSign` of POST /v2/delta/orders/build/cancellation, as received. */
  toSign: ReceivedToSign
  /** The Delta contract of the orders' chain. */
  delta: Spender<'delta'>
  /** The ids asked for: every id in the payload must be one of them (the build drops finished orders). */
  orderIds?: readonly string[] | undefined
  /** The build's hash of the payload, when it returned one. */
  hash?: Hex | undefined
}

export type SignDeltaCancellationReturnType = {
  /** 65 bytes, over the payload exactly as returned. */
  signature: Hex
  /** The order ids signed, to send with the signature in POST /v2/delta/orders/cancel. */
  orderIds: string[]
  hash: Hex
}

/**
 * Signs a cancellation payload exactly as the service returned it, after checking that it is the protocol's
 * `OrderCancellations { orderIds: string[] }` under the Portikus domain of the chain and cancels only orders that
 * were asked for. Any difference is a SignedPayloadMismatchError and nothing is signed.
 */
export async function signDeltaCancellation(
  account: SigningAccount,
  parameters: SignDeltaCancellationParameters,
): Promise<SignDeltaCancellationReturnType> {
  const { toSign, delta, orderIds, hash } = parameters
  const problems: Problems = []
  const domain = getDeltaDomain({ chainId: delta.chainId, verifyingContract: delta.address })
  compareTypes(toSign.types, orderCancellationsTypes, domain, problems)
  compareDomain(toSign.domain, domain, problems)
  const message = normaliseStruct(orderCancellationsTypes, 'OrderCancellations', toSign.value, 'value', problems)
  const signedIds = Array.isArray(message.orderIds) ? message.orderIds.filter((id): id is string => typeof id === 'string') : []
  if (orderIds) {
    for (const id of signedIds) if (!orderIds.includes(id)) problems.push(`value.orderIds: ${id} was not asked to be cancelled`)
  }
  if (problems.length > 0) throw new SignedPayloadMismatchError('Delta cancellation', problems, { chainId: delta.chainId })
  const typedData = { domain, types: orderCancellationsTypes, primaryType: 'OrderCancellations', message: { orderIds: signedIds } } as const
  const digest = hashTypedData(typedData)
  if (hash !== undefined && digest.toLowerCase() !== hash.toLowerCase()) {
    throw new SignedPayloadMismatchError('Delta cancellation', [`hash: the server says ${hash}, the payload hashes to ${digest}`])
  }
  return { signature: await account.signTypedData(typedData), orderIds: signedIds, hash: digest }
}
