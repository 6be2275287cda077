import type { LocalAccount } from 'viem'
import { BaseError } from '../errors/base.js'
import type { Logger } from '../log/logger.js'
import { decryptKeystore } from './keystore.js'
import { readKeystoreFile } from './keystore-file.js'
import { localAccount } from './local-account.js'
import { checkPrivateKey } from './private-key.js'

export const privateKeyVariable = 'DELTAFLOW_PRIVATE_KEY'
export const keystorePasswordVariable = 'DELTAFLOW_KEYSTORE_PASSWORD'

export type LoadAccountParameters = {
  /** Default: process.env. */
  env?: Readonly<Record<string, string | undefined>> | undefined
  /** An encrypted v3 keystore; takes precedence over DELTAFLOW_PRIVATE_KEY. */
  keystorePath?: string | undefined
  /** The keystore's password. Default: DELTAFLOW_KEYSTORE_PASSWORD. */
  password?: string | undefined
  logger?: Logger | undefined
}

/**
 * The signing account (localAccount): from the keystore when one is configured, else from DELTAFLOW_PRIVATE_KEY. The
 * key stays inside the returned viem account (which does not expose it); logs and errors name only the address and the
 * source.
 */
export async function loadAccount(parameters: LoadAccountParameters = {}): Promise<LocalAccount> {
  const { env = process.env, keystorePath, logger } = parameters
  try {
    if (keystorePath !== undefined) {
      const password = parameters.password ?? env[keystorePasswordVariable]
      if (password === undefined)
        throw new MissingKeyError(`the keystore ${keystorePath} needs a password, and ${keystorePasswordVariable} is not set`)
      const account = localAccount(await decryptKeystore(await readKeystoreFile(keystorePath), password))
      logger?.info({ address: account.address, source: 'keystore', keystorePath }, 'account loaded')
      return account
    }
    const raw = env[privateKeyVariable]
    if (raw === undefined || raw.trim() === '') throw new MissingKeyError(`neither a keystore nor ${privateKeyVariable} is configured`)
    const account = localAccount(checkPrivateKey(raw, privateKeyVariable))
    logger?.info({ address: account.address, source: privateKeyVariable }, 'account loaded')
    return account
  } catch (error) {
    logger?.error({ err: error }, 'cannot load the signing account')
    throw error
  }
}

/** No key is configured. Fatal: the user sets DELTAFLOW_PRIVATE_KEY or configures a keystore and its password. */
export class MissingKeyError extends BaseError {
  override name = 'MissingKeyError' as const
  constructor(reason: string) {
    super(`No signing key: ${reason}`, {
      hint: `Set ${privateKeyVariable}, or configure a keystore (a v3 JSON keystore file) and set ${keystorePasswordVariable}.`,
      errorClass: 'fatal',
    })
  }
}
