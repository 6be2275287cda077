import { type FileLine, readLines } from './read-lines.js'
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
      for await (const { text, line } of linesOf(file)) return parseRecordedQuotesHeader(parseJson(text, file, line), file, line)
      throw emptyFile(file)
    },
    async *[Symbol.asyncIterator]() {
      let header = false
      for await (const { text, line } of linesOf(file)) {
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

/** The recording's lines; a file that cannot be read is a RecordedQuotesError at the line it stopped. */
function linesOf(file: string): AsyncGenerator<FileLine> {
  return readLines(file, {
    fail: ({ problem, line, cause }) => new RecordedQuotesError(file, line, [problem], cause),
    cutShort: 'a recording cut short by a crash?',
  })
}

function parseJson(text: string, file: string, line: number): unknown {
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new RecordedQuotesError(file, line, [`expected one JSON object on the line (${(error as Error).message})`])
  }
}

function emptyFile(file: string): RecordedQuotesError {
  return new RecordedQuotesError(file, undefined, ['the file is empty; expected a header line {"format":"deltaflow-quotes","version":1,…}'])
}
