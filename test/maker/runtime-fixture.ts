import type { LocalAccount } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { type ApiClient, createApiClient } from '../../src/api/client.js'
import { getContracts } from '../../src/api/resources/get-contracts.js'
import { type ChainClients, createChainClients } from '../../src/chain/chain-clients.js'
import type { DeploymentContracts } from '../../src/chain/deployment.js'
import { type Journal, openJournal } from '../../src/journal/journal.js'
import { createLogger, type Logger } from '../../src/log/logger.js'
import type { MakerStrategyDefinition } from '../../src/maker/maker-strategy.js'
import { createMakerRuntime, type MakerRuntime, type MakerRuntimeIntervals } from '../../src/maker/runtime/maker-runtime.js'
import { createSafeMakerStrategy } from '../../src/maker/runtime/safe-maker-strategy.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js'

export type MakerFixture = {
  runtime: MakerRuntime
  journal: Journal
  account: LocalAccount
  api: ApiClient
  chains: ReadonlyMap<number, ChainClients>
  contracts: DeploymentContracts
  close: () => Promise<void>
}

export type OpenMakerFixtureOptions = {
  accountIndex: number
  definition: MakerStrategyDefinition
  config: unknown
  journalFile: string
  intervals?: Partial<MakerRuntimeIntervals>
  approvalPolicy?: 'exact' | 'unlimited'
  logger?: Logger
}

/** A maker runtime over a running sandbox: its API (no retries), its chains, a development account, a journal file. */
export async function openMakerFixture(sandbox: RunningSandbox, options: OpenMakerFixtureOptions): Promise<MakerFixture> {
  const key = developmentAccounts[options.accountIndex]?.privateKey
  if (!key) throw new Error(`no development account ${options.accountIndex}`)
  const account = privateKeyToAccount(key)
  const api = createApiClient({ baseUrl: sandbox.url, retry: { retries: 0 } })
  const chains = createChainClients({
    chains: sandbox.chains.map(({ chainId, rpcUrl }) => ({ chainId, rpcUrls: [rpcUrl] })),
    account,
    pollingIntervalMs: 50,
  })
  const contracts: DeploymentContracts = Object.fromEntries((await getContracts(api)).chains)
  const clock = sandbox.venue.clock
  const journal = openJournal({ file: options.journalFile, clock })
  const strategy = createSafeMakerStrategy(options.definition, { config: options.config })
  const runtime = createMakerRuntime({
    strategy,
    chainIds: sandbox.chains.map((chain) => chain.chainId),
    api,
    chains,
    contracts,
    account,
    journal,
    clock,
    approvalPolicy: options.approvalPolicy ?? 'exact',
    intervals: { referenceMs: 100, balanceMs: 200, quoteMs: 50, followMs: 100, ...options.intervals },
    logger: options.logger ?? createLogger({ level: process.env.MAKER_TEST_LOG ?? 'silent' }),
  })
  return {
    runtime,
    journal,
    account,
    api,
    chains,
    contracts,
    close: async () => {
      await runtime.stop()
      journal.close()
    },
  }
}

/** Waits until `read` returns a value other than undefined (polling every 25 ms); throws after `timeoutMs`. */
export async function waitFor<T>(read: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = read()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
