import { dirname } from 'node:path'
import type { Address } from 'viem'
import { type ConfigDocument, ConfigError } from '../config/load-config.js'
import type { DeltaflowConfig } from '../config/schema.js'
import type { QuoteRequest } from '../feed/quote.js'
import { decimalsFromTokenList, type TokenDecimals } from '../feed/token-decimals.js'
import type { StrategyDefinition } from '../strategy/define-strategy.js'
import { loadStrategy } from '../strategy/load-strategy.js'

/** An enabled strategy of the config with its loaded definition; its config passed the definition's schema. */
export type LoadedStrategy = { entry: DeltaflowConfig['strategies'][number]; definition: StrategyDefinition }

/**
 * Loads every enabled strategy and checks its config against its schema, before anything starts; throws ConfigError
 * naming each problem's YAML path and line.
 */
export async function loadStrategyDefinitions({ config, file, locate, locateKey }: ConfigDocument): Promise<LoadedStrategy[]> {
  const problems: string[] = []
  const loaded: LoadedStrategy[] = []
  for (const [index, entry] of config.strategies.entries()) {
    if (!entry.enabled) continue
    const at = ['strategies', index]
    let definition: StrategyDefinition
    try {
      ;({ definition } = await loadStrategy(entry.use, { baseDirectory: dirname(file) }))
    } catch (error) {
      problems.push(`${locate([...at, 'use'])}: strategies.${index}.use: ${error instanceof Error ? error.message : String(error)}`)
      continue
    }
    const parsed = definition.configSchema.safeParse(entry.config)
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const path = [...at, 'config', ...issue.path]
        if (issue.code === 'unrecognized_keys') {
          for (const key of issue.keys) problems.push(`${locateKey(path, key)}: unknown key "${key}" in ${path.map(String).join('.')}`)
        } else {
          problems.push(`${locate(path)}: ${path.map(String).join('.')}: ${issue.message}`)
        }
      }
      continue
    }
    loaded.push({ entry, definition })
  }
  if (problems.length > 0) throw new ConfigError(file, problems)
  return loaded
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
