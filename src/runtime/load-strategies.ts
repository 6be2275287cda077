import { dirname } from 'node:path'
import type { Address } from 'viem'
import {
  type ConfigCheck,
  type ConfigDocument,
  ConfigError,
  checkConfigFile,
  checkConfigText,
  documentOrThrow,
  type LoadConfigParameters,
} from '../config/load-config.js'
import { type DeltaflowConfig, strategyEntrySchema } from '../config/schema.js'
import type { QuoteRequest } from '../feed/quote.js'
import { decimalsFromTokenList, type TokenDecimals } from '../feed/token-decimals.js'
import type { StrategyDefinition } from '../strategy/define-strategy.js'
import { loadStrategy } from '../strategy/load-strategy.js'

/** An enabled strategy of the config with its loaded definition; its config passed the definition's schema. */
export type LoadedStrategy = { entry: DeltaflowConfig['strategies'][number]; definition: StrategyDefinition }

type Places = Pick<ConfigDocument, 'file' | 'locate' | 'locateKey'>

/**
 * Loads every enabled strategy and checks its config against its schema, before anything starts; throws ConfigError
 * naming each problem's YAML path and line.
 */
export async function loadStrategyDefinitions(document: ConfigDocument): Promise<LoadedStrategy[]> {
  const problems: string[] = []
  const loaded: LoadedStrategy[] = []
  for (const [index, entry] of document.config.strategies.entries()) {
    if (!entry.enabled) continue
    const checked = await checkStrategyEntry(entry, index, document)
    if ('problems' in checked) problems.push(...checked.problems)
    else loaded.push({ entry, definition: checked.definition })
  }
  if (problems.length > 0) throw new ConfigError(document.file, problems)
  return loaded
}

/**
 * Reads a configuration file and checks it whole in one pass: YAML, variables, `--set` values, the schema, and the
 * own config of every strategy entry that is well-formed enough to load (also when other keys of the file are wrong).
 * Throws one ConfigError listing every problem in file order; a missing file throws FileNotFoundError.
 */
export async function loadCheckedConfig(file: string, parameters: LoadConfigParameters = {}): Promise<ConfigDocument> {
  return checkedWithStrategies(checkConfigFile(file, parameters))
}

/**
 * As loadCheckedConfig, from the text of a configuration that `file` names (in messages, and as the directory that
 * relative strategy paths start from) without being read: a queue worker runs the optimiser's config this way.
 */
export async function loadCheckedConfigText(text: string, file: string, parameters: LoadConfigParameters = {}): Promise<ConfigDocument> {
  return checkedWithStrategies(checkConfigText(text, file, parameters))
}

async function checkedWithStrategies(check: ConfigCheck): Promise<ConfigDocument> {
  const problems = [...check.problems]
  const entries = (check.values as { strategies?: unknown } | undefined)?.strategies
  if (Array.isArray(entries)) {
    for (const [index, value] of entries.entries()) {
      const entry = strategyEntrySchema.safeParse(value)
      // A malformed entry is the schema's problem, already listed.
      if (!entry.success || !entry.data.enabled) continue
      const checked = await checkStrategyEntry(entry.data, index, check)
      if ('problems' in checked) problems.push(...checked.problems)
    }
  }
  return documentOrThrow({ ...check, problems })
}

/** One strategy entry: its plugin loaded and its config checked by the plugin's schema. */
async function checkStrategyEntry(
  entry: DeltaflowConfig['strategies'][number],
  index: number,
  { file, locate, locateKey }: Places,
): Promise<{ definition: StrategyDefinition } | { problems: string[] }> {
  const at = ['strategies', index]
  let definition: StrategyDefinition
  try {
    ;({ definition } = await loadStrategy(entry.use, { baseDirectory: dirname(file) }))
  } catch (error) {
    return { problems: [`${locate([...at, 'use'])}: strategies.${index}.use: ${error instanceof Error ? error.message : String(error)}`] }
  }
  const parsed = definition.configSchema.safeParse(entry.config)
  if (parsed.success) return { definition }
  const problems: string[] = []
  for (const issue of parsed.error.issues) {
    const path = [...at, 'config', ...issue.path]
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) problems.push(`${locateKey(path, key)}: unknown key "${key}" in ${path.map(String).join('.')}`)
    } else {
      problems.push(`${locate(path)}: ${path.map(String).join('.')}: ${issue.message}`)
    }
  }
  return { problems }
}

/** The decimals of every token of the quote requests, read once. */
export async function decimalsOfRequests(
  requests: readonly QuoteRequest[],
  decimalsOf: (chainId: number, token: Address) => Promise<number>,
): Promise<TokenDecimals> {
  const tokens = new Map<string, { chainId: number; address: Address }>()
  for (const request of requests) {
    tokens.set(`${request.chainId}:${request.srcToken}`, { chainId: request.chainId, address: request.srcToken })
    const destChainId = request.destChainId ?? request.chainId
    tokens.set(`${destChainId}:${request.destToken}`, { chainId: destChainId, address: request.destToken })
  }
  const list = await Promise.all(
    [...tokens.values()].map(async (token) => ({ ...token, decimals: await decimalsOf(token.chainId, token.address) })),
  )
  return decimalsFromTokenList(list)
}
