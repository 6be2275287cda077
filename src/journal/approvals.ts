import type { Database } from 'better-sqlite3'
import { z } from 'zod'
import type { Clock } from '../time/clock.js'
import { rethrowMissingOrder } from './order-events.js'
import { amountColumn, toAddress, toAmountText } from './sql-values.js'

export const approvalRowSchema = z
  .object({
    id: z.number().int(),
    chain_id: z.number().int(),
    owner: z.string(),
    token: z.string(),
    spender: z.string(),
    mode: z.enum(['approve', 'permit']),
    amount: amountColumn,
    tx_hash: z.string().nullable(),
    permit_kind: z.string().nullable(),
    permit_hash: z.string().nullable(),
    order_id: z.string().nullable(),
    recorded_at: z.number().int(),
  })
  .transform((row) => ({
    chainId: row.chain_id,
    owner: row.owner,
    token: row.token,
    spender: row.spender,
    mode: row.mode,
    amount: row.amount,
    txHash: row.tx_hash,
    permitKind: row.permit_kind,
    permitHash: row.permit_hash,
    orderId: row.order_id,
    recordedAt: row.recorded_at,
  }))

export type JournalApproval = z.output<typeof approvalRowSchema>

export type RecordApprovalParameters = {
  chainId: number
  owner: string
  token: string
  spender: string
  amount: bigint
  /** The order the permit was signed for, if any. */
  orderId?: string
} & (
  | { mode: 'approve'; txHash: string }
  /** `permitKind` e.g. eip2612, dai, permit2; `permitHash` identifies the signed permit (hash of its signature). */
  | { mode: 'permit'; permitKind: string; permitHash: string }
)

/** Statements over `approvals`; each function runs inside the caller's transaction. */
export function createApprovalStatements(db: Database, clock: Clock) {
  const insert = db.prepare(
    `INSERT INTO approvals (chain_id, owner, token, spender, mode, amount, tx_hash, permit_kind, permit_hash, order_id, recorded_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  )
  const selectByTx = db.prepare('SELECT * FROM approvals WHERE tx_hash = ?')
  const selectByPermit = db.prepare('SELECT * FROM approvals WHERE permit_hash = ?')

  /** Stores an approval transaction or a signed permit once (by tx hash or permit hash); returns the stored row. */
  function recordApproval(approval: RecordApprovalParameters): JournalApproval {
    const txHash = approval.mode === 'approve' ? approval.txHash.toLowerCase() : null
    const permitHash = approval.mode === 'permit' ? approval.permitHash.toLowerCase() : null
    try {
      insert.run(
        approval.chainId,
        toAddress(approval.owner),
        toAddress(approval.token),
        toAddress(approval.spender),
        approval.mode,
        toAmountText(approval.amount),
        txHash,
        approval.mode === 'permit' ? approval.permitKind : null,
        permitHash,
        approval.orderId ?? null,
        clock.now(),
      )
    } catch (error) {
      throw rethrowMissingOrder(error, approval.orderId ?? '')
    }
    return approvalRowSchema.parse(txHash !== null ? selectByTx.get(txHash) : selectByPermit.get(permitHash))
  }

  return { recordApproval }
}
