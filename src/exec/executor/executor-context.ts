import { keccak256, type LocalAccount } from 'viem'
import type { ApiClient } from '../../api/client.js'
import type { PermitPreference } from '../../chain/approval-plan.js'
import { type ChainClients, requireChainClients } from '../../chain/chain-clients.js'
import type { DeploymentContracts } from '../../chain/deployment.js'
import { readTokenDecimals } from '../../chain/token-decimals.js'
import {
  createTransactionQueue,
  type SignedTransaction,
  type TransactionQueue,
  type TransactionRequest,
} from '../../chain/transaction-queue.js'
import { keptPromise } from '../../domain/kept-promise.js'
import type { Journal } from '../../journal/journal.js'
import type { Logger } from '../../log/logger.js'
import type { Clock } from '../../time/clock.js'
import type { ModePreference } from '../mode/choose-mode.js'
import type { KillSwitch } from '../risk/kill-switch.js'
import type { RiskLimits } from '../risk/risk-limits-schema.js'

export type ExecutorSettings = {
  /** Which mode keeps a near tie, and by how many bps the other must beat it. */
  preference: ModePreference
  /** How the Delta contract gets its allowance for market-style Delta orders (LIMIT and TWAP always use an on-chain approval). */
  permitPreference: PermitPreference
  /**
   * How much allowance an approval grants: `exact` covers the order plus the unfilled part of the account's other open
   * orders of the same token and spender; `unlimited` grants the maximum once (fewer transactions, more exposure).
   */
  approvalPolicy: 'exact' | 'unlimited'
  /** Seconds a market-style Delta order stays open. */
  deltaValiditySeconds: number
  /** Seconds a Market transaction's deadline lies ahead. */
  marketValiditySeconds: number
  /** Seconds of slack added after the last TWAP slice before the order's deadline. */
  twapDeadlineSlackSeconds: number
  /** An order signed but not known to the venue is resubmitted at startup only if it stays valid this long. */
  resubmitMarginSeconds: number
}

export const defaultExecutorSettings: ExecutorSettings = {
  preference: { mode: 'delta', marginBps: 5 },
  permitPreference: 'onchain',
  approvalPolicy: 'exact',
  deltaValiditySeconds: 600,
  marketValiditySeconds: 300,
  twapDeadlineSlackSeconds: 600,
  resubmitMarginSeconds: 30,
}

/** What the executor works with; it is the only component that signs and sends. */
export type ExecutorContext = {
  api: ApiClient
  chains: ReadonlyMap<number, ChainClients>
  contracts: DeploymentContracts
  account: LocalAccount
  journal: Journal
  clock: Clock
  logger: Logger | undefined
  limits: RiskLimits
  killSwitch: KillSwitch | undefined
  settings: ExecutorSettings
  /** The account's transaction queue on a chain: every transaction is journaled before it is broadcast. */
  queueFor: (chainId: number) => TransactionQueue
  /** Token decimals, read once per token. */
  decimalsOf: (chainId: number, token: `0x${string}`) => Promise<number>
}

export type CreateExecutorContextParameters = Omit<ExecutorContext, 'queueFor' | 'decimalsOf' | 'settings' | 'killSwitch' | 'logger'> & {
  settings?: Partial<ExecutorSettings> | undefined
  killSwitch?: KillSwitch | undefined
  logger?: Logger | undefined
}

/** Purposes that name what a queued transaction does in the journal. */
type Purpose = NonNullable<TransactionRequest['purpose']>

export function createExecutorContext(parameters: CreateExecutorContextParameters): ExecutorContext {
  const { journal, account, clock, logger } = parameters
  const queues = new Map<number, TransactionQueue>()
  const decimals = new Map<string, Promise<number>>()
  const context: ExecutorContext = {
    ...parameters,
    logger,
    killSwitch: parameters.killSwitch,
    settings: { ...defaultExecutorSettings, ...parameters.settings },
    queueFor: (chainId) => {
      let queue = queues.get(chainId)
      if (!queue) {
        const chain = requireChainClients(parameters.chains, chainId)
        queue = createTransactionQueue({
          client: chain.publicClient,
          account,
          clock,
          logger,
          beforeBroadcast: (transaction, request) => journalTransaction(journal, transaction, request.purpose ?? 'other'),
          // The node refused the nonce (another sender took it): that signature never goes out, the queue re-signs.
          afterNonceRefusal: (transaction, reason) => {
            journal.dropTransaction({ txHash: transaction.hash, reason: `the node refused it (${reason}) at nonce ${transaction.nonce}` })
          },
        })
        queues.set(chainId, queue)
      }
      return queue
    },
    decimalsOf: (chainId, token) => {
      const key = `${chainId}:${token.toLowerCase()}`
      return keptPromise(decimals, key, () => readTokenDecimals(requireChainClients(parameters.chains, chainId), token))
    },
  }
  return context
}

/** Write-ahead record of a transaction; a swap's own record (with its order) is written by the Market flow itself. */
function journalTransaction(journal: Journal, transaction: SignedTransaction, purpose: Purpose): void {
  if (purpose === 'swap') return
  journal.recordTransaction({
    txHash: transaction.hash,
    purpose,
    chainId: transaction.chainId,
    nonce: transaction.nonce,
    from: transaction.from,
    to: transaction.to,
    value: transaction.value,
    dataHash: dataHashOf(transaction.data),
  })
}

export function dataHashOf(data: `0x${string}`): `0x${string}` {
  return keccak256(data)
}
