import { type Address, type LocalAccount, parseSignature } from 'viem'
import type { DeltaPermit } from '../protocol/delta-permit.js'
import { buildPermitSingleTypedData, buildPermitTransferFromTypedData } from '../protocol/permit2.js'
import { toCompactSignature } from '../protocol/signature.js'
import { buildDaiPermitTypedData, buildEip2612PermitTypedData, type TokenDomain } from '../protocol/token-permits.js'

/** What signing needs of an account: a local key (env or keystore) or any signer with the same two members. */
/** Signs typed data; a local key may also sign a digest directly (`sign`), which skips hashing the typed data twice. */
export type SigningAccount = Pick<LocalAccount, 'address' | 'signTypedData'> & Partial<Pick<LocalAccount, 'sign'>>

// Each function signs one permit with the protocol core's typed data and returns it as the DeltaPermit it becomes
// (encodeDeltaPermit turns it into the bytes of a Delta order or of a Market build's `permit`).

export type SignEip2612PermitParameters = {
  domain: TokenDomain
  spender: Address
  value: bigint
  /** The owner's current `nonces(owner)` on the token. */
  nonce: bigint
  /** Unix seconds. */
  deadline: bigint
}

export async function signEip2612Permit(account: SigningAccount, parameters: SignEip2612PermitParameters) {
  const { domain, spender, value, nonce, deadline } = parameters
  const signature = await account.signTypedData(
    buildEip2612PermitTypedData({ domain, owner: account.address, spender, value, nonce, deadline }),
  )
  const { r, s, v } = splitSignature(signature)
  return { type: 'eip2612', owner: account.address, spender, value, deadline, v, r, s } satisfies DeltaPermit
}

export type SignDaiPermitParameters = {
  domain: TokenDomain
  spender: Address
  /** The holder's current `nonces(holder)`. */
  nonce: bigint
  /** Unix seconds; 0 never expires. */
  expiry: bigint
  /** true grants an unlimited allowance (DAI permits know no other amount), false revokes it. */
  allowed: boolean
}

export async function signDaiPermit(account: SigningAccount, parameters: SignDaiPermitParameters) {
  const { domain, spender, nonce, expiry, allowed } = parameters
  const signature = await account.signTypedData(
    buildDaiPermitTypedData({ domain, holder: account.address, spender, nonce, expiry, allowed }),
  )
  const { r, s, v } = splitSignature(signature)
  return { type: 'dai', holder: account.address, spender, nonce, expiry, allowed, v, r, s } satisfies DeltaPermit
}

export type SignPermit2AllowanceParameters = {
  chainId: number
  token: Address
  spender: Address
  /** uint160. */
  amount: bigint
  /** uint48 unix seconds. */
  expiration: bigint
  /** The owner's current Permit2 nonce for (token, spender). */
  nonce: bigint
  sigDeadline: bigint
}

/** Permit2 PermitSingle; as a Delta permit it is the 192-byte form (spender = the Delta contract). */
export async function signPermit2Allowance(account: SigningAccount, parameters: SignPermit2AllowanceParameters) {
  const signature = await account.signTypedData(buildPermitSingleTypedData(parameters))
  const { amount, nonce, expiration, sigDeadline } = parameters
  return {
    type: 'permit2Allowance',
    amount,
    nonce,
    expiration,
    sigDeadline,
    signature: toCompactSignature(signature),
  } satisfies DeltaPermit
}

export type SignPermit2TransferParameters = {
  chainId: number
  token: Address
  /** The caller of permitTransferFrom (for Delta: the Delta contract). */
  spender: Address
  amount: bigint
  /** An unused unordered nonce. */
  nonce: bigint
  deadline: bigint
}

/**
 * Permit2 PermitTransferFrom; as a Delta permit it is the 96-byte form, which the Delta contract checks against the
 * order: `amount` must be the order's srcAmount and `deadline` its deadline.
 */
export async function signPermit2Transfer(account: SigningAccount, parameters: SignPermit2TransferParameters) {
  const signature = await account.signTypedData(buildPermitTransferFromTypedData(parameters))
  return { type: 'permit2Transfer', nonce: parameters.nonce, signature: toCompactSignature(signature) } satisfies DeltaPermit
}

function splitSignature(signature: `0x${string}`) {
  const { r, s, v, yParity } = parseSignature(signature)
  return { r, s, v: Number(v ?? 27n + BigInt(yParity)) }
}
