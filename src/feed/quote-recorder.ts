import { open } from 'node:fs/promises'
import type { Writable } from 'node:stream'
import { finished, pipeline } from 'node:stream/promises'
import { createGzip } from 'node:zlib'
import { filter, type Observable, type Subscription, takeWhile } from 'rxjs'
import { BaseError } from '../errors/base.js'
import type { Clock } from '../time/clock.js'
import type { Quote } from './quote.js'
import type { QuoteEvent, QuoteReceivedEvent } from './quote-event.js'
import { type RecordedQuotesHeader, recordedQuotesFormat, recordedQuotesVersion, toRecordedQuoteJson } from './recorded-quote.js'
import type { TokenDecimals } from './token-decimals.js'

/** Writing a recording failed (disk full, directory gone, file exists). Operational: the quotes after it are lost. */
export class QuoteRecorderError extends BaseError {
  override name = 'QuoteRecorderError' as const
  constructor(shortMessage: string, file: string, cause?: unknown) {
    super(shortMessage, {
      details: { file },
      cause,
      errorClass: 'operational',
      hint: 'Check the path, the free disk space, and pass overwrite to replace an existing recording.',
    })
  }
}

export type CreateQuoteRecorderParameters = {
  /** Path of the recording; gzip-compressed when it ends in `.gz`. */
  file: string
  /** Decimals of the quoted tokens (the feed's own), written with every quote. */
  decimalsOf: TokenDecimals
  /** Stamps the header's startedAt. */
  clock: Clock
  /** Free facts for the header (API url, interval, command line). */
  meta?: RecordedQuotesHeader['meta'] | undefined
  /** Replace an existing file (default: refuse). */
  overwrite?: boolean | undefined
  /** Called once when writing fails; later writes are dropped and close() rejects with the same error. */
  onError?: ((error: QuoteRecorderError) => void) | undefined
}

export type QuoteRecorder = {
  readonly file: string
  /** Quotes accepted by write. */
  readonly written: number
  /** Appends one quote line (buffered); false once writing has failed. Throws after close. */
  write: (quote: Quote) => boolean
  /** Flushes and closes the file; rejects with the write failure if there was one. Safe to call twice. */
  close: () => Promise<void>
}

/**
 * Opens a quote recording (src/feed/recorded-quotes.md) and writes its header. Writes are buffered in memory when the
 * disk is slower than the quotes; at feed rates (hundreds of lines a second) that buffer stays small.
 *
 * @example
 * const recorder = await createQuoteRecorder({ file: 'quotes.jsonl.gz', decimalsOf, clock: systemClock })
 * const recording = recordQuoteEvents(feed.events, recorder)
 * // … on Ctrl-C:
 * recording.unsubscribe()
 * await recorder.close()
 */
export async function createQuoteRecorder(parameters: CreateQuoteRecorderParameters): Promise<QuoteRecorder> {
  const { file, decimalsOf, clock, meta, onError } = parameters
  const handle = await open(file, parameters.overwrite ? 'w' : 'wx').catch((error: unknown) => {
    throw new QuoteRecorderError('cannot create the quote recording', file, error)
  })
  const output = handle.createWriteStream()
  const gzip = file.endsWith('.gz') ? createGzip() : undefined
  const sink: Writable = gzip ?? output
  let failure: QuoteRecorderError | undefined
  const done = (gzip ? pipeline(gzip, output) : finished(output)).catch((error: unknown) => {
    failure = new QuoteRecorderError('writing the quote recording failed', file, error)
    onError?.(failure)
  })
  let written = 0
  let closing: Promise<void> | undefined
  const header: RecordedQuotesHeader = {
    format: recordedQuotesFormat,
    version: recordedQuotesVersion,
    startedAt: clock.now(),
    ...(meta ? { meta } : {}),
  }
  sink.write(`${JSON.stringify(header)}\n`)
  return {
    file,
    get written() {
      return written
    },
    write(quote) {
      if (closing) throw new QuoteRecorderError('a quote was written after the recording was closed', file)
      if (failure) return false
      sink.write(`${JSON.stringify(toRecordedQuoteJson(quote, decimalsOf))}\n`)
      written++
      return true
    },
    close() {
      closing ??= (async () => {
        if (!failure) sink.end()
        await done
        if (failure) throw failure
      })()
      return closing
    },
  }
}

/**
 * Writes every quote of a feed's events to a recorder (failures are not recorded) until unsubscribed or until
 * writing fails. Unsubscribe before closing the recorder.
 */
export function recordQuoteEvents(events: Observable<QuoteEvent>, recorder: QuoteRecorder): Subscription {
  return events
    .pipe(
      filter((event): event is QuoteReceivedEvent => event.type === 'quote'),
      takeWhile((event) => recorder.write(event.quote)),
    )
    .subscribe()
}
