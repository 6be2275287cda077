import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { gunzipSync } from 'node:zlib'
import BetterSqlite3 from 'better-sqlite3'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deltaPriceSchema } from '../../src/api/delta/delta-price-schema.js'
import { marketPriceRouteSchema } from '../../src/api/market/price-route-schema.js'
import { openQuoteReplay } from '../../src/backtest/quote-blocks.js'
import { createQuoteStore, packRecordedQuotes } from '../../src/backtest/quote-store.js'
import { QuoteStoreError } from '../../src/backtest/quote-store-layout.js'
import { openQuoteStore } from '../../src/backtest/quote-store-read.js'
import type { QuoteBlock, QuoteReplaySource } from '../../src/backtest/replay-source.js'
import { readRecordedQuotes } from '../../src/feed/read-recorded-quotes.js'
import {
  deltaPriceJson,
  type RecordedQuote,
  type RecordedQuoteJson,
  RecordedQuotesError,
  type RecordedQuotesHeader,
  toRecordedQuoteJson,
} from '../../src/feed/recorded-quote.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

const sample = fileURLToPath(new URL('../fixtures/quotes/ethusdt-sample.jsonl.gz', import.meta.url))
const sampleLines = gunzipSync(readFileSync(sample)).toString('utf8').trimEnd().split('\n')
const sampleHeader = JSON.parse(sampleLines[0] as string) as RecordedQuotesHeader
const directory = createTempDirectory('deltaflow-quote-store-')
afterAll(() => directory.cleanup())

/** Everything a block says of one quote, comparable with toEqual. */
function snapshot(block: QuoteBlock, index: number) {
  const request = block.request(index)
  return {
    time: block.time(index),
    requestedAt: block.requestedAt(index),
    key: request.key,
    request: request.request,
    srcDecimals: request.srcDecimals,
    destDecimals: request.destDecimals,
    srcAmount: block.srcAmount(index),
    destAmount: block.destAmount(index),
    costs: block.costs(index),
  }
}

async function readAll(source: QuoteReplaySource, range?: { from?: number; to?: number }) {
  const quotes: (ReturnType<typeof snapshot> & { where: string })[] = []
  for await (const block of source.blocks(range)) {
    for (let index = 0; index < block.length; index++) quotes.push({ ...snapshot(block, index), where: block.where(index) })
  }
  return quotes
}

async function recordedQuotes(file: string): Promise<RecordedQuote[]> {
  const quotes: RecordedQuote[] = []
  for await (const quote of readRecordedQuotes(file)) quotes.push(quote)
  return quotes
}

function quoteLine(overrides: Partial<RecordedQuoteJson> = {}, index = 1): RecordedQuoteJson {
  return { ...(JSON.parse(sampleLines[index] as string) as RecordedQuoteJson), ...overrides }
}

function writeJsonl(name: string, lines: readonly unknown[]): string {
  const file = directory.path(name)
  writeFileSync(file, lines.map((line) => `${typeof line === 'string' ? line : JSON.stringify(line)}\n`).join(''))
  return file
}

describe('packRecordedQuotes', () => {
  const store = directory.path('sample.sqlite')
  let packed: Awaited<ReturnType<typeof packRecordedQuotes>>
  let recorded: RecordedQuote[]
  beforeAll(async () => {
    packed = await packRecordedQuotes({ input: sample, output: store, blockSize: 100 })
    recorded = await recordedQuotes(sample)
  })

  it('packs every quote of the sample recording into blocks', () => {
    expect(packed).toEqual({
      output: store,
      quotes: 2304,
      blocks: 24,
      firstTime: recorded[0]?.quote.receivedAt,
      lastTime: recorded.at(-1)?.quote.receivedAt,
    })
  })

  it('reads back the same quotes as the JSONL reader: amounts to the wei, requests, costs and answers', async () => {
    const source = await openQuoteReplay(store)
    const jsonl = await openQuoteReplay(sample)
    expect(source.header).toEqual(sampleHeader)
    const fromStore = await readAll(source)
    const fromJsonl = await readAll(jsonl)
    expect(fromStore).toHaveLength(2304)
    expect(fromStore.map(({ where: _, ...quote }) => quote)).toEqual(fromJsonl.map(({ where: _, ...quote }) => quote))
    let index = 0
    for await (const block of source.blocks()) {
      for (let inBlock = 0; inBlock < block.length; inBlock++) {
        const { quote, srcDecimals, destDecimals } = recorded[index] as RecordedQuote
        const replayed = block.quote(inBlock)
        expect({ ...replayed, answer: replayed.answer }).toEqual(quote)
        expect(block.answer(inBlock)).toEqual(quote.answer)
        expect([block.request(inBlock).srcDecimals, block.request(inBlock).destDecimals]).toEqual([srcDecimals, destDecimals])
        expect(block.where(inBlock)).toBe(`${store}#${index + 1}`)
        index++
      }
    }
    expect(index).toBe(2304)
  })

  it('gives one request object per key, ids dense from 0 in order of appearance', async () => {
    const source = await openQuoteReplay(store)
    const seen: number[] = []
    const byKey = new Map<string, unknown>()
    for await (const block of source.blocks()) {
      for (let index = 0; index < block.length; index++) {
        const request = block.request(index)
        if (!byKey.has(request.key)) {
          byKey.set(request.key, request)
          seen.push(request.id)
        }
        expect(block.request(index)).toBe(byKey.get(request.key))
      }
    }
    expect(seen).toEqual([...Array(12).keys()])
  })

  it('without answers, synthesizes ones that parse with the real schemas and carry the flat fields', async () => {
    const output = directory.path('sample-no-answers.sqlite')
    await packRecordedQuotes({ input: sample, output, keepAnswers: false, blockSize: 500 })
    const db = new BetterSqlite3(output, { readonly: true })
    expect(db.prepare('SELECT count(*) FROM blocks WHERE answers IS NOT NULL').pluck().get()).toBe(0)
    db.close()
    const source = await openQuoteReplay(output)
    let index = 0
    for await (const block of source.blocks()) {
      for (let inBlock = 0; inBlock < block.length; inBlock++) {
        const original = quoteLine({}, index + 1)
        const { answer } = block.quote(inBlock)
        expect(answer.source).toBe(original.answer.source)
        if (answer.source === 'market') expect(marketPriceRouteSchema.parse(answer.route.raw)).toEqual(answer.route)
        else expect(deltaPriceSchema.parse(deltaPriceJson(answer.price))).toEqual(answer.price)
        const request = block.request(inBlock)
        const line = toRecordedQuoteJson(block.quote(inBlock), (chainId, token) =>
          chainId === request.request.chainId && token === request.request.srcToken ? request.srcDecimals : request.destDecimals,
        )
        const { answer: _, ...flat } = line
        const { answer: __, ...originalFlat } = original
        expect(flat).toEqual(originalFlat)
        index++
      }
    }
    expect(index).toBe(2304)
  })

  it('refuses a quote earlier than the one before, naming file:line, and leaves no output', async () => {
    const lines = [sampleLines[0], quoteLine({}, 1), quoteLine({}, 2), quoteLine({ time: 1_772_452_799_999 }, 3), quoteLine({}, 4)]
    const input = writeJsonl('backwards.jsonl', lines)
    const output = directory.path('backwards.sqlite')
    const packing = packRecordedQuotes({ input, output })
    await expect(packing).rejects.toThrow(RecordedQuotesError)
    await expect(packing).rejects.toThrow(`${input}:4: time: expected 1772452800000 or later (the time of line 3`)
    expect(existsSync(output)).toBe(false)
  })

  it('refuses a bad line with its file:line', async () => {
    const input = writeJsonl('bad-amount.jsonl', [sampleLines[0], quoteLine({}, 1), quoteLine({ destAmount: '12.5' }, 2)])
    await expect(packRecordedQuotes({ input, output: directory.path('bad-amount.sqlite') })).rejects.toThrow(
      `${input}:3: destAmount: expected a decimal integer string, received "12.5"`,
    )
  })

  it('refuses an existing output unless told to overwrite it', async () => {
    const before = statSync(store).mtimeMs
    const again = packRecordedQuotes({ input: sample, output: store })
    await expect(again).rejects.toThrow(QuoteStoreError)
    await expect(again).rejects.toThrow(`${store}: the file exists already`)
    expect(statSync(store).mtimeMs).toBe(before)
    const output = directory.path('overwritten.sqlite')
    writeFileSync(output, 'not a store')
    await expect(packRecordedQuotes({ input: sample, output, overwrite: true })).resolves.toMatchObject({ quotes: 2304, blocks: 1 })
    expect((await openQuoteStore(output)).quotes).toBe(2304)
  })
})

describe('createQuoteStore', () => {
  const header: RecordedQuotesHeader = { format: 'deltaflow-quotes', version: 1, startedAt: 1_700_000_000_000 }

  it('keeps any amount below 2^256 exactly, and reads it as the float Number() makes of it', async () => {
    const edges = [
      0n,
      1n,
      2n ** 32n - 1n,
      2n ** 32n,
      2n ** 53n + 1n,
      2n ** 63n + 2n ** 11n - 1n,
      2n ** 64n - 1n,
      2n ** 64n,
      2n ** 128n - 1n,
      2n ** 128n,
      2n ** 255n + 7n,
      2n ** 256n - 1n,
    ]
    let run = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.tuple(
            fc.oneof(fc.constantFrom(...edges), fc.bigInt({ min: 0n, max: 2n ** 256n - 1n })),
            fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }),
          ),
          {
            minLength: 1,
            maxLength: 40,
          },
        ),
        async (amounts) => {
          const file = directory.path(`amounts-${run++}.sqlite`)
          const store = createQuoteStore({ file, header, keepAnswers: false, blockSize: 7 })
          for (const [srcAmount, destAmount] of amounts)
            store.write(quoteLine({ srcAmount: srcAmount.toString(), destAmount: destAmount.toString() }))
          await store.close()
          const source = await openQuoteStore(file)
          const read = (await readAll(source)).map((quote) => [quote.srcAmount, quote.destAmount])
          const floats: [number, number][] = []
          for await (const block of source.blocks())
            for (let index = 0; index < block.length; index++) floats.push([block.srcAmountNumber(index), block.destAmountNumber(index)])
          source.close()
          expect(read).toEqual(amounts)
          expect(floats).toEqual(amounts.map(([src, dest]) => [Number(src), Number(dest)]))
        },
      ),
      {
        numRuns: 25,
        examples: [[edges.map((edge) => [edge, edges[edges.length - 1 - edges.indexOf(edge)] as bigint] as [bigint, bigint])]],
      },
    )
  })

  it('takes parsed quotes as well as lines', async () => {
    const file = directory.path('parsed.sqlite')
    const store = createQuoteStore({ file, header: sampleHeader, blockSize: 1000 })
    const recorded = await recordedQuotes(sample)
    for (const quote of recorded) store.write(quote)
    expect(await store.close()).toEqual({ quotes: 2304, blocks: 3 })
    const fromParsed = await readAll(await openQuoteReplay(file))
    const fromLines = await readAll(await openQuoteReplay(directory.path('sample.sqlite')))
    expect(fromParsed.map(({ where: _, ...quote }) => quote)).toEqual(fromLines.map(({ where: _, ...quote }) => quote))
  })

  it('refuses a quote earlier than the one before, naming it', async () => {
    const file = directory.path('direct-backwards.sqlite')
    const store = createQuoteStore({ file, header })
    store.write(quoteLine({ time: 10 }))
    store.write(quoteLine({ time: 20 }))
    expect(() => store.write(quoteLine({ time: 19 }))).toThrow(
      `${file}#3: time: expected 20 or later (the time of the quote before, ${file}#2), received 19`,
    )
    expect(() => store.write(quoteLine({ time: 21 }), 'feed.jsonl:9')).not.toThrow()
    await store.abort()
    expect(existsSync(file)).toBe(false)
  })

  it('refuses bad amounts, requests and an existing file with what was expected', async () => {
    const file = directory.path('direct-bad.sqlite')
    const store = createQuoteStore({ file, header })
    expect(() => store.write(quoteLine({ srcAmount: '1e18' }))).toThrow(
      `${file}#1: srcAmount: expected a decimal integer string below 2^256, received "1e18"`,
    )
    expect(() => store.write(quoteLine({ destAmount: (2n ** 256n).toString() }))).toThrow(
      'destAmount: expected a decimal integer string below 2^256',
    )
    expect(() => store.write(quoteLine({ key: 'market:1:1:0xabc' }))).toThrow(
      'key: expected "market:1:1:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
    )
    store.write(quoteLine())
    expect(() => store.write(quoteLine({ destDecimals: 6 }))).toThrow('srcDecimals/destDecimals: expected 6/18')
    expect(await store.close()).toEqual({ quotes: 1, blocks: 1 })
    expect(() => createQuoteStore({ file, header })).toThrow(`${file}: the file exists already`)
  })
})

describe('openQuoteReplay on a quote store', () => {
  const store = directory.path('ranges.sqlite')
  let times: number[]
  beforeAll(async () => {
    await packRecordedQuotes({ input: sample, output: store, blockSize: 100 })
    times = (await recordedQuotes(sample)).map(({ quote }) => quote.receivedAt)
  })

  it('gives the quotes with from <= time < to, in both formats, across block edges', async () => {
    const source = await openQuoteReplay(store)
    const jsonl = await openQuoteReplay(sample)
    const all = await readAll(source)
    const t = (index: number) => times[index] as number
    const ranges = [
      {},
      { from: t(0) },
      { to: t(0) },
      { from: t(150) },
      { from: t(150), to: t(151) },
      { from: t(199), to: t(205) },
      { from: t(1000) + 1, to: t(1800) },
      { to: t(2303) },
      { from: t(2303) + 1 },
      { from: t(900), to: t(900) },
    ]
    for (const range of ranges) {
      const expected = all.filter(
        ({ time }) => (range.from === undefined || time >= range.from) && (range.to === undefined || time < range.to),
      )
      expect(await readAll(source, range), JSON.stringify(range)).toEqual(expected)
      const fromJsonl = await readAll(jsonl, range)
      expect(fromJsonl.map(({ where: _, ...quote }) => quote)).toEqual(expected.map(({ where: _, ...quote }) => quote))
    }
  })

  it('keeps the blocks it read, within its budget, for the next replays: they are not read from the file again', async () => {
    const file = directory.path('kept.sqlite')
    await packRecordedQuotes({ input: sample, output: file, blockSize: 100 })
    const db = new BetterSqlite3(file)
    const tenBlocks = db.prepare('SELECT sum(length(data)) FROM blocks WHERE seq < 10').pluck().get() as number
    const source = await openQuoteStore(file, { keptBlocksBytes: tenBlocks })
    const all = await readAll(source)
    expect(all).toHaveLength(2304)
    // Every block of the file spoilt: the ten kept ones replay as before, the eleventh is read and refused.
    db.prepare('UPDATE blocks SET data = zeroblob(length(data))').run()
    db.close()
    const inKept = times[950] as number
    expect(await readAll(source, { to: inKept })).toEqual(all.filter(({ time }) => time < inKept))
    expect(await readAll(source, { from: times[150] as number, to: times[420] as number })).toEqual(
      all.filter(({ time }) => time >= (times[150] as number) && time < (times[420] as number)),
    )
    await expect(readAll(source)).rejects.toThrow(`${file}#1001: block 10 (quotes 1001 to 1100) is corrupt`)
    // A store opened anew reads the file.
    await expect(readAll(await openQuoteStore(file))).rejects.toThrow(`${file}#1: block 0 (quotes 1 to 100) is corrupt`)
  })

  it('keeps blocks readable after the iteration moved on and after close', async () => {
    const source = await openQuoteStore(store)
    const kept: QuoteBlock[] = []
    for await (const block of source.blocks()) kept.push(block)
    source.close()
    const first = kept[0] as QuoteBlock
    const last = kept.at(-1) as QuoteBlock
    expect(first.time(0)).toBe(times[0])
    expect(last.answer(last.length - 1).source).toBe('delta')
    expect(first.answer(3)).toEqual((await recordedQuotes(sample))[3]?.quote.answer)
  })

  it('refuses a store of an unknown version', async () => {
    const file = directory.path('version-2.sqlite')
    await packRecordedQuotes({ input: sample, output: file })
    const db = new BetterSqlite3(file)
    db.prepare('UPDATE meta SET store_version = 2').run()
    db.close()
    await expect(openQuoteReplay(file)).rejects.toThrow(`${file}: store_version: expected 1 (the version this deltaflow reads), received 2`)
  })

  it('refuses a file that is not a quote store', async () => {
    const notSqlite = writeJsonl('not-a-store.sqlite', [sampleLines[0]])
    await expect(openQuoteReplay(notSqlite)).rejects.toThrow(
      `${notSqlite}: expected a quote store of format "deltaflow-quote-store", found not a SQLite file`,
    )
    const otherDb = directory.path('other.sqlite')
    new BetterSqlite3(otherDb).exec('CREATE TABLE things (id INTEGER)').close()
    await expect(openQuoteReplay(otherDb)).rejects.toThrow('found not a quote store (its tables are missing or different)')
    await expect(openQuoteReplay(directory.path('missing.sqlite'))).rejects.toThrow('missing.sqlite: no such file')
  })

  it('refuses a truncated block, naming the block and its quotes', async () => {
    const file = directory.path('truncated.sqlite')
    await packRecordedQuotes({ input: sample, output: file, blockSize: 100 })
    const db = new BetterSqlite3(file)
    db.prepare('UPDATE blocks SET data = substr(data, 1, 1000) WHERE seq = 2').run()
    db.close()
    const source = await openQuoteReplay(file)
    let read = 0
    const iterate = async () => {
      for await (const block of source.blocks()) read += block.length
    }
    await expect(iterate()).rejects.toThrow(`${file}#201: block 2 (quotes 201 to 300) is corrupt: 1000 bytes, expected`)
    expect(read).toBe(200)
  })

  it('refuses a block whose bytes changed', async () => {
    const file = directory.path('flipped.sqlite')
    await packRecordedQuotes({ input: sample, output: file, blockSize: 100 })
    const db = new BetterSqlite3(file)
    const data = db.prepare('SELECT data FROM blocks WHERE seq = 0').pluck().get() as Buffer
    data[500] = (data[500] as number) ^ 0x10
    db.prepare('UPDATE blocks SET data = ? WHERE seq = 0').run(data)
    db.close()
    const source = await openQuoteReplay(file)
    await expect(readAll(source)).rejects.toThrow('block 0 (quotes 1 to 100) is corrupt: its checksum does not match its bytes')
  })

  it('refuses answers that do not inflate, when one is asked for', async () => {
    const file = directory.path('bad-answers.sqlite')
    await packRecordedQuotes({ input: sample, output: file, blockSize: 100 })
    const db = new BetterSqlite3(file)
    db.prepare("UPDATE blocks SET answers = x'00112233' WHERE seq = 1").run()
    db.close()
    const source = await openQuoteReplay(file)
    const blocks: QuoteBlock[] = []
    for await (const block of source.blocks()) blocks.push(block)
    const second = blocks[1] as QuoteBlock
    expect(second.srcAmount(0)).toBeTypeOf('bigint')
    expect(() => second.answer(0)).toThrow(/#101: block 1 \(quotes 101 to 200\) is corrupt: its answers do not inflate/)
    expect(blocks[0]?.answer(0).source).toBe('market')
  })
})
