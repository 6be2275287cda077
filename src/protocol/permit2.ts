import type { Address } from 'viem'
import { permit2Address } from './addresses.js'

// EIP-712 of Permit2 (name "Permit2", no version), used for the 96- and 192-byte Delta permits.

export const permitSingleTypes = {
  PermitSingle: [
    { name: 'details', type: 'PermitDetails' },
    { name: 'spender', type: 'address' },
    { name: 'sigDeadline', type: 'uint256' },
  ],
  PermitDetails: [
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint160' },
    { name: 'expiration', type: 'uint48' },
    { name: 'nonce', type: 'uint48' },
  ],
} as const

/** The signed form includes the spender (the caller of permitTransferFrom). */
export const permitTransferFromTypes = {
  PermitTransferFrom: [
    { name: 'permitted', type: 'TokenPermissions' },
    { name: 'spender', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
  TokenPermissions: [
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint256' },
  ],
} as const

export function getPermit2Domain(chainId: number, verifyingContract: Address = permit2Address) {
  return { name: 'Permit2', chainId, verifyingContract } as const
}

export type PermitSingleParameters = {
  chainId: number
  token: Address
  /** uint160; 2^160 − 1 is an allowance that is never decremented. */
  amount: bigint
  /** uint48 unix seconds; 0 means "the block of the permit". */
  expiration: bigint
  /** uint48, the owner's current Permit2 nonce for (token, spender). */
  nonce: bigint
  spender: Address
  sigDeadline: bigint
}

export function buildPermitSingleTypedData({ chainId, token, amount, expiration, nonce, spender, sigDeadline }: PermitSingleParameters) {
  return {
    domain: getPermit2Domain(chainId),
    types: permitSingleTypes,
    primaryType: 'PermitSingle',
    message: { details: { token, amount, expiration: Number(expiration), nonce: Number(nonce) }, spender, sigDeadline },
  } as const
}

export type PermitTransferFromParameters = {
  chainId: number
  token: Address
  amount: bigint
  spender: Address
  /** Unordered nonce: word = nonce >> 8, bit = nonce & 255. */
  nonce: bigint
  deadline: bigint
}

export function buildPermitTransferFromTypedData({ chainId, token, amount, spender, nonce, deadline }: PermitTransferFromParameters) {
  return {
    domain: getPermit2Domain(chainId),
    types: permitTransferFromTypes,
    primaryType: 'PermitTransferFrom',
    message: { permitted: { token, amount }, spender, nonce, deadline },
  } as const
}
