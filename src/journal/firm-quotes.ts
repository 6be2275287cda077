import type { Database } from 'better-sqlite3'
import type { Address, Hex } from 'viem'
import { z } from 'zod'
import type { Clock } from '../time/clock.js'
import { amountColumn, toAddress, toAmountText } from './sql-values.js'

// The firm quotes of `deltaflow maker`: what the maker signed and sent, and what became of it on-chain. No secret is
// stored (the order's fields are public once sent; the signature is not kept).

export const firmQuoteStatuses = ['open', 'filled', 'partially-filled', 'expired'] as const
export type FirmQuoteStatus = (typeof firmQuoteStatuses)[number]

const firmQuoteRowSchema = z
  .object({
    order_hash: z.string(),
    chain_id: z.number().int(),
    maker: z.string(),
    maker_asset: z.string(),
    taker_asset: z.string(),
    maker_amount: amountColumn,
    taker_amount: amountColumn,
    user_address: z.string(),
    taker: z.string(),
    nonce_and_meta: amountColumn,
    expiry: z.number().int(),
    quoted_at: z.number().int(),
    status: z.enum(firmQuoteStatuses),
    closed: z.union([z.literal(0), z.literal(1)]),
    filled_maker_amount: amountColumn,
    filled_taker_amount: amountColumn,
    tx_hash: z.string().nullable(),
    updated_at: z.number().int(),
  })
  .transform((row) => ({
    orderHash: row.order_hash as Hex,
    chainId: row.chain_id,
    maker: row.maker as Address,
    makerAsset: row.maker_asset as Address,
    takerAsset: row.taker_asset as Address,
    makerAmount: row.maker_amount,
    takerAmount: row.taker_amount,
    user: row.user_address as Address,
    taker: row.taker as Address,
    nonceAndMeta: row.nonce_and_meta,
    /** Unix seconds. */
    expiry: row.expiry,
    quotedAt: row.quoted_at,
    status: row.status,
    /** Nothing more can happen to it: fully filled, or past its expiry. */
    closed: row.closed === 1,
    filledMakerAmount: row.filled_maker_amount,
    filledTakerAmount: row.filled_taker_amount,
    txHash: row.tx_hash as Hex | null,
    updatedAt: row.updated_at,
  }))

/** One journaled firm quote (addresses and hashes lowercase). */
export type JournalFirmQuote = z.output<typeof firmQuoteRowSchema>

export type RecordFirmQuoteParameters = {
  chainId: number
  orderHash: Hex
  maker: Address
  makerAsset: Address
  takerAsset: Address
  makerAmount: bigint
  takerAmount: bigint
  user: Address
  taker: Address
  nonceAndMeta: bigint
  /** Unix seconds. */
  expiry: number
  /** Clock ms. */
  quotedAt: number
}

/** One OrderFilled event of a firm quote. */
export type RecordFirmFillParameters = {
  orderHash: Hex
  txHash: Hex
  logIndex: number
  blockNumber: bigint
  makerAmount: bigint
  takerAmount: bigint
}

/** The firm quotes by status, and what the filled ones moved per chain and token. */
export type FirmQuoteSummary = {
  total: number
  byStatus: Record<FirmQuoteStatus, number>
  /** `chainId:token` → raw units the maker gave (sold) and got (bought) through fills. */
  flows: Record<string, { sold: bigint; bought: bigint }>
}

/** Statements over `firm_quotes` and `firm_quote_fills`; each function runs inside the caller's transaction. */
export function createFirmQuoteStatements(db: Database, clock: Clock) {
  const insert = db.prepare(
    `INSERT INTO firm_quotes (order_hash, chain_id, maker, maker_asset, taker_asset, maker_amount, taker_amount, user_address,
       taker, nonce_and_meta, expiry, quoted_at, status, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?) ON CONFLICT (order_hash) DO NOTHING`,
  )
  const select = db.prepare<[string], unknown>('SELECT * FROM firm_quotes WHERE order_hash = ?')
  const selectOpen = db.prepare<[], unknown>('SELECT * FROM firm_quotes WHERE closed = 0 ORDER BY quoted_at')
  const selectOpenOfChain = db.prepare<[number], unknown>('SELECT * FROM firm_quotes WHERE closed = 0 AND chain_id = ? ORDER BY quoted_at')
  const selectSince = db.prepare<[number], unknown>('SELECT * FROM firm_quotes WHERE quoted_at >= ? ORDER BY quoted_at')
  const selectCounts = db.prepare<[], { status: FirmQuoteStatus; count: number }>(
    'SELECT status, count(*) AS count FROM firm_quotes GROUP BY status',
  )
  const selectFlows = db.prepare<[], { chainId: number; makerAsset: string; takerAsset: string; sold: string; bought: string }>(
    `SELECT q.chain_id AS chainId, q.maker_asset AS makerAsset, q.taker_asset AS takerAsset, f.maker_amount AS sold, f.taker_amount AS bought
     FROM firm_quote_fills AS f JOIN firm_quotes AS q ON q.order_hash = f.order_hash`,
  )
  const insertFill = db.prepare(
    `INSERT INTO firm_quote_fills (tx_hash, log_index, order_hash, block_number, maker_amount, taker_amount, recorded_at)
     VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
  )
  const updateFilled = db.prepare(
    `UPDATE firm_quotes SET filled_maker_amount = ?, filled_taker_amount = ?, status = ?, closed = ?, tx_hash = ?, updated_at = ?
     WHERE order_hash = ?`,
  )
  const selectExpiring = db.prepare<[number, number], unknown>('SELECT * FROM firm_quotes WHERE closed = 0 AND chain_id = ? AND expiry < ?')
  const close = db.prepare('UPDATE firm_quotes SET status = ?, closed = 1, updated_at = ? WHERE order_hash = ?')

  const parseRow = (row: unknown): JournalFirmQuote => firmQuoteRowSchema.parse(row)
  const getFirmQuote = (orderHash: Hex): JournalFirmQuote | undefined => {
    const row = select.get(orderHash.toLowerCase())
    return row === undefined ? undefined : parseRow(row)
  }

  /** Stores a signed firm quote as `open` (before it is sent); a repeat returns the stored row. */
  function recordFirmQuote(quote: RecordFirmQuoteParameters): JournalFirmQuote {
    insert.run(
      quote.orderHash.toLowerCase(),
      quote.chainId,
      toAddress(quote.maker),
      toAddress(quote.makerAsset),
      toAddress(quote.takerAsset),
      toAmountText(quote.makerAmount),
      toAmountText(quote.takerAmount),
      toAddress(quote.user),
      toAddress(quote.taker),
      toAmountText(quote.nonceAndMeta),
      quote.expiry,
      quote.quotedAt,
      clock.now(),
    )
    const stored = getFirmQuote(quote.orderHash)
    if (!stored) throw new Error(`firm quote ${quote.orderHash} was not stored`)
    return stored
  }

  /**
   * Adds one fill event to its quote: `filled` once the whole taker amount is filled, else `partially-filled` (a fill
   * seen after the quote was taken for expired corrects it: the chain's events win). Returns the updated quote, or
   * undefined when the event was already recorded or the order is not a journaled firm quote.
   */
  function recordFirmFill(fill: RecordFirmFillParameters): JournalFirmQuote | undefined {
    const quote = getFirmQuote(fill.orderHash)
    if (!quote) return undefined
    const inserted = insertFill.run(
      fill.txHash.toLowerCase(),
      fill.logIndex,
      quote.orderHash,
      Number(fill.blockNumber),
      toAmountText(fill.makerAmount),
      toAmountText(fill.takerAmount),
      clock.now(),
    )
    if (inserted.changes === 0) return undefined
    const filledMaker = quote.filledMakerAmount + fill.makerAmount
    const filledTaker = quote.filledTakerAmount + fill.takerAmount
    const full = filledTaker >= quote.takerAmount
    updateFilled.run(
      toAmountText(filledMaker),
      toAmountText(filledTaker),
      full ? 'filled' : 'partially-filled',
      full || quote.closed ? 1 : 0,
      fill.txHash.toLowerCase(),
      clock.now(),
      quote.orderHash,
    )
    return getFirmQuote(quote.orderHash)
  }

  /**
   * Closes the open quotes of a chain whose expiry is before `chainTimeSeconds`: unfilled ones become `expired`,
   * partially filled ones keep their status. Returns the quotes closed.
   */
  function expireFirmQuotes({ chainId, chainTimeSeconds }: { chainId: number; chainTimeSeconds: number }): JournalFirmQuote[] {
    const expiring = selectExpiring.all(chainId, chainTimeSeconds).map(parseRow)
    for (const quote of expiring) close.run(quote.status === 'open' ? 'expired' : quote.status, clock.now(), quote.orderHash)
    return expiring.map((quote) => getFirmQuote(quote.orderHash) ?? quote)
  }

  /** Quotes that may still be filled (not fully filled, not past expiry), oldest first. */
  function openFirmQuotes(chainId?: number): JournalFirmQuote[] {
    return (chainId === undefined ? selectOpen.all() : selectOpenOfChain.all(chainId)).map(parseRow)
  }

  /** Quotes signed at or after `sinceMs` (clock ms), oldest first. */
  function firmQuotesSince(sinceMs: number): JournalFirmQuote[] {
    return selectSince.all(sinceMs).map(parseRow)
  }

  function firmQuoteSummary(): FirmQuoteSummary {
    const byStatus = Object.fromEntries(firmQuoteStatuses.map((status) => [status, 0])) as Record<FirmQuoteStatus, number>
    let total = 0
    for (const { status, count } of selectCounts.all()) {
      byStatus[status] = count
      total += count
    }
    const flows: FirmQuoteSummary['flows'] = {}
    const flowOf = (chainId: number, token: string) => {
      const key = `${chainId}:${token}`
      flows[key] ??= { sold: 0n, bought: 0n }
      return flows[key]
    }
    for (const row of selectFlows.all()) {
      flowOf(row.chainId, row.makerAsset).sold += BigInt(row.sold)
      flowOf(row.chainId, row.takerAsset).bought += BigInt(row.bought)
    }
    return { total, byStatus, flows }
  }

  return { recordFirmQuote, recordFirmFill, expireFirmQuotes, getFirmQuote, openFirmQuotes, firmQuotesSince, firmQuoteSummary }
}
