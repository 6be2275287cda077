import type { Address } from 'viem'
import type { Quote, QuoteRequest } from '../feed/quote.js'
import type { RecordedQuotesHeader } from '../feed/recorded-quote.js'

// What a backtest replays: recorded quotes in time order, handed over in blocks so that the hot loop reads numbers
// from arrays instead of walking one object per quote. Two formats give the same blocks: the packed quote store
// (quote-store.md; fast) and a JSONL recording (src/feed/recorded-quotes.md; every line parsed and validated).

/** A recorded request, shared by all its quotes; ids are dense from 0 in the order requests first appear. */
export type ReplayRequest = {
  readonly id: number
  readonly key: string
  readonly request: QuoteRequest
  readonly srcDecimals: number
  readonly destDecimals: number
}

/** The costs on top of a quote's amounts, as the recording's flat `gas` and `fees` fields state them. */
export type ReplayCosts = {
  /** USD, a display value. */
  gasUsd?: string
  /** Delta: the settlement gas fee in the source chain's native asset. */
  gasWei?: bigint
  /** Market: the gas estimate in gas units. */
  gasUnits?: bigint
  /** The partner fee in percent (0.05 = 0.05 %). */
  partnerPercent?: number
  /** Delta crosschain bridge fees. */
  bridge?: readonly { chainId: number; token: Address; amount: bigint; usd: string }[]
  /** Market: destAmount net of the partner fee, when the answer carried it. */
  destAmountAfterFee?: bigint
}

/**
 * Consecutive quotes, in time order. Accessors take the quote's index in the block (0 to length − 1). A block stays
 * valid after the iteration has moved on (a replay book may keep it as some request's latest quote).
 */
export interface QuoteBlock {
  readonly length: number
  /** Quote.receivedAt, clock ms. */
  time(index: number): number
  requestedAt(index: number): number
  /** The same object for every quote of one request. */
  request(index: number): ReplayRequest
  srcAmount(index: number): bigint
  destAmount(index: number): bigint
  /**
   * The amounts as the nearest floats (Number(srcAmount), Number(destAmount)), read without making a bigint where the
   * block can: for what compares or values them in floating point on every quote.
   */
  srcAmountNumber(index: number): number
  destAmountNumber(index: number): number
  costs(index: number): ReplayCosts
  /** The service's answer, parsed like the JSONL reader does; synthesized from the flat fields when none was kept. */
  answer(index: number): Quote['answer']
  /** The quote, its `answer` computed on first access. */
  quote(index: number): Quote
  /** Where the quote comes from, for error messages: `file:line` (JSONL) or `file#<quote number, from 1>` (store). */
  where(index: number): string
}

/** A time range of clock ms: from <= time < to; a bound left out is open. */
export type ReplayRange = { from?: number | undefined; to?: number | undefined }

export type QuoteReplaySource = {
  readonly file: string
  readonly header: RecordedQuotesHeader
  /** The last quote's time when the source knows it without reading every quote (a store: its last block's row). */
  readonly lastTime?: number | undefined
  /** Quotes with from <= time < to, in time order, in blocks; constant memory. Iterable again and again. */
  blocks(range?: ReplayRange): AsyncIterable<QuoteBlock>
  /** Releases the open file (a store's connection); blocks and iterations reopen it when they need it again. */
  close?(): void
}
