import { endianness } from 'node:os'
import { inflateSync } from 'node:zlib'
import BetterSqlite3 from 'better-sqlite3'
import { z } from 'zod'
import {
  describeReceived,
  integerSchema,
  wireAddressSchema,
  wireAmountSchema,
  wireChainIdSchema,
  wireSideSchema,
} from '../domain/wire-fields.js'
import { type Quote, type QuoteRequest, quoteRequestKey } from '../feed/quote.js'
import { type RecordedQuotesHeader, recordedQuoteLineSchema, recordedQuotesHeaderSchema } from '../feed/recorded-quote.js'
import { deepFreeze, ReadOnlyQuote } from '../strategy/frozen-copy.js'
import {
  amountFlags,
  type BlockColumns,
  decodeBlock,
  describeIssues,
  QuoteStoreError,
  quoteStoreFormat,
  quoteStoreVersion,
  readLargeAmount,
} from './quote-store-layout.js'
import { recordedCostsSchema, toReplayCosts } from './replay-costs.js'
import type { QuoteBlock, QuoteReplaySource, ReplayCosts, ReplayRange, ReplayRequest } from './replay-source.js'
import { synthesizeAnswer } from './synthesize-answer.js'

// Reads the packed quote store (quote-store.md). The hot path reads numbers out of a block's typed arrays; objects
// are made only when asked for (amounts as bigint, costs, answers), and requests are loaded once, when opened.

/** A quote store opened for a replay. */
export type QuoteStoreSource = QuoteReplaySource & {
  readonly quotes: number
  /** False when packed without answers: answers are synthesized from the flat fields. */
  readonly answersKept: boolean
  /** Every request of the store, by id. */
  readonly requests: readonly ReplayRequest[]
  close(): void
}

const expecting = (what: string) => ({
  error: (issue: { input?: unknown }) => `expected ${what}, received ${describeReceived(issue.input)}`,
})

const identitySchema = z.object({
  store_format: z.literal(quoteStoreFormat, expecting(`"${quoteStoreFormat}"`)),
  store_version: z.literal(quoteStoreVersion, expecting(`${quoteStoreVersion} (the version this deltaflow reads)`)),
})

const metaRowSchema = z.object({
  format: z.string(),
  version: z.number(),
  started_at: z.number(),
  meta: z.string().nullable(),
  quotes: integerSchema,
  block_size: integerSchema,
  answers: z.union([z.literal(0), z.literal(1)]),
})

const requestRowSchema = z.object({
  id: integerSchema,
  key: z.string(),
  source: z.enum(['delta', 'market', 'unified']),
  chain_id: wireChainIdSchema,
  dest_chain_id: wireChainIdSchema.nullable(),
  src_token: wireAddressSchema,
  dest_token: wireAddressSchema,
  src_decimals: integerSchema,
  dest_decimals: integerSchema,
  side: wireSideSchema,
  amount: wireAmountSchema,
})

const blockRowSchema = z.object({
  seq: integerSchema,
  first_time: integerSchema,
  last_time: integerSchema,
  count: integerSchema,
  data: z.instanceof(Uint8Array, { error: 'expected a blob' }),
})

const answerSchema = recordedQuoteLineSchema.shape.answer
const costsTableSchema = z.array(recordedCostsSchema)

type Connection = ReturnType<typeof connect>

/**
 * Bytes of decoded blocks an opened store keeps for its next replays: an optimiser's trials, a sweep's runs and
 * walk-forward folds replay one store again and again, and a kept block is not read, checked or decoded again. The
 * blocks first read are kept until the budget is used; the others are read each time (a store larger than it keeps
 * a fixed part, so memory stays flat with its size). 16 MiB holds about 300,000 quotes: an optimiser's quote set
 * whole; a larger budget bought no speed in the DCA benchmark and made a set below it cost its whole size in memory.
 */
const keptBlocksBudgetBytes = 16 * 2 ** 20

/** A block as read and checked: its row and its columns, and its view of the whole block once made. */
type KeptBlock = { seq: number; firstTime: number; lastTime: number; count: number; columns: BlockColumns; whole?: StoreBlock }

/**
 * Opens a quote store: checks its format and version, reads the header and every request. Blocks are read as
 * `blocks()` is iterated, one query per block, and kept decoded for the next replays up to `keptBlocksBytes`
 * (default 16 MiB); the connection stays open for answers asked of blocks later, until `close()` (after which it
 * reopens when needed).
 */
export async function openQuoteStore(
  file: string,
  { keptBlocksBytes = keptBlocksBudgetBytes }: { keptBlocksBytes?: number } = {},
): Promise<QuoteStoreSource> {
  let connection: Connection | undefined = connect(file)
  try {
    const { header, quotes, answersKept } = readMeta(connection.db, file)
    const requests = readRequests(connection.db, file)
    const lastTime = connection.db.prepare('SELECT last_time FROM blocks ORDER BY seq DESC LIMIT 1').pluck().get()
    const context: StoreContext = {
      file,
      requests,
      answersKept,
      answersOf: (seq) => {
        connection ??= connect(file)
        return connection.answersOf.get(seq)
      },
    }
    /** Kept blocks by the seq asked for (the first at or after it is the block). */
    const kept = new Map<number, KeptBlock>()
    let keptBytes = 0
    /**
     * The block at or after `seq`, as kept or read now (and kept while the budget lasts); undefined past the last one
     * or, when it starts at `to` or later, past the range (then it is not decoded).
     */
    const blockAt = (seq: number, number: number, to: number | undefined): KeptBlock | undefined => {
      const known = kept.get(seq)
      if (known !== undefined) return to !== undefined && known.firstTime >= to ? undefined : known
      connection ??= connect(file)
      const row = connection.nextBlock.get(seq)
      if (row === undefined) return undefined
      const parsed = blockRowSchema.safeParse(row)
      if (!parsed.success) throw new QuoteStoreError(`${file}#${number}`, `the row of block ${seq} is not one a quote store writes`)
      const { seq: found, first_time: firstTime, last_time: lastTime, count, data } = parsed.data
      if (to !== undefined && firstTime >= to) return undefined
      const block: KeptBlock = { seq: found, firstTime, lastTime, count, columns: decodeStoreBlock(data, parsed.data, context, number) }
      if (keptBytes + data.byteLength <= keptBlocksBytes) {
        keptBytes += data.byteLength
        kept.set(seq, block)
      }
      return block
    }
    return {
      file,
      header,
      quotes,
      answersKept,
      requests,
      lastTime: typeof lastTime === 'number' ? lastTime : undefined,
      close() {
        connection?.db.close()
        connection = undefined
      },
      async *blocks(range: ReplayRange = {}) {
        const { from, to } = range
        connection ??= connect(file)
        const first = from === undefined ? 0 : connection.firstBlockFrom.get(from)
        if (typeof first !== 'number') return
        let seq = first
        let number = Number(connection.quotesBefore.get(seq)) + 1
        for (;;) {
          const block = blockAt(seq, number, to)
          if (block === undefined) return
          const { firstTime, lastTime, count, columns } = block
          const start = from !== undefined && firstTime < from ? lowerBound(columns.times, from) : 0
          const end = to !== undefined && lastTime >= to ? lowerBound(columns.times, to) : count
          if (start === 0 && end === count) {
            // The whole block: one view of it for every replay (it keeps the costs and answers it has read).
            block.whole ??= new StoreBlock(columns, 0, count, block.seq, number, context)
            yield block.whole
          } else if (end > start) yield new StoreBlock(columns, start, end, block.seq, number + start, context)
          seq = block.seq + 1
          number += count
        }
      },
    }
  } catch (error) {
    connection?.db.close()
    if (error instanceof BetterSqlite3.SqliteError) throw notAStore(file, error)
    throw error
  }
}

function connect(file: string) {
  let db: BetterSqlite3.Database
  try {
    db = new BetterSqlite3(file, { readonly: true, fileMustExist: true })
    // Blocks are read once each, in order: a page cache would only hold memory.
    db.pragma('cache_size = -2048')
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code
    if (code === 'SQLITE_NOTADB') throw notAStore(file, error)
    throw new QuoteStoreError(file, code === 'SQLITE_CANTOPEN' ? 'no such file' : 'cannot open the quote store', { cause: error })
  }
  try {
    return {
      db,
      firstBlockFrom: db.prepare('SELECT seq FROM blocks WHERE last_time >= ? ORDER BY last_time, seq LIMIT 1').pluck(),
      quotesBefore: db.prepare('SELECT coalesce(sum(count), 0) FROM blocks WHERE seq < ?').pluck(),
      nextBlock: db.prepare('SELECT seq, first_time, last_time, count, data FROM blocks WHERE seq >= ? ORDER BY seq LIMIT 1'),
      answersOf: db.prepare<[number], unknown>('SELECT answers FROM blocks WHERE seq = ?').pluck(),
    }
  } catch (error) {
    db.close()
    throw notAStore(file, error)
  }
}

function notAStore(file: string, cause: unknown): QuoteStoreError {
  const code = (cause as { code?: unknown } | null)?.code
  const problem = code === 'SQLITE_NOTADB' ? 'not a SQLite file' : 'not a quote store (its tables are missing or different)'
  return new QuoteStoreError(file, `expected a quote store of format "${quoteStoreFormat}", found ${problem}`, { cause })
}

function readMeta(db: BetterSqlite3.Database, file: string): { header: RecordedQuotesHeader; quotes: number; answersKept: boolean } {
  const rows = db.prepare('SELECT * FROM meta').all()
  const row = rows[0]
  if (rows.length !== 1 || row === undefined)
    throw new QuoteStoreError(file, `expected one meta row, found ${rows.length}: an unfinished quote store?`)
  const identity = identitySchema.safeParse(row, { reportInput: true })
  if (!identity.success) {
    throw new QuoteStoreError(file, describeIssues(identity.error.issues), {
      hint: `This deltaflow reads quote stores of format "${quoteStoreFormat}" version ${quoteStoreVersion}; pack the recording again with it (\`deltaflow quotes pack\`).`,
    })
  }
  const parsed = metaRowSchema.safeParse(row, { reportInput: true })
  if (!parsed.success) throw new QuoteStoreError(file, `meta: ${describeIssues(parsed.error.issues)}`)
  const { format, version, started_at: startedAt, meta } = parsed.data
  let metaJson: unknown
  try {
    metaJson = meta === null ? undefined : JSON.parse(meta)
  } catch (error) {
    throw new QuoteStoreError(file, 'meta.meta: expected JSON', { cause: error })
  }
  const header = recordedQuotesHeaderSchema.safeParse(
    { format, version, startedAt, ...(metaJson === undefined ? {} : { meta: metaJson }) },
    { reportInput: true },
  )
  if (!header.success) throw new QuoteStoreError(file, `the recording's header: ${describeIssues(header.error.issues)}`)
  return { header: header.data, quotes: parsed.data.quotes, answersKept: parsed.data.answers === 1 }
}

function readRequests(db: BetterSqlite3.Database, file: string): ReplayRequest[] {
  return db
    .prepare('SELECT * FROM requests ORDER BY id')
    .all()
    .map((row, index) => {
      const parsed = requestRowSchema.safeParse(row, { reportInput: true })
      if (!parsed.success) throw new QuoteStoreError(file, `request ${index}: ${describeIssues(parsed.error.issues)}`)
      const { id, key, source, chain_id: chainId, dest_chain_id: destChainId, src_token, dest_token, side, amount } = parsed.data
      if (id !== index) throw new QuoteStoreError(file, `requests: expected id ${index} (ids are dense from 0), received ${id}`)
      const request: QuoteRequest = Object.freeze({
        source,
        chainId,
        ...(destChainId !== null && destChainId !== chainId ? { destChainId } : {}),
        srcToken: src_token,
        destToken: dest_token,
        amount,
        side,
      })
      const computed = quoteRequestKey(request)
      if (computed !== key) {
        throw new QuoteStoreError(
          file,
          `request ${id}: key: expected ${JSON.stringify(computed)} (the key of its fields), received ${JSON.stringify(key)}`,
        )
      }
      // The computed key, interned as the strategies' subscriptions are.
      return Object.freeze({
        id,
        key: computed,
        request,
        srcDecimals: parsed.data.src_decimals,
        destDecimals: parsed.data.dest_decimals,
      })
    })
}

type StoreContext = {
  file: string
  requests: readonly ReplayRequest[]
  answersKept: boolean
  answersOf: (seq: number) => unknown
}

/** The block's columns, checked: whole, intact, known request ids, times in order and matching its row. */
function decodeStoreBlock(
  data: Uint8Array,
  row: { seq: number; first_time: number; last_time: number; count: number },
  context: StoreContext,
  number: number,
): BlockColumns {
  const corrupt = (problem: string) =>
    new QuoteStoreError(
      `${context.file}#${number}`,
      `block ${row.seq} (quotes ${number} to ${number + row.count - 1}) is corrupt: ${problem}`,
    )
  const columns = decodeBlock(data, row.count)
  if (typeof columns === 'string') throw corrupt(columns)
  const { times, ids, flags, srcLo, destLo } = columns
  const requestCount = context.requests.length
  const wideCount = columns.wide.length / 4
  let previous = row.first_time
  for (let index = 0; index < columns.count; index++) {
    const time = times[index] as number
    if (!(time >= previous)) throw corrupt(`quote ${index}: time ${time} is before ${previous}`)
    previous = time
    if ((ids[index] as number) >= requestCount) throw corrupt(`quote ${index}: request id ${ids[index]}, expected below ${requestCount}`)
    const flag = flags[index] as number
    if (
      (flag & amountFlags.srcWide && (srcLo[index] as bigint) >= wideCount) ||
      (flag & amountFlags.destWide && (destLo[index] as bigint) >= wideCount)
    ) {
      throw corrupt(`quote ${index}: a wide amount beyond the ${wideCount} stored`)
    }
  }
  if (times[0] !== row.first_time || previous !== row.last_time) {
    throw corrupt(`its times run from ${times[0]} to ${previous}, its row says ${row.first_time} to ${row.last_time}`)
  }
  return columns
}

/** Which word of a 64-bit amount (two 32-bit words in the host's order) is the low one. */
const lowWord = endianness() === 'LE' ? 0 : 1

/**
 * Amount `index` of a lo column (below 2^64) as the nearest float: high word × 2^32 is exact, and the one rounding
 * of the sum is Number()'s of the bigint.
 */
function wordsToNumber(words: Uint32Array, index: number): number {
  const at = 2 * index
  return (words[at + 1 - lowWord] as number) * 4_294_967_296 + (words[at + lowWord] as number)
}

/** The first index whose time is at least `time` (times are sorted). */
function lowerBound(times: Float64Array, time: number): number {
  let low = 0
  let high = times.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if ((times[middle] as number) < time) low = middle + 1
    else high = middle
  }
  return low
}

class StoreBlock implements QuoteBlock {
  readonly length: number
  readonly #times: Float64Array
  readonly #requestedAts: Float64Array
  readonly #ids: Uint32Array
  readonly #flags: Uint8Array
  readonly #srcLo: BigUint64Array
  readonly #srcHi: BigUint64Array
  readonly #destLo: BigUint64Array
  readonly #destHi: BigUint64Array
  /** The lo columns as 32-bit words: an amount below 2^64 read as a float without a bigint. */
  readonly #srcWords: Uint32Array
  readonly #destWords: Uint32Array
  readonly #wide: BigUint64Array
  readonly #costIndexes: Uint16Array
  readonly #costsJson: Uint8Array
  readonly #requests: readonly ReplayRequest[]
  /** Index of the block's first quote among the stored block's (the window's offset), for answers. */
  readonly #start: number
  readonly #storedCount: number
  readonly #seq: number
  readonly #firstNumber: number
  readonly #context: StoreContext
  #costs: readonly ReplayCosts[] | undefined
  #answerText: { text: Buffer; starts: Uint32Array } | undefined
  #answers: (Quote['answer'] | undefined)[] | undefined

  constructor(columns: BlockColumns, start: number, end: number, seq: number, firstNumber: number, context: StoreContext) {
    this.length = end - start
    this.#times = columns.times.subarray(start, end)
    this.#requestedAts = columns.requestedAts.subarray(start, end)
    this.#ids = columns.ids.subarray(start, end)
    this.#flags = columns.flags.subarray(start, end)
    this.#srcLo = columns.srcLo.subarray(start, end)
    this.#srcHi = columns.srcHi.subarray(start, end)
    this.#destLo = columns.destLo.subarray(start, end)
    this.#destHi = columns.destHi.subarray(start, end)
    this.#srcWords = new Uint32Array(this.#srcLo.buffer, this.#srcLo.byteOffset, this.length * 2)
    this.#destWords = new Uint32Array(this.#destLo.buffer, this.#destLo.byteOffset, this.length * 2)
    this.#wide = columns.wide
    this.#costIndexes = columns.costIndexes.subarray(start, end)
    this.#costsJson = columns.costs
    this.#requests = context.requests
    this.#start = start
    this.#storedCount = columns.count
    this.#seq = seq
    this.#firstNumber = firstNumber
    this.#context = context
  }

  time(index: number): number {
    return this.#times[index] as number
  }

  requestedAt(index: number): number {
    return this.#requestedAts[index] as number
  }

  request(index: number): ReplayRequest {
    return this.#requests[this.#ids[index] as number] as ReplayRequest
  }

  srcAmount(index: number): bigint {
    const flags = this.#flags[index] as number
    const lo = this.#srcLo[index] as bigint
    if ((flags & (amountFlags.srcHigh | amountFlags.srcWide)) === 0) return lo
    return readLargeAmount(lo, this.#srcHi[index] as bigint, this.#wide, (flags & amountFlags.srcWide) !== 0)
  }

  destAmount(index: number): bigint {
    const flags = this.#flags[index] as number
    const lo = this.#destLo[index] as bigint
    if ((flags & (amountFlags.destHigh | amountFlags.destWide)) === 0) return lo
    return readLargeAmount(lo, this.#destHi[index] as bigint, this.#wide, (flags & amountFlags.destWide) !== 0)
  }

  srcAmountNumber(index: number): number {
    if (((this.#flags[index] as number) & (amountFlags.srcHigh | amountFlags.srcWide)) !== 0) return Number(this.srcAmount(index))
    return wordsToNumber(this.#srcWords, index)
  }

  destAmountNumber(index: number): number {
    if (((this.#flags[index] as number) & (amountFlags.destHigh | amountFlags.destWide)) !== 0) return Number(this.destAmount(index))
    return wordsToNumber(this.#destWords, index)
  }

  costs(index: number): ReplayCosts {
    this.#costs ??= this.#readCosts()
    return this.#costs[this.#costIndexes[index] as number] as ReplayCosts
  }

  answer(index: number): Quote['answer'] {
    const cached = this.#answers?.[index]
    if (cached) return cached
    const answer = this.#context.answersKept ? this.#keptAnswer(index) : this.#synthesizedAnswer(index)
    this.#answers ??= []
    this.#answers[index] = answer
    return answer
  }

  quote(index: number): Quote {
    return new StoredQuote(this, index)
  }

  where(index: number): string {
    return `${this.#context.file}#${this.#firstNumber + index}`
  }

  #corrupt(problem: string): QuoteStoreError {
    const first = this.#firstNumber - this.#start
    return new QuoteStoreError(
      `${this.#context.file}#${first}`,
      `block ${this.#seq} (quotes ${first} to ${first + this.#storedCount - 1}) is corrupt: ${problem}`,
    )
  }

  #readCosts(): readonly ReplayCosts[] {
    let json: unknown
    try {
      json = JSON.parse(Buffer.from(this.#costsJson.buffer, this.#costsJson.byteOffset, this.#costsJson.length).toString('utf8'))
    } catch (error) {
      throw this.#corrupt(`its costs are not JSON (${(error as Error).message})`)
    }
    const parsed = costsTableSchema.safeParse(json, { reportInput: true })
    if (!parsed.success) throw this.#corrupt(`its costs: ${describeIssues(parsed.error.issues)}`)
    const costs = parsed.data.map(toReplayCosts)
    for (const index of this.#costIndexes)
      if (index >= costs.length) throw this.#corrupt(`a quote's costs index ${index}, expected below ${costs.length}`)
    return costs
  }

  #keptAnswer(index: number): Quote['answer'] {
    this.#answerText ??= this.#readAnswers()
    const { text, starts } = this.#answerText
    const at = this.#start + index
    const line = text.toString('utf8', starts[at] as number, (starts[at + 1] as number) - 1)
    let json: unknown
    try {
      json = JSON.parse(line)
    } catch (error) {
      throw new QuoteStoreError(this.where(index), `answer: expected JSON (${(error as Error).message})`)
    }
    const parsed = answerSchema.safeParse(json, { reportInput: true })
    if (!parsed.success) throw new QuoteStoreError(this.where(index), `answer.${describeIssues(parsed.error.issues)}`)
    return parsed.data
  }

  /** The block's answers, inflated: one JSON text per line; `starts` has a final entry one past the end. */
  #readAnswers(): { text: Buffer; starts: Uint32Array } {
    const blob = this.#context.answersOf(this.#seq)
    if (!(blob instanceof Uint8Array)) throw this.#corrupt('its answers are missing, though the store keeps answers')
    let text: Buffer
    try {
      text = inflateSync(blob)
    } catch (error) {
      throw this.#corrupt(`its answers do not inflate (${(error as Error).message})`)
    }
    const starts = new Uint32Array(this.#storedCount + 1)
    let position = 0
    for (let index = 1; index < this.#storedCount; index++) {
      position = text.indexOf(10, position)
      if (position < 0) throw this.#corrupt(`it holds ${index} answers, expected ${this.#storedCount}`)
      position++
      starts[index] = position
    }
    if (text.indexOf(10, position) >= 0) throw this.#corrupt(`it holds more than ${this.#storedCount} answers`)
    starts[this.#storedCount] = text.length + 1
    return { text, starts }
  }

  #synthesizedAnswer(index: number): Quote['answer'] {
    const request = this.request(index)
    const source =
      request.request.source === 'unified'
        ? (this.#flags[index] as number) & amountFlags.deltaAnswer
          ? 'delta'
          : 'market'
        : request.request.source
    return synthesizeAnswer({
      request,
      source,
      srcAmount: this.srcAmount(index),
      destAmount: this.destAmount(index),
      costs: this.costs(index),
      time: this.time(index),
    })
  }
}

/**
 * A quote of a block, read-only (strategies get it as it is): its fields read at once, its answer (parsed or
 * synthesized, then kept by the block) when asked, frozen.
 */
class StoredQuote extends ReadOnlyQuote implements Quote {
  readonly #block: StoreBlock
  readonly #index: number

  constructor(block: StoreBlock, index: number) {
    // The store's requests are frozen when read.
    const { request, key } = block.request(index)
    super(request, key, block.srcAmount(index), block.destAmount(index), block.requestedAt(index), block.time(index))
    this.#block = block
    this.#index = index
    Object.freeze(this)
  }

  get answer(): Quote['answer'] {
    return deepFreeze(this.#block.answer(this.#index)) as Quote['answer']
  }
}
