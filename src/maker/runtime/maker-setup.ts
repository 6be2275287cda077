import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { z } from 'zod'
import { type ConfigDocument, ConfigError } from '../../config/load-config.js'
import type { DeltaflowConfig } from '../../config/schema.js'
import type { Logger } from '../../log/logger.js'
import type { MakerCredentials } from '../../protocol/maker-auth.js'
import type { MakerStrategyDefinition } from '../maker-strategy.js'
import { loadMakerStrategy } from './load-maker-strategy.js'
import { MakerSetupError } from './maker-errors.js'

export type MakerConfig = NonNullable<DeltaflowConfig['maker']>

/** The `maker` section, or a MakerSetupError saying how to add one. */
export function requireMakerConfig({ config, file }: ConfigDocument): MakerConfig {
  if (config.maker === undefined) {
    throw new MakerSetupError(`${file} has no maker section`, {
      hint: 'add `maker: { chains: { "1": { basePath: /maker/1 } }, strategy: { use: market-maker, config: {...} } }` (see config/maker.yaml)',
      errorClass: 'operational',
    })
  }
  return config.maker
}

const credentialsSchema = z.strictObject({ domain: z.string().min(1), accessKey: z.string().min(1), secret: z.string().min(1) })

/**
 * The credentials the maker server checks: from `auth.credentialsFile` (one `{ domain, accessKey, secret }` or an array)
 * or from the three environment variables the config names. Undefined when auth is off. Throws MakerSetupError naming
 * every missing variable (never a value).
 */
export function resolveMakerCredentials(
  { auth }: MakerConfig,
  { env, baseDirectory }: { env: Readonly<Record<string, string | undefined>>; baseDirectory: string },
): MakerCredentials[] | undefined {
  if (!auth.enabled) return undefined
  if (auth.credentialsFile !== undefined) {
    const file = resolve(baseDirectory, auth.credentialsFile)
    let json: unknown
    try {
      json = JSON.parse(readFileSync(file, 'utf8'))
    } catch (cause) {
      throw new MakerSetupError(`cannot read the maker credentials file ${file}: ${(cause as Error).message.split('\n')[0]}`, {
        hint: 'write it as JSON: { "domain": "…", "accessKey": "…", "secret": "…" } (or an array of them)',
        errorClass: 'operational',
      })
    }
    const parsed = z.union([credentialsSchema.transform((one) => [one]), z.array(credentialsSchema).min(1)]).safeParse(json)
    if (!parsed.success) {
      const fields = [
        ...new Set(
          parsed.error.issues
            .flatMap((issue) => (issue.code === 'invalid_union' ? issue.errors.flat() : [issue]))
            .map((issue) => issue.path.join('.') || '(file)'),
        ),
      ]
      throw new MakerSetupError(`the maker credentials file ${file} is not valid: check ${fields.join(', ')}`, {
        hint: 'expected { "domain": "…", "accessKey": "…", "secret": "…" } or an array of them',
        errorClass: 'operational',
      })
    }
    return parsed.data
  }
  const names = { domain: auth.domainEnv, accessKey: auth.accessKeyEnv, secret: auth.secretEnv }
  const missing = Object.values(names).filter((name) => !env[name])
  if (missing.length > 0) {
    throw new MakerSetupError(
      `maker.auth is enabled, but the environment variable${missing.length > 1 ? 's' : ''} ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not set`,
      {
        hint:
          `set ${Object.values(names).join(', ')} to the credentials agreed with the service (maker.auth.*Env name other variables), ` +
          'or point maker.auth.credentialsFile at a JSON file, or set maker.auth.enabled: false for an unauthenticated local maker',
        errorClass: 'operational',
      },
    )
  }
  return [{ domain: env[names.domain] ?? '', accessKey: env[names.accessKey] ?? '', secret: env[names.secret] ?? '' }]
}

/** Loads `maker.strategy.use` and checks `maker.strategy.config` against its schema; ConfigError with YAML lines. */
export async function loadMakerStrategyOf(document: ConfigDocument, maker: MakerConfig): Promise<MakerStrategyDefinition> {
  const { file, locate, locateKey } = document
  const at = ['maker', 'strategy']
  let definition: MakerStrategyDefinition
  try {
    definition = await loadMakerStrategy(maker.strategy.use, { baseDirectory: dirname(file) })
  } catch (error) {
    throw new ConfigError(file, [
      `${locate([...at, 'use'])}: maker.strategy.use: ${error instanceof Error ? error.message : String(error)}`,
    ])
  }
  const parsed = definition.configSchema.safeParse(maker.strategy.config)
  if (!parsed.success) {
    const problems = parsed.error.issues.flatMap((issue) => {
      const path = [...at, 'config', ...issue.path]
      if (issue.code === 'unrecognized_keys') {
        return issue.keys.map((key) => `${locateKey(path, key)}: unknown key "${key}" in ${path.map(String).join('.')}`)
      }
      return [`${locate(path)}: ${path.map(String).join('.')}: ${issue.message}`]
    })
    throw new ConfigError(file, problems)
  }
  return definition
}

export type SandboxRegistration = { name: string; chainId: number; url: string }

/**
 * Registers each served chain's endpoint with a sandbox (`POST /_sandbox/makers`), so the sandbox polls it and routes
 * swaps through it as the service would; the credentials travel with it for the sandbox to sign its requests.
 * Throws MakerSetupError with the sandbox's answer when it refuses.
 */
export async function registerWithSandbox({
  sandboxUrl,
  name,
  endpoints,
  credentials,
  websocket,
  logger,
}: {
  sandboxUrl: string
  name: string
  endpoints: readonly { chainId: number; url: string }[]
  credentials: MakerCredentials | undefined
  /** The maker serves its price stream at `<url>/ws`: the sandbox consumes it instead of polling `/prices`. */
  websocket: boolean
  logger: Logger
}): Promise<SandboxRegistration[]> {
  const registered: SandboxRegistration[] = []
  for (const { chainId, url } of endpoints) {
    const registration = { name: endpoints.length === 1 ? name : `${name}-${chainId}`, chainId, url }
    const response = await fetch(new URL('/_sandbox/makers', sandboxUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        ...registration,
        ...(credentials ? { auth: credentials } : {}),
        ...(websocket ? { websocket: true } : {}),
      }),
    })
    if (!response.ok) {
      const text = (await response.text()).slice(0, 500)
      throw new MakerSetupError(
        `the sandbox at ${sandboxUrl} refused to register maker "${registration.name}" (HTTP ${response.status}): ${text}`,
        {
          hint:
            response.status === 404
              ? 'this sandbox does not consume makers; set maker.registerWithSandbox: false to serve without it'
              : 'check that the maker answers /tokens and /pairs, and that its name is not registered already',
          errorClass: 'operational',
        },
      )
    }
    registered.push(registration)
    logger.info({ sandbox: sandboxUrl, ...registration }, 'maker registered with the sandbox')
  }
  return registered
}

/** Best effort at stop: the sandbox forgets the maker instead of disabling it after failed polls. */
export async function unregisterFromSandbox(
  sandboxUrl: string,
  registrations: readonly SandboxRegistration[],
  logger: Logger,
): Promise<void> {
  for (const { name } of registrations) {
    try {
      await fetch(new URL(`/_sandbox/makers/${encodeURIComponent(name)}`, sandboxUrl), {
        method: 'DELETE',
        signal: AbortSignal.timeout(2_000),
      })
    } catch (error) {
      logger.debug({ err: error, name }, 'unregistering the maker from the sandbox failed')
    }
  }
}
