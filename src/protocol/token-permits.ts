import type { Address } from 'viem'

export type TokenDomain = {
  /** The token's EIP-712 name, which may differ from its ERC-20 name. */
  name: string
  version: string
  chainId: number
  verifyingContract: Address
}

export const eip2612PermitTypes = {
  Permit: [
    { name: 'owner', type: 'address' },
    { name: 'spender', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const

export const daiPermitTypes = {
  Permit: [
    { name: 'holder', type: 'address' },
    { name: 'spender', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'expiry', type: 'uint256' },
    { name: 'allowed', type: 'bool' },
  ],
} as const

export type Eip2612PermitParameters = {
  domain: TokenDomain
  owner: Address
  spender: Address
  value: bigint
  nonce: bigint
  deadline: bigint
}

export function buildEip2612PermitTypedData({ domain, ...message }: Eip2612PermitParameters) {
  return { domain, types: eip2612PermitTypes, primaryType: 'Permit', message } as const
}

export type DaiPermitParameters = {
  domain: TokenDomain
  holder: Address
  spender: Address
  nonce: bigint
  /** 0 never expires. */
  expiry: bigint
  /** true grants an unlimited allowance, false revokes it. */
  allowed: boolean
}

export function buildDaiPermitTypedData({ domain, ...message }: DaiPermitParameters) {
  return { domain, types: daiPermitTypes, primaryType: 'Permit', message } as const
}
