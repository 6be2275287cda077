import type { LocalAccount } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { type ApiClient, createApiClient } from '../api/client.js'
import { getContracts } from '../api/resources/get-contracts.js'
import { type ChainClients, createChainClients } from '../chain/chain-clients.js'
import type { DeploymentContracts } from '../chain/deployment.js'
import { loadAccount } from '../chain/load-account.js'
import { BaseError } from '../errors/base.js'
import { createLogger, type Logger } from '../log/logger.js'
import { developmentAccounts } from '../sandbox/chains/accounts.js'
import { type RunningSandbox, startSandbox } from '../sandbox/start-sandbox.js'
import { type Clock, systemClock } from '../time/clock.js'
import { resolveVenueConfig, type VenueOptions } from './venue-options.js'

/** What a command that trades works with: the API, the chains, the deployment resource and the signing account. */
export type Session = {
  api: ApiClient
  chains: ReadonlyMap<number, ChainClients>
  contracts: DeploymentContracts
  account: LocalAccount
  /** Where the key came from, for the user (never the key itself). */
  accountSource: string
  clock: Clock
  logger: Logger
  /** The embedded sandbox, when the venue is `sandbox`. */
  sandbox: RunningSandbox | undefined
  close: () => Promise<void>
}

export class SessionError extends BaseError {
  override name = 'SessionError'
}

/**
 * Opens the venue (starting an embedded sandbox for `--venue sandbox`, the default), the chains' clients and the
 * account: from a keystore or DELTAFLOW_PRIVATE_KEY; on the embedded sandbox without either, its first funded
 * development account.
 */
export async function openSession(options: VenueOptions): Promise<Session> {
  const config = resolveVenueConfig(options)
  const logger = createLogger({ level: process.env.DELTAFLOW_LOG_LEVEL ?? 'warn' })
  const sandbox = config.venue.url === 'sandbox' ? await startSandbox({ logger }) : undefined
  try {
    const baseUrl = sandbox?.url ?? config.venue.url
    const api = createApiClient({
      baseUrl,
      apiKey: config.venue.apiKey,
      partner: config.venue.partner,
      timeoutMs: config.venue.timeoutMs,
      retry: { retries: config.venue.retries },
      rateLimit: { requestsPerSecond: config.venue.requestsPerSecond },
      logger,
    })
    const rpc = new Map(Object.entries(config.chains).map(([chainId, chain]) => [Number(chainId), chain.rpcUrls]))
    for (const chain of sandbox?.chains ?? []) if (!rpc.has(chain.chainId)) rpc.set(chain.chainId, [chain.rpcUrl])
    if (rpc.size === 0) {
      throw new SessionError('No chain RPC URL is configured', {
        hint: 'Pass --rpc CHAIN=URL (repeatable) or list chains in the config file, or use --venue sandbox.',
        errorClass: 'operational',
      })
    }
    const { account, accountSource } = await resolveAccount(
      options.keystore ?? config.wallet.keystore,
      config.wallet.privateKeyEnv,
      sandbox,
      logger,
    )
    const chains = createChainClients({
      chains: [...rpc].map(([chainId, rpcUrls]) => ({ chainId, rpcUrls })),
      account,
      pollingIntervalMs: 100,
    })
    const deployment = await getContracts(api)
    const contracts: DeploymentContracts = Object.fromEntries(deployment.chains)
    return { api, chains, contracts, account, accountSource, clock: systemClock, logger, sandbox, close: async () => sandbox?.stop() }
  } catch (error) {
    await sandbox?.stop()
    throw error
  }
}

async function resolveAccount(
  keystorePath: string | undefined,
  privateKeyEnv: string,
  sandbox: RunningSandbox | undefined,
  logger: Logger,
): Promise<{ account: LocalAccount; accountSource: string }> {
  const env = { ...process.env, DELTAFLOW_PRIVATE_KEY: process.env[privateKeyEnv] }
  if (keystorePath !== undefined) return { account: await loadAccount({ keystorePath, logger }), accountSource: `keystore ${keystorePath}` }
  if (env.DELTAFLOW_PRIVATE_KEY) return { account: await loadAccount({ env, logger }), accountSource: `environment ${privateKeyEnv}` }
  const development = developmentAccounts[0]
  if (sandbox && development) {
    return { account: privateKeyToAccount(development.privateKey), accountSource: 'sandbox development account 0' }
  }
  throw new SessionError('No signing key', {
    hint: `Set ${privateKeyEnv} or pass --keystore FILE (password in DELTAFLOW_KEYSTORE_PASSWORD).`,
    errorClass: 'operational',
  })
}
