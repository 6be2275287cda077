import type { Database } from 'better-sqlite3'
import { z } from 'zod'
import type { Clock } from '../time/clock.js'
import { JournalRecordNotFoundError } from './journal-errors.js'
import { rethrowMissingOrder } from './order-events.js'
import { amountColumn, nullableAmountColumn, toAddress, toAmountText } from './sql-values.js'

export const marketTransactionRowSchema = z
  .object({
    tx_hash: z.string(),
    order_id: z.string().nullable(),
    chain_id: z.number().int(),
    nonce: z.number().int(),
    from_address: z.string(),
    to_address: z.string(),
    value: amountColumn,
    data_hash: z.string(),
    status: z.enum(['sent', 'mined', 'reverted']),
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

export type JournalMarketTransaction = z.output<typeof marketTransactionRowSchema>

export type RecordMarketTransactionParameters = {
  txHash: string
  orderId?: string
  chainId: number
  nonce: number
  from: string
  to: string
  value: bigint
  dataHash: string
}

export type UpdateMarketTransactionParameters = {
  txHash: string
  blockNumber: number
  gasUsed: bigint
  effectiveGasPrice: bigint
} & ({ status: 'mined' } | { status: 'reverted'; revertReason: string })

/** Statements over `market_transactions`; each function runs inside the caller's transaction. */
export function createMarketTransactionStatements(
  db: Database,
  clock: Clock,
  recordOrderStatus: (change: { orderId: string; status: 'mined' | 'reverted'; reason?: string }) => boolean,
) {
  const insert = db.prepare(
    `INSERT INTO market_transactions (tx_hash, order_id, chain_id, nonce, from_address, to_address, value, data_hash, status,
       sent_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'sent', ?, ?) ON CONFLICT (tx_hash) DO NOTHING`,
  )
  const select = db.prepare('SELECT * FROM market_transactions WHERE tx_hash = ?')
  const update = db.prepare(
    `UPDATE market_transactions SET status = ?, revert_reason = ?, gas_used = ?, effective_gas_price = ?, block_number = ?,
       updated_at = ? WHERE tx_hash = ?`,
  )

  function getMarketTransaction(txHash: string): JournalMarketTransaction | undefined {
    const row = select.get(txHash.toLowerCase())
    return row === undefined ? undefined : marketTransactionRowSchema.parse(row)
  }

  /** Stores a sent transaction once per hash (status `sent`); returns the stored row. */
  function recordMarketTransaction(transaction: RecordMarketTransactionParameters): JournalMarketTransaction {
    const now = clock.now()
    try {
      insert.run(
        transaction.txHash.toLowerCase(),
        transaction.orderId ?? null,
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
    return getMarketTransaction(transaction.txHash) as JournalMarketTransaction
  }

  /** Records the receipt; the linked order (if any) takes the same outcome in the same transaction. Repeating it is harmless. */
  function updateMarketTransaction(receipt: UpdateMarketTransactionParameters): JournalMarketTransaction {
    const stored = getMarketTransaction(receipt.txHash)
    if (!stored) throw new JournalRecordNotFoundError({ kind: 'market transaction', id: receipt.txHash })
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
    if (stored.orderId !== null) {
      recordOrderStatus({ orderId: stored.orderId, status: receipt.status, ...(revertReason === null ? {} : { reason: revertReason }) })
    }
    return getMarketTransaction(receipt.txHash) as JournalMarketTransaction
  }

  return { getMarketTransaction, recordMarketTransaction, updateMarketTransaction }
}
