import { readFileSync } from 'node:fs'
import { basename } from 'node:path'
import type { DeltaflowConfig } from '../../config/schema.js'
import { BotSetupError } from '../bot-errors.js'

/** The variable read when `ops.auth` names neither a variable nor a file. */
export const defaultTokenEnv = 'DELTAFLOW_OPS_TOKEN'

/** The console's bearer token and its name (the setting that holds it: what the journal records, never the token). */
export type ConsoleToken = { value: string; name: string }

/** Host names and addresses that only this machine reaches. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase()
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare)
}

/**
 * Reads the token from `ops.auth.tokenFile`, else from `ops.auth.tokenEnv` (default DELTAFLOW_OPS_TOKEN). A file or a
 * variable named in the config must hold one; a non-loopback `ops.host` without a token is refused (BotSetupError
 * naming the settings). Returns undefined when no token is configured on loopback: reads are open, actions refused.
 */
export function resolveConsoleToken(
  ops: DeltaflowConfig['ops'],
  env: Readonly<Record<string, string | undefined>>,
): ConsoleToken | undefined {
  const { tokenFile, tokenEnv } = ops.auth
  let token: ConsoleToken | undefined
  if (tokenFile !== undefined) {
    let text: string
    try {
      text = readFileSync(tokenFile, 'utf8')
    } catch (error) {
      throw new BotSetupError(`ops.auth.tokenFile: cannot read ${tokenFile}`, {
        details: { reason: (error as NodeJS.ErrnoException).code ?? String(error) },
        hint: 'write the console token to that file (readable by the bot only), or remove ops.auth.tokenFile',
        errorClass: 'operational',
      })
    }
    if (text.trim() === '') {
      throw new BotSetupError(`ops.auth.tokenFile: ${tokenFile} is empty, expected the console token`, { errorClass: 'operational' })
    }
    token = { value: text.trim(), name: `file ${basename(tokenFile)}` }
  } else {
    const variable = tokenEnv ?? defaultTokenEnv
    const value = env[variable]?.trim()
    if (value) token = { value, name: `env ${variable}` }
    else if (tokenEnv !== undefined) {
      throw new BotSetupError(`ops.auth.tokenEnv names ${tokenEnv}, which is not set or empty`, {
        hint: `export ${tokenEnv}=<a long random token> before starting the bot`,
        errorClass: 'operational',
      })
    }
  }
  if (token === undefined && !isLoopbackHost(ops.host)) {
    throw new BotSetupError(`ops.host is ${ops.host}, not loopback, and the console has no token`, {
      hint: `set ops.auth.tokenEnv (default ${defaultTokenEnv}) or ops.auth.tokenFile, or bind ops.host to 127.0.0.1`,
      errorClass: 'operational',
    })
  }
  return token
}
