import { BaseError } from '../errors/base.js'
import { openQuoteStore } from './quote-store-read.js'
import { openJsonlReplay } from './replay-jsonl.js'
import type { QuoteReplaySource } from './replay-source.js'

// Opens what a backtest replays (the types are in replay-source.ts): the packed quote store or a JSONL recording.

/**
 * Opens recorded quotes for a replay, by name: `*.sqlite` is a packed quote store (quote-store.md), `*.jsonl` and
 * `*.jsonl.gz` a JSONL recording (src/feed/recorded-quotes.md). The header is read and checked now; quotes are read
 * block by block as `blocks()` is iterated.
 *
 * @example
 * const source = await openQuoteReplay('eth.sqlite')
 * for await (const block of source.blocks({ from, to }))
 *   for (let index = 0; index < block.length; index++) book.update(block, index)
 */
export async function openQuoteReplay(file: string): Promise<QuoteReplaySource> {
  if (file.endsWith('.sqlite')) return openQuoteStore(file)
  if (file.endsWith('.jsonl') || file.endsWith('.jsonl.gz')) return openJsonlReplay(file)
  throw new QuoteReplayFileError(file)
}

/** A quote file whose kind cannot be told from its name. Operational: rename it or pack it. */
export class QuoteReplayFileError extends BaseError {
  override name = 'QuoteReplayFileError' as const
  constructor(file: string) {
    super(`${file}: expected a quote store (*.sqlite) or a recording (*.jsonl, *.jsonl.gz)`, {
      details: { file },
      errorClass: 'operational',
      hint: 'Recordings end in .jsonl or .jsonl.gz; `deltaflow quotes pack` makes a .sqlite quote store of one.',
    })
  }
}
