import type { Database } from 'better-sqlite3'
import { z } from 'zod'
import type { Clock } from '../time/clock.js'
import { JournalRecordNotFoundError } from './journal-errors.js'
import { rethrowMissingOrder } from './order-events.js'
import { amountColumn, nullableAmountColumn, toAddress, toAmountText } from './sql-values.js'

export const transactionPurposes = ['swap', 'approve', 'cancel', 'wrap', 'other'] as const
export type TransactionPurpose = (typeof transactionPurposes)[number]

export const transactionRowSchema = z
  .object({
    tx_hash: z.string(),
    order_id: z.string().nullable(),
    purpose: z.enum(transactionPurposes),
    chain_id: z.number().int(),
    nonce: z.number().int(),
    from_address: z.string(),
    to_address: z.string(),
    value: amountColumn,
    data_hash: z.string(),
    status: z.enum(['sent', 'mined', 'reverted', 'dropped']),
    revert_reason: z.string().nullable(),
    gas_used: nullableAmountColumn,
    effective_gas_price: nullableAmountColumn,
    block_number: z.number().int().nullable(),
    sent_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .transform((row) => ({
    txHash: row.tx_hash,
    orderId: row.order_id,
    purpose: row.purpose,
    chainId: row.chain_id,
    nonce: row.nonce,
    from: row.from_address,
    to: row.to_address,
    value: row.value,
    /** keccak256 of the calldata: enough to recognise the transaction without storing it twice. */
    dataHash: row.data_hash,
    status: row.status,
    revertReason: row.revert_reason,
    gasUsed: row.gas_used,
    effectiveGasPrice: row.effective_gas_price,
    blockNumber: row.block_number,
    sentAt: row.sent_at,
    updatedAt: row.updated_at,
  }))

export type JournalTransaction = z.output<typeof transactionRowSchema>

export type RecordTransactionParameters = {
  txHash: string
  /** The order a swap transaction carries; approvals and cancels name the order they serve, when one. */
  orderId?: string
  purpose: TransactionPurpose
  chainId: number
  nonce: number
  from: string
  to: string
  value: bigint
  dataHash: string
}

export type UpdateTransactionParameters = {
  txHash: string
  blockNumber: number
  gasUsed: bigint
  effectiveGasPrice: bigint
} & ({ status: 'mined' } | { status: 'reverted'; revertReason: string })

export type DropTransactionParameters = {
  txHash: string
  reason: string
  /**
   * The node refused the transaction and its order went out in another one, signed again with the next free nonce:
   * the order keeps its status (the other transaction's receipt decides it).
   */
  orderCarriedOn?: boolean | undefined
}

/** The Market transactions waiting for a receipt, by chain and nonce (read from their own index, transactions_sent). */
export const pendingTransactionsSql = `SELECT * FROM transactions WHERE status = 'sent' ORDER BY chain_id, nonce`

/** Statements over `transactions`; each function runs inside the caller's transaction. */
export function createTransactionStatements(
  db: Database,
  clock: Clock,
  recordOrderStatus: (change: { orderId: string; status: 'mined' | 'reverted' | 'dropped'; reason?: string }) => boolean,
) {
  const insert = db.prepare(
    `INSERT INTO transactions (tx_hash, order_id, purpose, chain_id, nonce, from_address, to_address, value, data_hash, status,
       sent_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'sent', ?, ?) ON CONFLICT (tx_hash) DO NOTHING`,
  )
  const select = db.prepare('SELECT * FROM transactions WHERE tx_hash = ?')
  const selectBySender = db.prepare('SELECT * FROM transactions WHERE from_address = ? AND chain_id = ? ORDER BY nonce, sent_at')
  const selectOfOrder = db.prepare('SELECT * FROM transactions WHERE order_id = ? ORDER BY sent_at, tx_hash')
  const selectPending = db.prepare(pendingTransactionsSql)
  const markDropped = db.prepare(`UPDATE transactions SET status = 'dropped', revert_reason = ?, updated_at = ? WHERE tx_hash = ?`)
  const update = db.prepare(
    `UPDATE transactions SET status = ?, revert_reason = ?, gas_used = ?, effective_gas_price = ?, block_number = ?,
       updated_at = ? WHERE tx_hash = ?`,
  )

  function getTransaction(txHash: string): JournalTransaction | undefined {
    const row = select.get(txHash.toLowerCase())
    return row === undefined ? undefined : transactionRowSchema.parse(row)
  }

  /** Every transaction of a sender on a chain, by nonce (gas for the conservation check). */
  function transactionsFrom(from: string, chainId: number): JournalTransaction[] {
    return selectBySender.all(toAddress(from), chainId).map((row) => transactionRowSchema.parse(row))
  }

  function transactionsOf(orderId: string): JournalTransaction[] {
    return selectOfOrder.all(orderId).map((row) => transactionRowSchema.parse(row))
  }

  /** Sent and not yet known mined, reverted or dropped. */
  function pendingTransactions(): JournalTransaction[] {
    return selectPending.all().map((row) => transactionRowSchema.parse(row))
  }

  /** Stores a transaction once per hash (status `sent`) before it is broadcast; returns the stored row. */
  function recordTransaction(transaction: RecordTransactionParameters): JournalTransaction {
    const now = clock.now()
    try {
      insert.run(
        transaction.txHash.toLowerCase(),
        transaction.orderId ?? null,
        transaction.purpose,
        transaction.chainId,
        transaction.nonce,
        toAddress(transaction.from),
        toAddress(transaction.to),
        toAmountText(transaction.value),
        transaction.dataHash.toLowerCase(),
        now,
        now,
      )
    } catch (error) {
      throw rethrowMissingOrder(error, transaction.orderId ?? '')
    }
    return getTransaction(transaction.txHash) as JournalTransaction
  }

  /** Records the receipt; a swap's order takes the same outcome in the same transaction. Repeating it is harmless. */
  function updateTransaction(receipt: UpdateTransactionParameters): JournalTransaction {
    const stored = getTransaction(receipt.txHash)
    if (!stored) throw new JournalRecordNotFoundError({ kind: 'transaction', id: receipt.txHash })
    const revertReason = receipt.status === 'reverted' ? receipt.revertReason : null
    update.run(
      receipt.status,
      revertReason,
      toAmountText(receipt.gasUsed),
      toAmountText(receipt.effectiveGasPrice),
      receipt.blockNumber,
      clock.now(),
      stored.txHash,
    )
    if (stored.orderId !== null && stored.purpose === 'swap') {
      recordOrderStatus({ orderId: stored.orderId, status: receipt.status, ...(revertReason === null ? {} : { reason: revertReason }) })
    }
    return getTransaction(receipt.txHash) as JournalTransaction
  }

  /**
   * The transaction will never be mined (its nonce went to another one); a swap's order becomes `dropped`, unless
   * another transaction carries it on.
   */
  function dropTransaction({ txHash, reason, orderCarriedOn = false }: DropTransactionParameters): JournalTransaction {
    const stored = getTransaction(txHash)
    if (!stored) throw new JournalRecordNotFoundError({ kind: 'transaction', id: txHash })
    if (stored.status !== 'sent') return stored
    markDropped.run(reason, clock.now(), stored.txHash)
    if (stored.orderId !== null && stored.purpose === 'swap' && !orderCarriedOn) {
      recordOrderStatus({ orderId: stored.orderId, status: 'dropped', reason })
    }
    return getTransaction(txHash) as JournalTransaction
  }

  return { getTransaction, transactionsFrom, transactionsOf, pendingTransactions, recordTransaction, updateTransaction, dropTransaction }
}
