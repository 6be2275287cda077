import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import type { Readable } from 'node:stream'
import { createGunzip } from 'node:zlib'

/** A non-blank line of a file and its 1-based number. */
export type FileLine = { text: string; line: number }

/** A file that could not be read to its end: the problem in words, the line it happened at (undefined before any). */
export type ReadLinesFailure = { problem: string; line: number | undefined; cause: unknown }

export type ReadLinesOptions = {
  /** The caller's own error for a failure, thrown in its place. */
  fail: (failure: ReadLinesFailure) => Error
  /** The likely reason a `.gz` file ends early, said after the problem ("a recording cut short by a crash?"). */
  cutShort?: string | undefined
}

/**
 * Streams the non-blank lines of a text file (gunzipped when the name ends in `.gz`) with their 1-based numbers, in
 * constant memory. The streams are closed when the caller stops early. A file that cannot be read (missing, not gzip,
 * a gzip stream cut short) throws `options.fail(...)` at the line after the last one read.
 *
 * @example
 * for await (const { text, line } of readLines('quotes.jsonl.gz', { fail: ({ problem }) => new Error(problem) })) …
 */
export async function* readLines(file: string, options: ReadLinesOptions): AsyncGenerator<FileLine> {
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
    throw options.fail({ problem: readProblem(error, options.cutShort), line: line === 0 ? undefined : line + 1, cause: error })
  } finally {
    lines.close()
    source.destroy()
    input.destroy()
  }
}

function readProblem(error: unknown, cutShort: string | undefined): string {
  const code = (error as { code?: unknown } | null)?.code
  if (code === 'ENOENT') return 'no such file'
  if (code === 'Z_BUF_ERROR') return `the gzip stream ends early${cutShort === undefined ? '' : ` (${cutShort})`}`
  if (code === 'Z_DATA_ERROR') return 'not gzip data, though the name ends in .gz'
  return `cannot read the file (${error instanceof Error ? error.message : String(error)})`
}
