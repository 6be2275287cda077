import type { Command } from 'commander'
import { requireFile } from '../config/file-not-found.js'
import { loadConfig } from '../config/load-config.js'
import { type DeltaflowConfig, deltaflowConfigSchema } from '../config/schema.js'
import { collectRpc, splitRpc } from './rpc-option.js'

/** Options every command that touches the venue or the chains takes (also settable in the YAML config). */
export type VenueOptions = {
  config?: string
  venue?: string
  rpc?: string[]
  db?: string
  keystore?: string
  json?: boolean
}

export function addVenueOptions(command: Command): Command {
  return command
    .option('--config <file>', 'YAML configuration (venue, chains, wallet, db)')
    .option('--venue <url|sandbox>', 'service base URL, or "sandbox" to start an embedded one (default)')
    .option('--rpc <chain=url>', 'RPC URL of a chain, e.g. 1=http://127.0.0.1:8545 (repeatable)', collectRpc, [])
    .option('--db <file>', 'SQLite journal file')
    .option('--keystore <file>', 'encrypted JSON keystore (password from DELTAFLOW_KEYSTORE_PASSWORD); default: DELTAFLOW_PRIVATE_KEY')
    .option('--json', 'print one machine-readable JSON document')
}

/** The configuration a command runs with: the YAML file (if any) with the command-line flags on top. */
export function resolveVenueConfig(options: VenueOptions): DeltaflowConfig {
  if (options.keystore !== undefined) requireFile(options.keystore, 'an encrypted JSON keystore')
  const base = options.config ? loadConfig(options.config) : deltaflowConfigSchema.parse({})
  const chains = { ...base.chains }
  for (const entry of options.rpc ?? []) {
    const [chainId, url] = splitRpc(entry)
    chains[chainId] = { rpcUrls: [url, ...(chains[chainId]?.rpcUrls.filter((existing) => existing !== url) ?? [])] }
  }
  return deltaflowConfigSchema.parse({
    ...base,
    venue: { ...base.venue, ...(options.venue ? { url: options.venue } : {}) },
    chains,
    wallet: { ...base.wallet, ...(options.keystore ? { keystore: options.keystore } : {}) },
    ...(options.db ? { db: options.db } : {}),
  })
}
