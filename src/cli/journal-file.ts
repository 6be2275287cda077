import { existsSync } from 'node:fs'
import type { ChainClients } from '../chain/chain-clients.js'
import { BaseError } from '../errors/base.js'
import { type Journal, openJournal } from '../journal/journal.js'
import { defaultJournalFile, journalFileOf } from '../runtime/journal-file.js'
import { systemClock } from '../time/clock.js'
import type { JournalOptions } from './journal-options.js'

export class JournalFileMissingError extends BaseError {
  override name = 'JournalFileMissingError'
}

/**
 * Which journal a command that only reads it opens: --db, else the config's `db`, else `deltaflow.sqlite`. The config
 * (YAML and its schema) is loaded only when --config names one.
 */
export async function resolveJournalFile(options: JournalOptions): Promise<string> {
  if (options.db !== undefined) return options.db
  if (options.config === undefined) return defaultJournalFile
  const { resolveVenueConfig } = await import('./venue-options.js')
  return journalFileOf(resolveVenueConfig(options), { embedded: false }).file
}

/** Opens the journal a read-only command names; a missing file is an error, not a new empty journal. */
export async function openExistingJournal(options: JournalOptions): Promise<Journal> {
  const file = await resolveJournalFile(options)
  if (!existsSync(file)) {
    throw new JournalFileMissingError(`No journal at ${file}`, {
      hint: 'Name the journal with --db FILE (or `db:` in the config); a trading command creates it on first use.',
      errorClass: 'operational',
    })
  }
  return openJournal({ file, clock: systemClock })
}

/**
 * Clients of the chains the config (--config) and --rpc name, to read the symbol and decimals of tokens deltaflow
 * does not know; none when neither names a chain.
 */
export async function labelChainsOf(options: JournalOptions): Promise<ReadonlyMap<number, ChainClients>> {
  if (options.config === undefined && (options.rpc ?? []).length === 0) return new Map()
  const { resolveVenueConfig } = await import('./venue-options.js')
  const chains = Object.entries(resolveVenueConfig(options).chains)
    .map(([chainId, chain]) => ({ chainId: Number(chainId), rpcUrls: chain.rpcUrls.filter((url) => /^https?:/.test(url)) }))
    .filter((chain) => chain.rpcUrls.length > 0)
  if (chains.length === 0) return new Map()
  const { createChainClients } = await import('../chain/chain-clients.js')
  return createChainClients({ chains, timeoutMs: 5_000 })
}
