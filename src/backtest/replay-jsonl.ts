import type { Quote } from '../feed/quote.js'
import { readLines } from '../feed/read-lines.js'
import {
  parseRecordedQuoteLine,
  parseRecordedQuotesHeader,
  type RecordedQuote,
  type RecordedQuoteJson,
  RecordedQuotesError,
  type RecordedQuotesHeader,
} from '../feed/recorded-quote.js'
import { recordedCostsSchema, toReplayCosts } from './replay-costs.js'
import type { QuoteBlock, QuoteReplaySource, ReplayCosts, ReplayRequest } from './replay-source.js'

// The slow path of a replay: a JSONL recording parsed line by line (every line validated), grouped into blocks.

/** Lines per block: parsed quotes are large, and a replay book may keep a block per request alive. */
const jsonlBlockSize = 256

export type RecordedQuoteLine =
  | { kind: 'header'; header: RecordedQuotesHeader; line: number }
  | { kind: 'quote'; recorded: RecordedQuote; json: RecordedQuoteJson; line: number }

/**
 * The header and the quotes of a recording with their line numbers, each validated like readRecordedQuotes does
 * (a bad line throws RecordedQuotesError naming `file:line`), plus a check that times never decrease.
 */
export async function* readRecordedQuoteLines(file: string): AsyncGenerator<RecordedQuoteLine, void, undefined> {
  let header = false
  let previous: { time: number; line: number } | undefined
  const lines = readLines(file, {
    fail: ({ problem, line, cause }) => new RecordedQuotesError(file, line, [problem], cause),
    cutShort: 'a recording cut short by a crash?',
  })
  for await (const { text, line } of lines) {
    const json = parseJson(text, file, line)
    if (!header) {
      yield { kind: 'header', header: parseRecordedQuotesHeader(json, file, line), line }
      header = true
      continue
    }
    const recorded = parseRecordedQuoteLine(json, file, line)
    const time = recorded.quote.receivedAt
    if (previous && time < previous.time) {
      throw new RecordedQuotesError(file, line, [
        `time: expected ${previous.time} or later (the time of line ${previous.line}: a replay needs quotes in time order), received ${time}`,
      ])
    }
    previous = { time, line }
    // parseRecordedQuoteLine has just validated the line against recordedQuoteLineSchema, whose input type this is.
    yield { kind: 'quote', recorded, json: json as RecordedQuoteJson, line }
  }
  if (!header) {
    throw new RecordedQuotesError(file, undefined, [
      'the file is empty; expected a header line {"format":"deltaflow-quotes","version":1,…}',
    ])
  }
}

/** A JSONL recording as a replay source; request ids are given in the order requests first appear to this source. */
export async function openJsonlReplay(file: string): Promise<QuoteReplaySource> {
  const lines = readRecordedQuoteLines(file)
  const first = await lines.next()
  await lines.return(undefined)
  if (first.done || first.value.kind !== 'header') throw new Error('unreachable: readRecordedQuoteLines yields the header or throws')
  const header = first.value.header
  const requests = new Map<string, ReplayRequest>()
  const requestOf = ({ quote, srcDecimals, destDecimals }: RecordedQuote): ReplayRequest => {
    let request = requests.get(quote.key)
    if (!request) {
      request = Object.freeze({
        id: requests.size,
        key: quote.key,
        request: Object.freeze({ ...quote.request }),
        srcDecimals,
        destDecimals,
      })
      requests.set(quote.key, request)
    }
    return request
  }
  return {
    file,
    header,
    async *blocks(range = {}) {
      const { from, to } = range
      let block = new JsonlBlock(file)
      for await (const item of readRecordedQuoteLines(file)) {
        if (item.kind !== 'quote') continue
        const time = item.recorded.quote.receivedAt
        if (to !== undefined && time >= to) break
        if (from !== undefined && time < from) continue
        block.push(item.recorded, item.json, item.line, requestOf(item.recorded))
        if (block.length === jsonlBlockSize) {
          yield block
          block = new JsonlBlock(file)
        }
      }
      if (block.length > 0) yield block
    },
  }
}

class JsonlBlock implements QuoteBlock {
  readonly #file: string
  readonly #quotes: Quote[] = []
  readonly #costs: { gas?: unknown; fees?: unknown }[] = []
  readonly #lines: number[] = []
  readonly #requests: ReplayRequest[] = []

  constructor(file: string) {
    this.#file = file
  }

  get length(): number {
    return this.#quotes.length
  }

  push(recorded: RecordedQuote, json: RecordedQuoteJson, line: number, request: ReplayRequest): void {
    // The shared request object in place of the line's own copy.
    this.#quotes.push({ ...recorded.quote, request: request.request })
    this.#costs.push({ gas: json.gas, fees: json.fees })
    this.#lines.push(line)
    this.#requests.push(request)
  }

  time(index: number): number {
    return this.#at(this.#quotes, index).receivedAt
  }

  requestedAt(index: number): number {
    return this.#at(this.#quotes, index).requestedAt
  }

  request(index: number): ReplayRequest {
    return this.#at(this.#requests, index)
  }

  srcAmount(index: number): bigint {
    return this.#at(this.#quotes, index).srcAmount
  }

  destAmount(index: number): bigint {
    return this.#at(this.#quotes, index).destAmount
  }

  srcAmountNumber(index: number): number {
    return Number(this.srcAmount(index))
  }

  destAmountNumber(index: number): number {
    return Number(this.destAmount(index))
  }

  costs(index: number): ReplayCosts {
    // The line was validated whole; this reads its cost fields into the replay's shape.
    return toReplayCosts(recordedCostsSchema.parse(this.#at(this.#costs, index)))
  }

  answer(index: number): Quote['answer'] {
    return this.#at(this.#quotes, index).answer
  }

  quote(index: number): Quote {
    return this.#at(this.#quotes, index)
  }

  where(index: number): string {
    return `${this.#file}:${this.#at(this.#lines, index)}`
  }

  #at<T>(items: readonly T[], index: number): T {
    const item = items[index]
    if (item === undefined) throw new RangeError(`quote index ${index} is outside the block (0 to ${items.length - 1})`)
    return item
  }
}

function parseJson(text: string, file: string, line: number): unknown {
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new RecordedQuotesError(file, line, [`expected one JSON object on the line (${(error as Error).message})`])
  }
}
