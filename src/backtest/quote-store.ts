import { existsSync, renameSync, rmSync } from 'node:fs'
import { deflateSync } from 'node:zlib'
import BetterSqlite3 from 'better-sqlite3'
import { describeReceived } from '../domain/wire-fields.js'
import { type QuoteRequest, quoteRequestKey } from '../feed/quote.js'
import {
  type RecordedQuote,
  type RecordedQuoteJson,
  type RecordedQuotesHeader,
  recordedQuoteLineSchema,
  recordedQuotesHeaderSchema,
  toRecordedQuoteJson,
} from '../feed/recorded-quote.js'
import {
  amountFlags,
  defaultBlockSize,
  describeIssues,
  encodeBlock,
  maxBlockSize,
  putAmount,
  QuoteStoreError,
  quoteStoreFormat,
  quoteStoreVersion,
} from './quote-store-layout.js'
import { recordedCostsSchema } from './replay-costs.js'
import { readRecordedQuoteLines } from './replay-jsonl.js'

// Writes the packed quote store (quote-store.md): recorded quotes in blocks of fixed-width columns, so that a replay
// reads a million quotes a second instead of parsing a 1.5 kB JSON line per quote.

export type CreateQuoteStoreParameters = {
  /** The store file (`*.sqlite`). */
  file: string
  /** The recording's header, kept as it is. */
  header: RecordedQuotesHeader
  /** Replace an existing file (default: refuse). */
  overwrite?: boolean | undefined
  /** Keep each quote's answer, compressed (default true); without, a replay synthesizes answers from the flat fields. */
  keepAnswers?: boolean | undefined
  /** Quotes per block (default 4096). */
  blockSize?: number | undefined
}

export type QuoteStoreWriter = {
  readonly file: string
  /**
   * Adds a quote; quotes must come in time order. `where` names it in errors (default `file#<quote number>`).
   * The quote's fields are checked (times, amounts, the request of a new key, costs); its answer is kept as given.
   */
  write(quote: RecordedQuoteJson | RecordedQuote, where?: string): void
  /** Writes the last block and the header, and moves the finished file into place. */
  close(): Promise<{ quotes: number; blocks: number }>
  /** Stops and removes the unfinished file. */
  abort(): Promise<void>
}

const schema = `
  CREATE TABLE meta (
    store_format TEXT NOT NULL, store_version INTEGER NOT NULL,
    format TEXT NOT NULL, version INTEGER NOT NULL, started_at INTEGER NOT NULL, meta TEXT,
    quotes INTEGER NOT NULL, block_size INTEGER NOT NULL, answers INTEGER NOT NULL
  );
  CREATE TABLE requests (
    id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, source TEXT NOT NULL, chain_id INTEGER NOT NULL, dest_chain_id INTEGER,
    src_token TEXT NOT NULL, dest_token TEXT NOT NULL, src_decimals INTEGER NOT NULL, dest_decimals INTEGER NOT NULL,
    side TEXT NOT NULL, amount TEXT NOT NULL
  );
  CREATE TABLE blocks (
    seq INTEGER PRIMARY KEY, first_time INTEGER NOT NULL, last_time INTEGER NOT NULL, count INTEGER NOT NULL,
    data BLOB NOT NULL, answers BLOB
  );
  CREATE INDEX blocks_by_last_time ON blocks (last_time);
`

const requestFieldsSchema = recordedQuoteLineSchema.pick({
  key: true,
  source: true,
  chainId: true,
  destChainId: true,
  srcToken: true,
  srcDecimals: true,
  destToken: true,
  destDecimals: true,
  side: true,
  amount: true,
})

const amountPattern = /^\d{1,78}$/
const twoTo256 = 1n << 256n

/**
 * Creates a quote store to write quotes into, block by block, in constant memory. The file appears only when
 * `close()` resolves (it is written beside it as `<file>.partial-<pid>` until then); an existing file is refused
 * unless `overwrite`.
 *
 * @example
 * const store = createQuoteStore({ file: 'eth.sqlite', header })
 * for (const line of lines) store.write(line)
 * const { quotes, blocks } = await store.close()
 */
export function createQuoteStore(parameters: CreateQuoteStoreParameters): QuoteStoreWriter {
  const { file, overwrite = false, keepAnswers = true, blockSize = defaultBlockSize } = parameters
  if (!Number.isInteger(blockSize) || blockSize < 1 || blockSize > maxBlockSize) {
    throw new QuoteStoreError(file, `blockSize: expected an integer from 1 to ${maxBlockSize}, received ${blockSize}`)
  }
  const parsedHeader = recordedQuotesHeaderSchema.safeParse(parameters.header, { reportInput: true })
  if (!parsedHeader.success) throw new QuoteStoreError(file, `header: ${describeIssues(parsedHeader.error.issues)}`)
  const header = parsedHeader.data
  if (!overwrite && existsSync(file)) throw fileExists(file)
  const partial = `${file}.partial-${process.pid}`
  rmSync(partial, { force: true })
  let db: BetterSqlite3.Database
  try {
    db = new BetterSqlite3(partial)
    // Large pages: a block is one blob of ~220 kB, read whole.
    db.pragma('page_size = 65536')
    // Written once, start to end; an interrupted pack leaves a partial file to delete, never a store.
    db.pragma('journal_mode = OFF')
    db.pragma('synchronous = OFF')
    db.exec(schema)
  } catch (error) {
    rmSync(partial, { force: true })
    throw new QuoteStoreError(file, 'cannot create the quote store', { cause: error, hint: 'Check the path and the free disk space.' })
  }
  const insertRequest = db.prepare(
    'INSERT INTO requests (id, key, source, chain_id, dest_chain_id, src_token, dest_token, src_decimals, dest_decimals, side, amount) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  )
  const insertBlock = db.prepare('INSERT INTO blocks (seq, first_time, last_time, count, data, answers) VALUES (?, ?, ?, ?, ?, ?)')

  const requests = new Map<string, { id: number; srcDecimals: number; destDecimals: number }>()
  const block = {
    count: 0,
    times: new Float64Array(blockSize),
    requestedAts: new Float64Array(blockSize),
    srcLo: new BigUint64Array(blockSize),
    srcHi: new BigUint64Array(blockSize),
    destLo: new BigUint64Array(blockSize),
    destHi: new BigUint64Array(blockSize),
    wide: [] as bigint[],
    ids: new Uint32Array(blockSize),
    costIndexes: new Uint16Array(blockSize),
    flags: new Uint8Array(blockSize),
    /** The block's distinct costs (JSON) and their index; costKeys maps a cheaper key to the index. */
    costs: new Map<string, number>(),
    costKeys: new Map<string, number>(),
    lastCosts: [] as ({ gas: unknown; fees: unknown; index: number } | undefined)[],
    answers: [] as string[],
  }
  let quotes = 0
  let blocks = 0
  let previousTime = Number.NEGATIVE_INFINITY
  let previousAt: string | undefined
  let state: 'open' | 'closed' | 'failed' = 'open'

  function flush(): void {
    if (block.count === 0) return
    const data = encodeBlock({
      ...block,
      wide: BigUint64Array.from(block.wide),
      costs: Buffer.from(`[${[...block.costs.keys()].join(',')}]`),
    })
    const answers = keepAnswers ? deflateSync(block.answers.join('\n')) : null
    insertBlock.run(blocks, block.times[0], block.times[block.count - 1], block.count, data, answers)
    blocks++
    block.count = 0
    block.wide = []
    block.costs.clear()
    block.costKeys.clear()
    block.lastCosts = []
    block.answers = []
  }

  function requestOf(line: RecordedQuoteJson, at: string | undefined): number {
    const known = requests.get(line.key)
    if (known) {
      if (known.srcDecimals !== line.srcDecimals || known.destDecimals !== line.destDecimals) {
        throw new QuoteStoreError(
          whereOf(at),
          `srcDecimals/destDecimals: expected ${known.srcDecimals}/${known.destDecimals} (as earlier quotes of ${line.key}), received ${line.srcDecimals}/${line.destDecimals}`,
        )
      }
      return known.id
    }
    const parsed = requestFieldsSchema.safeParse(line, { reportInput: true })
    if (!parsed.success) throw new QuoteStoreError(whereOf(at), describeIssues(parsed.error.issues))
    const fields = parsed.data
    const destChainId = fields.destChainId !== undefined && fields.destChainId !== fields.chainId ? fields.destChainId : undefined
    const request: QuoteRequest = { ...fields, ...(destChainId !== undefined ? { destChainId } : {}) }
    const key = quoteRequestKey(request)
    if (key !== fields.key)
      throw new QuoteStoreError(
        whereOf(at),
        `key: expected ${JSON.stringify(key)} (the key of the quote's request), received ${JSON.stringify(fields.key)}`,
      )
    const id = requests.size
    insertRequest.run(
      id,
      key,
      fields.source,
      fields.chainId,
      destChainId ?? null,
      fields.srcToken,
      fields.destToken,
      fields.srcDecimals,
      fields.destDecimals,
      fields.side,
      fields.amount.toString(),
    )
    requests.set(key, { id, srcDecimals: fields.srcDecimals, destDecimals: fields.destDecimals })
    return id
  }

  function costIndexOf(line: RecordedQuoteJson, id: number, at: string | undefined): number {
    const { gas, fees } = line
    // The same objects as the request's quote before (a writer reusing them): the same costs.
    const last = block.lastCosts[id]
    if (last !== undefined && last.gas === gas && last.fees === fees) return last.index
    // A cheap key first; the JSON (the table's entry) only for costs new to the block.
    const key = `${JSON.stringify(gas?.usd)}|${gas?.wei}|${gas?.units}|${fees?.partnerPercent}|${fees?.destAmountAfterFee}|${fees?.bridge === undefined ? '' : JSON.stringify(fees.bridge)}`
    const known = block.costKeys.get(key)
    if (known !== undefined) {
      block.lastCosts[id] = { gas, fees, index: known }
      return known
    }
    const parsed = recordedCostsSchema.safeParse({ gas, fees }, { reportInput: true })
    if (!parsed.success) throw new QuoteStoreError(whereOf(at), describeIssues(parsed.error.issues))
    const json = JSON.stringify({ gas, fees })
    let index = block.costs.get(json)
    if (index === undefined) {
      index = block.costs.size
      block.costs.set(json, index)
    }
    block.costKeys.set(key, index)
    block.lastCosts[id] = { gas, fees, index }
    return index
  }

  /** Where the quote being written is, for errors: `at`, else `file#<quote number>`. */
  function whereOf(at: string | undefined): string {
    return at ?? `${file}#${quotes + 1}`
  }

  function add(line: RecordedQuoteJson, at: string | undefined): void {
    const { time, requestedAt } = line
    if (!isClockTime(time)) throw badTime('time', time, whereOf(at))
    if (!isClockTime(requestedAt)) throw badTime('requestedAt', requestedAt, whereOf(at))
    if (time < previousTime) {
      throw new QuoteStoreError(
        whereOf(at),
        `time: expected ${previousTime} or later (the time of the quote before, ${previousAt ?? `${file}#${quotes}`}), received ${time}: a quote store holds quotes in time order`,
        { hint: 'Sort the recording by `time` (a stable sort keeps the order of equal times), then pack it again.' },
      )
    }
    const answerSource = typeof line.answer === 'object' && line.answer !== null ? line.answer.source : undefined
    if (answerSource !== 'delta' && answerSource !== 'market') {
      throw new QuoteStoreError(whereOf(at), `answer.source: expected "delta" or "market", received ${describeReceived(answerSource)}`)
    }
    const id = requestOf(line, at)
    const srcAmount = parseAmount(line.srcAmount, 'srcAmount', at, whereOf)
    const destAmount = parseAmount(line.destAmount, 'destAmount', at, whereOf)
    const costIndex = costIndexOf(line, id, at)
    const index = block.count
    block.times[index] = time
    block.requestedAts[index] = requestedAt
    block.ids[index] = id
    block.costIndexes[index] = costIndex
    block.flags[index] =
      putAmount(srcAmount, index, block.srcLo, block.srcHi, block.wide, { high: amountFlags.srcHigh, wide: amountFlags.srcWide }) |
      putAmount(destAmount, index, block.destLo, block.destHi, block.wide, { high: amountFlags.destHigh, wide: amountFlags.destWide }) |
      (answerSource === 'delta' ? amountFlags.deltaAnswer : 0)
    if (keepAnswers) block.answers.push(JSON.stringify(line.answer))
    block.count++
    quotes++
    previousTime = time
    previousAt = at
    if (block.count === blockSize) flush()
  }

  function discard(): void {
    state = 'failed'
    try {
      db.close()
    } finally {
      rmSync(partial, { force: true })
    }
  }

  return {
    file,
    write(quote, where) {
      if (state !== 'open') throw new QuoteStoreError(file, `a quote was written to a quote store that is ${state}`)
      const line = 'quote' in quote ? recordedQuoteJsonOf(quote) : quote
      try {
        add(line, where)
      } catch (error) {
        if (error instanceof QuoteStoreError) throw error
        discard()
        throw new QuoteStoreError(file, 'writing the quote store failed', { cause: error, hint: 'Check the free disk space.' })
      }
    },
    async close() {
      if (state !== 'open') throw new QuoteStoreError(file, `the quote store is already ${state}`)
      try {
        flush()
        db.prepare(
          'INSERT INTO meta (store_format, store_version, format, version, started_at, meta, quotes, block_size, answers) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        ).run(
          quoteStoreFormat,
          quoteStoreVersion,
          header.format,
          header.version,
          header.startedAt,
          header.meta === undefined ? null : JSON.stringify(header.meta),
          quotes,
          blockSize,
          keepAnswers ? 1 : 0,
        )
        db.close()
        state = 'closed'
        if (!overwrite && existsSync(file)) throw fileExists(file)
        renameSync(partial, file)
      } catch (error) {
        if (state === 'open') discard()
        state = 'failed'
        rmSync(partial, { force: true })
        if (error instanceof QuoteStoreError) throw error
        throw new QuoteStoreError(file, 'writing the quote store failed', { cause: error, hint: 'Check the path and the free disk space.' })
      }
      return { quotes, blocks }
    },
    async abort() {
      if (state === 'open') discard()
    },
  }
}

export type PackRecordedQuotesParameters = {
  /** A recording (`*.jsonl` or `*.jsonl.gz`, src/feed/recorded-quotes.md). */
  input: string
  /** The quote store to write (`*.sqlite`). */
  output: string
  /** Keep each quote's answer (default true). */
  keepAnswers?: boolean | undefined
  /** Replace an existing output (default: refuse). */
  overwrite?: boolean | undefined
  /** Quotes per block (default 4096). */
  blockSize?: number | undefined
}

export type PackRecordedQuotesResult = {
  output: string
  quotes: number
  blocks: number
  /** Times of the first and last quote (clock ms); undefined for a recording without quotes. */
  firstTime: number | undefined
  lastTime: number | undefined
}

/**
 * Packs a recording into a quote store, streaming, in constant memory. Every line is validated as the JSONL reader
 * does; a bad line, or a quote earlier than the one before, stops with an error naming `input:line`, and no output
 * is left behind.
 *
 * @example
 * const { quotes } = await packRecordedQuotes({ input: 'eth.jsonl.gz', output: 'eth.sqlite' })
 */
export async function packRecordedQuotes(parameters: PackRecordedQuotesParameters): Promise<PackRecordedQuotesResult> {
  const { input, output } = parameters
  const lines = readRecordedQuoteLines(input)
  const first = await lines.next()
  if (first.done) throw new Error('unreachable: readRecordedQuoteLines yields the header or throws')
  if (first.value.kind !== 'header') throw new Error('unreachable: the header comes first')
  const store = createQuoteStore({
    file: output,
    header: first.value.header,
    overwrite: parameters.overwrite,
    keepAnswers: parameters.keepAnswers,
    blockSize: parameters.blockSize,
  })
  let firstTime: number | undefined
  let lastTime: number | undefined
  try {
    for await (const item of lines) {
      if (item.kind !== 'quote') continue
      store.write(item.json, `${input}:${item.line}`)
      firstTime ??= item.json.time
      lastTime = item.json.time
    }
  } catch (error) {
    await store.abort()
    throw error
  } finally {
    await lines.return(undefined)
  }
  const { quotes, blocks } = await store.close()
  return { output, quotes, blocks, firstTime, lastTime }
}

/** The line of a parsed quote; its decimals are the ones it was read with. */
function recordedQuoteJsonOf({ quote, srcDecimals, destDecimals }: RecordedQuote): RecordedQuoteJson {
  return toRecordedQuoteJson(quote, (chainId, token) =>
    chainId === quote.request.chainId && token === quote.request.srcToken ? srcDecimals : destDecimals,
  )
}

function isClockTime(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
}

function badTime(name: string, value: unknown, where: string): QuoteStoreError {
  return new QuoteStoreError(where, `${name}: expected a non-negative integer (clock ms), received ${JSON.stringify(value)}`)
}

function parseAmount(value: unknown, name: string, at: string | undefined, whereOf: (at: string | undefined) => string): bigint {
  if (typeof value === 'string' && amountPattern.test(value)) {
    const amount = BigInt(value)
    if (amount < twoTo256) return amount
  }
  const shown = typeof value === 'string' && value.length > 80 ? `${value.slice(0, 77)}...` : value
  throw new QuoteStoreError(whereOf(at), `${name}: expected a decimal integer string below 2^256, received ${JSON.stringify(shown)}`)
}

function fileExists(file: string): QuoteStoreError {
  return new QuoteStoreError(file, 'the file exists already', {
    hint: 'Pass overwrite (`--overwrite`) to replace it, or choose another name.',
  })
}
