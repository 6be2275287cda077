import { z } from 'zod'

const chainIdKey = z.string().regex(/^\d+$/, 'expected a chain id such as 1 or 8453')

export const venueConfigSchema = z.strictObject({
  /** `sandbox` starts an embedded sandbox; otherwise the service's base URL. */
  url: z.union([z.literal('sandbox'), z.url({ protocol: /^https?$/ })]).default('sandbox'),
  apiKey: z.string().min(1).optional(),
  partner: z.string().min(1).default('anon'),
  timeoutMs: z.number().int().positive().default(15_000),
  retries: z.number().int().min(0).max(10).default(3),
  requestsPerSecond: z.number().positive().default(10),
})

export const chainConfigSchema = z.strictObject({
  rpcUrls: z.array(z.url({ protocol: /^(https?|wss?)$/ })).min(1),
})

export const walletConfigSchema = z.strictObject({
  /** Encrypted JSON keystore (Web3 Secret Storage v3); its password comes from DELTAFLOW_KEYSTORE_PASSWORD. */
  keystore: z.string().min(1).optional(),
  /** Environment variable holding a hex private key. */
  privateKeyEnv: z
    .string()
    .regex(/^[A-Z_][A-Z0-9_]*$/, 'expected an environment variable name')
    .default('DELTAFLOW_PRIVATE_KEY'),
})

/** The configuration shared by every command that touches the venue or the chains. */
export const deltaflowConfigSchema = z.strictObject({
  venue: venueConfigSchema.default(venueConfigSchema.parse({})),
  chains: z.record(chainIdKey, chainConfigSchema).default({}),
  wallet: walletConfigSchema.default(walletConfigSchema.parse({})),
  /** SQLite journal file. */
  db: z.string().min(1).optional(),
})

export type DeltaflowConfig = z.infer<typeof deltaflowConfigSchema>
export type DeltaflowConfigInput = z.input<typeof deltaflowConfigSchema>
