import { type Hex, isAddressEqual } from 'viem'
import { buildRfqOrderTypedData, hashRfqOrder, type RfqOrder, rfqOrderTypes } from '../protocol/rfq-order.js'
import type { SigningAccount } from './sign-token-permit.js'
import type { Spender } from './spender.js'
import { normaliseStruct, type Problems, SignedPayloadMismatchError } from './typed-data-check.js'

export type SignRfqOrderReturnType = {
  /** 65 bytes (r ‖ s ‖ v), as the OTC API and the RFQ contract take EOA signatures. */
  signature: Hex
  orderHash: Hex
}

/**
 * Signs an RFQ / OTC order as its maker under the "AUGUSTUS RFQ" domain of `rfq` (the RFQ contract of the chain,
 * resolveSpender mode `rfq`). Refused with SignedPayloadMismatchError when the maker is not the signer, a field is
 * out of its EIP-712 range, or `orderHash` (when given) is not the order's hash.
 */
export async function signRfqOrder(
  account: SigningAccount,
  order: RfqOrder,
  rfq: Spender<'rfq'>,
  { orderHash }: { orderHash?: Hex | undefined } = {},
): Promise<SignRfqOrderReturnType> {
  const problems: Problems = []
  normaliseStruct(rfqOrderTypes, 'Order', order, 'order', problems)
  if (problems.length === 0 && !isAddressEqual(order.maker, account.address)) {
    problems.push(`order.maker: the order's maker is ${order.maker}, not the signing account ${account.address}`)
  }
  const domain = { chainId: rfq.chainId, verifyingContract: rfq.address }
  const digest = problems.length === 0 ? hashRfqOrder(order, domain) : undefined
  if (digest !== undefined && orderHash !== undefined && digest.toLowerCase() !== orderHash.toLowerCase()) {
    problems.push(`orderHash: expected ${orderHash}, the order hashes to ${digest}`)
  }
  if (problems.length > 0 || digest === undefined) throw new SignedPayloadMismatchError('RFQ order', problems, { chainId: rfq.chainId })
  const signature = await account.signTypedData(buildRfqOrderTypedData(order, domain))
  return { signature, orderHash: digest }
}
