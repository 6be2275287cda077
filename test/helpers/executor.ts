import { type Address, parseEther } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { type ApiClient, createApiClient } from '../../src/api/client.js'
import { getContracts } from '../../src/api/resources/get-contracts.js'
import { createChainClients } from '../../src/chain/chain-clients.js'
import type { DeploymentContracts } from '../../src/chain/deployment.js'
import { createIntent } from '../../src/domain/intents/create-intent.js'
import { createExecutor } from '../../src/exec/executor/executor.js'
import { createExecutorContext, type ExecutorContext, type ExecutorSettings } from '../../src/exec/executor/executor-context.js'
import type { KillSwitch } from '../../src/exec/risk/kill-switch.js'
import { type RiskLimitsInput, riskLimitsSchema } from '../../src/exec/risk/risk-limits-schema.js'
import { openJournal } from '../../src/journal/journal.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js'
import { type Clock, systemClock } from '../../src/time/clock.js'

export type SandboxExecutorOptions = {
  accountIndex: number
  journalFile: string
  limits?: RiskLimitsInput
  settings?: Partial<ExecutorSettings>
  killSwitch?: KillSwitch
  /** The executor's and the journal's clock; pass `sandbox.venue.clock` when the sandbox runs faster than real time. */
  clock?: Clock
}

const contractsByUrl = new Map<string, Promise<DeploymentContracts>>()

/** An executor context over a running sandbox: its API, its chains, a development account and a journal file. */
export function sandboxExecutorContext(sandbox: RunningSandbox, options: SandboxExecutorOptions): Promise<ExecutorContext> {
  return venueExecutorContext({ url: sandbox.url, chains: sandbox.chains }, options)
}

/** The same over a sandbox known only by its URL and chains (e.g. one `deltaflow sandbox` process runs). */
export async function venueExecutorContext(
  sandbox: { url: string; chains: readonly { chainId: number; rpcUrl: string }[] },
  options: SandboxExecutorOptions,
): Promise<ExecutorContext> {
  const key = developmentAccounts[options.accountIndex]?.privateKey
  if (!key) throw new Error(`no development account ${options.accountIndex}`)
  const account = privateKeyToAccount(key)
  const api: ApiClient = createApiClient({ baseUrl: sandbox.url, retry: { retries: 2 } })
  let contracts = contractsByUrl.get(sandbox.url)
  if (!contracts) {
    contracts = getContracts(api).then((deployment) => Object.fromEntries(deployment.chains))
    contractsByUrl.set(sandbox.url, contracts)
  }
  const chains = createChainClients({
    chains: sandbox.chains.map((chain) => ({ chainId: chain.chainId, rpcUrls: [chain.rpcUrl] })),
    account,
    pollingIntervalMs: 50,
  })
  return createExecutorContext({
    api,
    chains,
    contracts: await contracts,
    account,
    journal: openJournal({ file: options.journalFile, clock: options.clock ?? systemClock }),
    clock: options.clock ?? systemClock,
    limits: riskLimitsSchema.parse(options.limits ?? {}),
    killSwitch: options.killSwitch,
    settings: options.settings,
  })
}

/**
 * Places a USDC → WETH LIMIT order far from the market (it stays open) from a development account through the
 * executor, and closes its journal so that a command can open it; returns the intent and the outcome.
 */
export async function placeOpenLimitOrder(
  sandbox: {
    url: string
    chains: readonly { chainId: number; rpcUrl: string }[]
    tokens: readonly { chainId: number; symbol: string; address: Address }[]
  },
  options: SandboxExecutorOptions & { key: string },
) {
  const context = await venueExecutorContext(sandbox, options)
  const token = (symbol: string) =>
    sandbox.tokens.find((candidate) => candidate.chainId === 1 && candidate.symbol === symbol)?.address ?? '0x'
  const intent = createIntent({
    clock: context.clock,
    key: options.key,
    content: {
      strategy: 'ladder',
      kind: 'limit',
      chainId: 1,
      srcToken: token('USDC'),
      destToken: token('WETH'),
      srcAmount: '100000000',
      destAmount: parseEther('10').toString(),
      validitySeconds: 3600,
    },
  })
  try {
    return { intent, placed: await createExecutor(context).execute(intent) }
  } finally {
    context.journal.close()
  }
}
