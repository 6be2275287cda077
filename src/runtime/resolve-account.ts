import type { LocalAccount } from 'viem'
import { loadAccount } from '../chain/load-account.js'
import { localAccount } from '../chain/local-account.js'
import type { DeltaflowConfig } from '../config/schema.js'
import type { Logger } from '../log/logger.js'
import { BotSetupError } from './bot-errors.js'
import type { EmbeddedVenue } from './embedded-venue.js'

export type ResolvedAccount = {
  account: LocalAccount
  /** Where the key came from, for the user (never the key itself). */
  accountSource: string
}

export type ResolveAccountParameters = {
  config: DeltaflowConfig
  /** Its development accounts sign when no key is configured. */
  embedded: EmbeddedVenue | undefined
  env: Readonly<Record<string, string | undefined>>
  logger: Logger
}

/**
 * The signing account, first found: `wallet.keystore` (password in DELTAFLOW_KEYSTORE_PASSWORD), the variable
 * `wallet.privateKeyEnv` names (DELTAFLOW_PRIVATE_KEY by default), and on an embedded venue its development account
 * `sandbox.accountIndex`. Throws BotSetupError saying what to set.
 */
export async function resolveAccount({ config, embedded, env, logger }: ResolveAccountParameters): Promise<ResolvedAccount> {
  const { keystore, privateKeyEnv } = config.wallet
  if (keystore !== undefined) {
    return { account: await loadAccount({ keystorePath: keystore, env, logger }), accountSource: `keystore ${keystore}` }
  }
  if (env[privateKeyEnv]) {
    return {
      account: await loadAccount({ env: { ...env, DELTAFLOW_PRIVATE_KEY: env[privateKeyEnv] }, logger }),
      accountSource: `environment ${privateKeyEnv}`,
    }
  }
  const development = embedded?.accounts[config.sandbox.accountIndex]
  if (development) {
    return {
      account: localAccount(development.privateKey),
      accountSource: `sandbox development account ${config.sandbox.accountIndex}`,
    }
  }
  throw new BotSetupError('No signing key', {
    hint: `set ${privateKeyEnv} or wallet.keystore (password in DELTAFLOW_KEYSTORE_PASSWORD), or pass --keystore FILE`,
    errorClass: 'operational',
  })
}
