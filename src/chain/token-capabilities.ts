import type { Address } from 'viem'
import { z } from 'zod'
import type { TokenDomain } from '../protocol/token-permits.js'

/** How a token takes an ERC-20 `approve`. */
export type ApproveBehaviour =
  /** Any amount, any time. */
  | 'standard'
  /** Refuses a change from one non-zero allowance to another: approve 0 first (API section 5.5). */
  | 'usdtStyle'
  /** Refuses every approve except to Permit2: it moves only through a permit or Permit2. */
  | 'permitOnly'

/** Which signed permit the token's own `permit` function takes. */
export type TokenPermitKind = 'none' | 'eip2612' | 'dai'

/** What approval planning needs to know about a source token. */
export type ApprovalToken = {
  address: Address
  kind: 'native' | 'erc20'
  approveBehaviour: ApproveBehaviour
  permit: TokenPermitKind
  /** For messages only. */
  symbol?: string | undefined
}

export type TokenCapabilities = ApprovalToken & {
  chainId: number
  decimals: number
  symbol: string
  /** The EIP-712 domain of the token's permit; present exactly when `permit` is not `none`. */
  permitDomain?: TokenDomain | undefined
}

/**
 * Configuration that replaces what detection would read (for tokens whose behaviour cannot be read on-chain, or to
 * save the calls). A `permit` other than `none` needs `permitDomain` unless the token exposes its domain.
 */
export const tokenCapabilityOverrideSchema = z.strictObject({
  approveBehaviour: z.enum(['standard', 'usdtStyle', 'permitOnly']).optional(),
  permit: z.enum(['none', 'eip2612', 'dai']).optional(),
  permitDomain: z.strictObject({ name: z.string(), version: z.string() }).optional(),
  decimals: z.number().int().min(0).max(255).optional(),
  symbol: z.string().min(1).optional(),
})

export type TokenCapabilityOverride = z.infer<typeof tokenCapabilityOverrideSchema>
