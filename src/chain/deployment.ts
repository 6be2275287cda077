import type { Address } from 'viem'
import { z } from 'zod'

// The part of `/resources/contracts.json` (API section 2.8) that wallet operations read: role addresses per chain.

const addressSchema = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'expected an address (0x + 40 hex)')
  .transform((value) => value as Address)

/** One chain's entry. Roles not deployed on the chain are absent; roles this client does not use pass through. */
export const chainDeploymentSchema = z.looseObject({
  name: z.string().optional(),
  /** Market router v6.2 (also the Market spender). */
  augustusV6_2: addressSchema.optional(),
  /** Delta settlement contract (the Delta spender and EIP-712 verifying contract). */
  delta: addressSchema.optional(),
  deltaWrappedNative: addressSchema.optional(),
  /** RFQ (OTC) contract (the RFQ spender and EIP-712 verifying contract). */
  augustusRFQ: addressSchema.optional(),
  feeClaimer: addressSchema.optional(),
})

export type ChainDeployment = z.infer<typeof chainDeploymentSchema>

/** Role addresses keyed by chain id, as the `chains` member of the deployment resource. */
export type DeploymentContracts = Readonly<Record<number, ChainDeployment | undefined>>

const chainIdKeySchema = z.string().regex(/^[1-9]\d*$/, 'expected a chain id')

/** The whole resource (`{ _meta, chains }`); only `chains` is kept. */
export const deploymentResourceSchema = z
  .looseObject({ chains: z.record(chainIdKeySchema, chainDeploymentSchema) })
  .transform(({ chains }): DeploymentContracts => Object.fromEntries(Object.entries(chains).map(([key, entry]) => [Number(key), entry])))

/** Parses the body of `GET /resources/contracts.json`; throws a ZodError naming every bad field. */
export function parseDeploymentResource(json: unknown): DeploymentContracts {
  return deploymentResourceSchema.parse(json)
}
