import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import type { Readable } from 'node:stream'
import { createGunzip } from 'node:zlib'
import {
  parseRecordedQuoteLine,
  parseRecordedQuotesHeader,
  type RecordedQuote,
  RecordedQuotesError,
  type RecordedQuotesHeader,
} from './recorded-quote.js'

/** A recording on disk: iterate it (again and again) for its quotes, in file order. */
export type RecordedQuotes = AsyncIterable<RecordedQuote> & {
  readonly file: string
  /** The header line alone. */
  header: () => Promise<RecordedQuotesHeader>
}

/**
 * Streams the quotes of a recording (src/feed/recorded-quotes.md; gunzipped when the name ends in `.gz`) line by line,
 * in constant memory. Every line is validated; the first bad one throws a RecordedQuotesError naming `file:line` and
 * what was expected. Blank lines are skipped.
 *
 * @example
 * const recording = readRecordedQuotes('quotes.jsonl.gz')
 * console.log((await recording.header()).startedAt)
 * for await (const { quote } of recording) strategy.onQuote({ quote })
 */
export function readRecordedQuotes(file: string): RecordedQuotes {
  return {
    file,
    header: async () => {
      for await (const { text, line } of readLines(file)) return parseRecordedQuotesHeader(parseJson(text, file, line), file, line)
      throw emptyFile(file)
    },
    async *[Symbol.asyncIterator]() {
      let header = false
      for await (const { text, line } of readLines(file)) {
        const json = parseJson(text, file, line)
        if (header) {
          yield parseRecordedQuoteLine(json, file, line)
        } else {
          parseRecordedQuotesHeader(json, file, line)
          header = true
        }
      }
      if (!header) throw emptyFile(file)
    },
  }
}

/** The non-blank lines of a file with their 1-based numbers; the streams are closed when the caller stops early. */
async function* readLines(file: string): AsyncGenerator<{ text: string; line: number }> {
  const input = createReadStream(file)
  let source: Readable = input
  if (file.endsWith('.gz')) {
    const gunzip = createGunzip()
    input.on('error', (error) => gunzip.destroy(error))
    source = input.pipe(gunzip)
  }
  const lines = createInterface({ input: source, crlfDelay: Number.POSITIVE_INFINITY })
  let line = 0
  try {
    for await (const text of lines) {
      line++
      if (text.trim() !== '') yield { text, line }
    }
  } catch (error) {
    throw new RecordedQuotesError(file, line === 0 ? undefined : line + 1, [readProblem(error)], error)
  } finally {
    lines.close()
    source.destroy()
    input.destroy()
  }
}

function parseJson(text: string, file: string, line: number): unknown {
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new RecordedQuotesError(file, line, [`expected one JSON object on the line (${(error as Error).message})`])
  }
}

function readProblem(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code
  if (code === 'ENOENT') return 'no such file'
  if (code === 'Z_BUF_ERROR') return 'the gzip stream ends early (a recording cut short by a crash?)'
  if (code === 'Z_DATA_ERROR') return 'not gzip data, though the name ends in .gz'
  return `cannot read the file (${error instanceof Error ? error.message : String(error)})`
}

function emptyFile(file: string): RecordedQuotesError {
  return new RecordedQuotesError(file, undefined, ['the file is empty; expected a header line {"format":"deltaflow-quotes","version":1,…}'])
}
