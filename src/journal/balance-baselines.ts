import type { Database } from 'better-sqlite3'
import { z } from 'zod'
import type { Clock } from '../time/clock.js'
import { amountColumn, toAddress, toAmountText } from './sql-values.js'

export const balanceBaselineRowSchema = z
  .object({
    chain_id: z.number().int(),
    account: z.string(),
    token: z.string(),
    amount: amountColumn,
    block_number: z.number().int(),
    recorded_at: z.number().int(),
  })
  .transform((row) => ({
    chainId: row.chain_id,
    account: row.account,
    token: row.token,
    amount: row.amount,
    blockNumber: row.block_number,
    recordedAt: row.recorded_at,
  }))

export type BalanceBaseline = z.output<typeof balanceBaselineRowSchema>

export type RecordBalanceBaselineParameters = { chainId: number; account: string; token: string; amount: bigint; blockNumber: number }

/** Statements over `balance_baselines`; each function runs inside the caller's transaction. */
export function createBalanceBaselineStatements(db: Database, clock: Clock) {
  const insert = db.prepare(
    `INSERT INTO balance_baselines (chain_id, account, token, amount, block_number, recorded_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (chain_id, account, token) DO NOTHING`,
  )
  const select = db.prepare('SELECT * FROM balance_baselines WHERE chain_id = ? AND account = ? AND token = ?')
  const selectExists = db.prepare<[number, string, string], number>(
    'SELECT 1 FROM balance_baselines WHERE chain_id = ? AND account = ? AND token = ?',
  )
  const selectOfAccount = db.prepare('SELECT * FROM balance_baselines WHERE account = ? ORDER BY chain_id, token')
  // A baseline is never changed or deleted once recorded (by this connection or another): one known to exist stays so.
  const known = new Set<string>()
  const keyOf = (chainId: number, account: string, token: string) => `${chainId}:${account}:${token}`

  function getBalanceBaseline(chainId: number, account: string, token: string): BalanceBaseline | undefined {
    const row = select.get(chainId, toAddress(account), toAddress(token))
    return row === undefined ? undefined : balanceBaselineRowSchema.parse(row)
  }

  /** Whether (chain, account, token) has its baseline; asks the database only until it has. */
  function hasBalanceBaseline(chainId: number, account: string, token: string): boolean {
    const owner = toAddress(account)
    const asset = toAddress(token)
    const key = keyOf(chainId, owner, asset)
    if (known.has(key)) return true
    if (selectExists.get(chainId, owner, asset) === undefined) return false
    known.add(key)
    return true
  }

  /** The first baseline of (chain, account, token) stands; later calls return it. */
  function recordBalanceBaseline(baseline: RecordBalanceBaselineParameters): BalanceBaseline {
    const account = toAddress(baseline.account)
    const token = toAddress(baseline.token)
    insert.run(baseline.chainId, account, token, toAmountText(baseline.amount), baseline.blockNumber, clock.now())
    return getBalanceBaseline(baseline.chainId, account, token) as BalanceBaseline
  }

  function balanceBaselinesOf(account: string): BalanceBaseline[] {
    return selectOfAccount.all(toAddress(account)).map((row) => balanceBaselineRowSchema.parse(row))
  }

  return { getBalanceBaseline, hasBalanceBaseline, recordBalanceBaseline, balanceBaselinesOf }
}
