import { type Address, type Hex, type PublicClient, TransactionNotFoundError, TransactionReceiptNotFoundError } from 'viem'
import { revertReasonOf } from '../../chain/revert-reason.js'
import { readTransactionFlows, type TransactionFlows } from '../../chain/token-flows.js'
import type { Logger } from '../../log/logger.js'
import type { Journal } from '../journal.js'
import type { JournalOrder } from '../orders.js'
import type { JournalTransaction } from '../transactions.js'
import { mapConcurrently } from './map-concurrently.js'
import { readMarketSwapFill } from './market-swap-fill.js'
import type { ReconcileChains } from './reconcile-chains.js'
import { ReconcileChainMissingError } from './reconcile-errors.js'
import { countChainReadError, failureMessage, type ReconcileReport } from './reconcile-report.js'

export type ReconcileMarketTransactionsParameters = {
  journal: Journal
  chains: ReconcileChains
  account: Address
  report: ReconcileReport
  logger?: Logger | undefined
  signal?: AbortSignal | undefined
  concurrency: number
  /** Chains whose RPC is down: their transactions wait for a later run (counted in the report's `skipped`). */
  skipChains?: ReadonlySet<number> | undefined
}

/**
 * The account's sent transactions (Market swaps, approvals, cancels) not yet known mined: a receipt records the outcome
 * (a swap's fill from its Transfer logs first, a revert with its reason); without one, a transaction whose nonce the
 * account has already used is dropped. Returns the swap orders whose transactions ended.
 */
export async function reconcileMarketTransactions(parameters: ReconcileMarketTransactionsParameters): Promise<string[]> {
  const { journal, report, logger } = parameters
  const account = parameters.account.toLowerCase()
  const skip = parameters.skipChains
  const ours = journal.pendingTransactions().filter((transaction) => transaction.from === account)
  const pending = skip ? ours.filter((transaction) => !skip.has(transaction.chainId)) : ours
  report.skipped.transactions += ours.length - pending.length
  const ended = await mapConcurrently(pending, parameters.concurrency, async (transaction) => {
    parameters.signal?.throwIfAborted()
    try {
      const client = parameters.chains.get(transaction.chainId)?.publicClient
      if (!client)
        throw new ReconcileChainMissingError({ orderId: transaction.orderId ?? transaction.txHash, chainId: transaction.chainId })
      report.checked.market++
      const outcome = await reconcileTransaction(journal, client, transaction, report)
      if (outcome === 'pending') return undefined
      report.transactions[outcome]++
      // updateTransaction and dropTransaction move a swap's order to the same outcome.
      const order = swapOrderOf(journal, transaction)
      if (order?.status === outcome) report.statusChanges++
      return order?.id
    } catch (error) {
      parameters.signal?.throwIfAborted()
      report.errors.push({
        ...(transaction.orderId === null ? {} : { orderId: transaction.orderId }),
        txHash: transaction.txHash,
        mode: 'market',
        stage: 'chain',
        message: failureMessage(error),
      })
      countChainReadError(report, error, transaction.chainId)
      logger?.warn({ err: error, txHash: transaction.txHash }, 'reconcile could not check the transaction on the chain')
      return undefined
    }
  })
  return ended.filter((orderId) => orderId !== undefined)
}

async function reconcileTransaction(
  journal: Journal,
  client: PublicClient,
  transaction: JournalTransaction,
  report: ReconcileReport,
): Promise<'pending' | 'mined' | 'reverted' | 'dropped'> {
  const txHash = transaction.txHash as Hex
  let flows = await readMinedFlows(client, txHash)
  if (!flows) {
    const used = await client.getTransactionCount({ address: transaction.from as Address, blockTag: 'latest' })
    if (used <= transaction.nonce) return 'pending'
    // The nonce is taken: by this transaction, mined since the first look, or by another one.
    flows = await readMinedFlows(client, txHash)
    if (!flows) {
      journal.dropTransaction({ txHash, reason: `nonce ${transaction.nonce} was used by another transaction (account nonce ${used})` })
      return 'dropped'
    }
  }
  const receipt = { txHash, blockNumber: Number(flows.blockNumber), gasUsed: flows.gasUsed, effectiveGasPrice: flows.effectiveGasPrice }
  if (flows.status === 'reverted') {
    journal.updateTransaction({ ...receipt, status: 'reverted', revertReason: await replayRevertReason(client, txHash, flows.blockNumber) })
    return 'reverted'
  }
  const order = swapOrderOf(journal, transaction)
  if (order) {
    const { fill, notes } = await readMarketSwapFill(client, flows, order)
    // The fill before the outcome: updateTransaction makes the order final, and a final order is not looked at again.
    if (journal.recordFill(fill)) {
      report.fills.recorded++
      report.fills.chainConfirmed++
    }
    report.notes.push(...notes)
  }
  journal.updateTransaction({ ...receipt, status: 'mined' })
  return 'mined'
}

function swapOrderOf(journal: Journal, transaction: JournalTransaction): JournalOrder | undefined {
  return transaction.purpose === 'swap' && transaction.orderId !== null ? journal.getOrder({ id: transaction.orderId }) : undefined
}

async function readMinedFlows(client: PublicClient, txHash: Hex): Promise<TransactionFlows | undefined> {
  try {
    return await readTransactionFlows(client, txHash)
  } catch (error) {
    if (error instanceof TransactionReceiptNotFoundError || error instanceof TransactionNotFoundError) return undefined
    throw error
  }
}

/** The reason a mined transaction reverted: its call replayed on the state of its block, decoded. */
async function replayRevertReason(client: PublicClient, txHash: Hex, blockNumber: bigint): Promise<string> {
  const transaction = await client.getTransaction({ hash: txHash })
  try {
    await client.call({
      account: transaction.from,
      to: transaction.to,
      data: transaction.input,
      value: transaction.value,
      gas: transaction.gas,
      blockNumber,
    })
    return 'reverted on chain; its replay on the state of its block did not revert'
  } catch (error) {
    return revertReasonOf(error) ?? `reverted on chain; the replay failed: ${failureMessage(error)}`
  }
}
