import { stringify } from 'csv-stringify/sync'
import { formatUnits } from 'viem'
import { createFillReader } from './fill-figures.js'
import type { BacktestRun } from './run-backtest.js'
import type { TradesFormat } from './trades-format.js'

/** Every fill of a run, as `--trades` writes it. */
export type TradeRow = {
  /** ISO 8601, UTC. */
  time: string
  /** Unix ms. */
  timeMs: number
  strategy: string
  orderId: string
  mode: string
  /** BUY or SELL of the base token; null for a fill outside the pair (a crosschain transfer of the quote token). */
  side: 'BUY' | 'SELL' | null
  /** Whole tokens, exact decimal strings; a token is named by the pair's symbol, else by its address. */
  spentAmount: string
  spentToken: string
  spentChainId: number
  receivedAmount: string
  receivedToken: string
  receivedChainId: number
  /** The pair's two sides of a trade, whole tokens (null outside the pair). */
  baseAmount: string | null
  quoteAmount: string | null
  /** Quote per base, after fees; the price the order was planned at; slippage against it (positive: worse). */
  price: number | null
  plannedPrice: number | null
  slippageBps: number | null
  /** The model's fee and the gas of the fill, quote token. */
  fee: number
  gas: number
}

/** The export's columns, in order (the CSV header; the keys of each JSONL line). */
export const tradeColumns = [
  'time',
  'timeMs',
  'strategy',
  'orderId',
  'mode',
  'side',
  'spentAmount',
  'spentToken',
  'spentChainId',
  'receivedAmount',
  'receivedToken',
  'receivedChainId',
  'baseAmount',
  'quoteAmount',
  'price',
  'plannedPrice',
  'slippageBps',
  'fee',
  'gas',
] as const satisfies readonly (keyof TradeRow)[]

/** One row per fill of the run, in the order they happened, pair trades and other fills alike. */
export function tradeRowsOf(run: BacktestRun): TradeRow[] {
  const read = createFillReader(run)
  return run.venue.fills().map((fill): TradeRow => {
    const { spent, received, fee, trade } = read(fill)
    const spentAmount = formatUnits(fill.spent, spent.decimals)
    const receivedAmount = formatUnits(fill.received, received.decimals)
    return {
      time: new Date(fill.at).toISOString(),
      timeMs: fill.at,
      strategy: fill.strategy,
      orderId: fill.orderId,
      mode: fill.mode,
      side: trade?.side ?? null,
      spentAmount,
      spentToken: spent.symbol ?? fill.srcToken,
      spentChainId: fill.chainId,
      receivedAmount,
      receivedToken: received.symbol ?? fill.destToken,
      receivedChainId: fill.destChainId,
      baseAmount: trade ? (trade.side === 'BUY' ? receivedAmount : spentAmount) : null,
      quoteAmount: trade ? (trade.side === 'BUY' ? spentAmount : receivedAmount) : null,
      price: trade && trade.price > 0 ? trade.price : null,
      plannedPrice: trade?.plannedPrice ?? null,
      slippageBps: trade && trade.price > 0 ? trade.slippageBps : null,
      fee,
      gas: fill.gasUsd,
    }
  })
}

/** The rows as CSV with a header row; an empty cell for null. */
export function formatTradesCsv(rows: readonly TradeRow[]): string {
  return stringify([...rows], { header: true, columns: [...tradeColumns] })
}

/** The rows as JSON Lines, one object per fill with the columns as keys. */
export function formatTradesJsonl(rows: readonly TradeRow[]): string {
  return rows.map((row) => `${JSON.stringify(Object.fromEntries(tradeColumns.map((column) => [column, row[column]])))}\n`).join('')
}

/** The rows in the format of the file they go to. */
export function formatTrades(rows: readonly TradeRow[], format: TradesFormat): string {
  return format === 'csv' ? formatTradesCsv(rows) : formatTradesJsonl(rows)
}
