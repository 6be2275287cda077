import { readFileSync, truncateSync, writeFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { filter, firstValueFrom, tap } from 'rxjs'
import { parseUnits } from 'viem'
import { afterAll, describe, expect, it } from 'vitest'
import { createApiClient } from '../../src/api/client.js'
import { fetchQuote } from '../../src/feed/fetch-quote.js'
import { type Quote, type QuoteRequest, quoteRequestKey } from '../../src/feed/quote.js'
import { createQuoteFeed } from '../../src/feed/quote-feed.js'
import { createQuoteRecorder, QuoteRecorderError, recordQuoteEvents } from '../../src/feed/quote-recorder.js'
import { readRecordedQuotes } from '../../src/feed/read-recorded-quotes.js'
import { type RecordedQuote, RecordedQuotesError } from '../../src/feed/recorded-quote.js'
import { decimalsFromTokenList } from '../../src/feed/token-decimals.js'
import type { Clock } from '../../src/time/clock.js'
import { sandboxToken, useSandbox } from '../helpers/sandbox.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

/** A clock that ticks one ms per reading, so every stamp is distinct. */
function steppingClock(start = 1_700_000_000_000): Clock {
  let now = start
  return { now: () => now++ }
}

async function readAll(file: string): Promise<RecordedQuote[]> {
  const read: RecordedQuote[] = []
  for await (const recorded of readRecordedQuotes(file)) read.push(recorded)
  return read
}

async function readError(file: string): Promise<RecordedQuotesError> {
  const error = await readAll(file).then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  expect(error).toBeInstanceOf(RecordedQuotesError)
  return error as RecordedQuotesError
}

const lines = (file: string) => readFileSync(file, 'utf8').trimEnd().split('\n')

describe('quote recordings', () => {
  const sandbox = useSandbox({ chainIds: [1, 8453] })
  const temp = createTempDirectory('deltaflow-quotes-')
  afterAll(() => temp.cleanup())
  const decimalsOf = () => decimalsFromTokenList(sandbox().tokens)
  const api = () => createApiClient({ baseUrl: sandbox().url, retry: false, rateLimit: false })
  const token = (chainId: number, symbol: string) => sandboxToken(sandbox(), chainId, symbol).address

  const requests = (): QuoteRequest[] => {
    const usdc = token(1, 'USDC')
    const weth = token(1, 'WETH')
    return [
      { source: 'delta', chainId: 1, srcToken: usdc, destToken: weth, amount: parseUnits('2500', 6), side: 'SELL' },
      { source: 'delta', chainId: 1, srcToken: usdc, destToken: weth, amount: parseUnits('1', 18), side: 'BUY' },
      { source: 'market', chainId: 1, srcToken: weth, destToken: usdc, amount: parseUnits('2', 18), side: 'SELL' },
      { source: 'market', chainId: 1, srcToken: weth, destToken: usdc, amount: parseUnits('1000', 6), side: 'BUY' },
      { source: 'unified', chainId: 1, srcToken: usdc, destToken: weth, amount: parseUnits('500', 6), side: 'SELL' },
      {
        source: 'delta',
        chainId: 1,
        destChainId: 8453,
        srcToken: usdc,
        destToken: token(8453, 'USDC'),
        amount: parseUnits('1000', 6),
        side: 'SELL',
      },
    ]
  }

  let cached: Promise<Quote[]> | undefined
  /** One real quote of every kind (Delta same-chain both sides, Market both sides, unified, Delta crosschain). */
  const realQuotes = () => {
    const clock = steppingClock()
    cached ??= Promise.all(requests().map((request) => fetchQuote(api(), { request, decimalsOf: decimalsOf(), clock })))
    return cached
  }

  const record = async (file: string, quotes: readonly Quote[]) => {
    const recorder = await createQuoteRecorder({ file, decimalsOf: decimalsOf(), clock: steppingClock(42), meta: { api: 'sandbox' } })
    for (const quote of quotes) expect(recorder.write(quote)).toBe(true)
    await recorder.close()
    expect(recorder.written).toBe(quotes.length)
  }

  it('reads back every quote it wrote, equal, with the header and the tokens’ decimals', async () => {
    const quotes = await realQuotes()
    const file = temp.path('round-trip.jsonl')
    await record(file, quotes)

    const recording = readRecordedQuotes(file)
    expect(await recording.header()).toEqual({ format: 'deltaflow-quotes', version: 1, startedAt: 42, meta: { api: 'sandbox' } })
    const read = await readAll(file)
    expect(read.map(({ quote }) => quote)).toEqual(quotes)
    expect(read.map(({ srcDecimals, destDecimals }) => [srcDecimals, destDecimals])).toEqual([
      [6, 18],
      [6, 18],
      [18, 6],
      [18, 6],
      [6, 18],
      [6, 6],
    ])
    // A recording can be read more than once.
    expect(await readAll(file)).toEqual(read)
  })

  it('writes the documented flat fields: amounts as decimal strings, gas, fees and crosschain destChainId', async () => {
    const quotes = await realQuotes()
    const file = temp.path('fields.jsonl')
    await record(file, quotes)
    const [, deltaSell, , marketSell, , , crosschain] = lines(file).map((line) => JSON.parse(line))
    const [deltaQuote, , marketQuote] = quotes
    if (deltaQuote?.answer.source !== 'delta' || marketQuote?.answer.source !== 'market') throw new Error('unexpected answers')

    expect(deltaSell).toMatchObject({
      time: deltaQuote.receivedAt,
      requestedAt: deltaQuote.requestedAt,
      key: deltaQuote.key,
      source: 'delta',
      chainId: 1,
      side: 'SELL',
      amount: '2500000000',
      srcAmount: '2500000000',
      destAmount: deltaQuote.destAmount.toString(),
      srcDecimals: 6,
      destDecimals: 18,
      gas: { usd: deltaQuote.answer.price.route.fees.gas.amountUSD, wei: deltaQuote.answer.price.route.fees.gas.amount.toString() },
      fees: { partnerPercent: deltaQuote.answer.price.partner.feePercent },
    })
    expect(deltaSell).not.toHaveProperty('destChainId')
    expect(marketSell).toMatchObject({
      source: 'market',
      srcAmount: '2000000000000000000',
      gas: { usd: marketQuote.answer.route.gasCostUSD, units: marketQuote.answer.route.gasCost.toString() },
      fees: { partnerPercent: marketQuote.answer.route.partnerFee },
      answer: { source: 'market', route: { hmac: marketQuote.answer.route.hmac } },
    })
    expect(crosschain).toMatchObject({ chainId: 1, destChainId: 8453, srcDecimals: 6, destDecimals: 6 })
    expect(crosschain.fees.bridge.length).toBeGreaterThan(0)
    expect(crosschain.fees.bridge[0]).toMatchObject({ chainId: 8453, amount: expect.stringMatching(/^\d+$/) })
  })

  it('round-trips a gzip recording, compressed on disk, when the name ends in .gz', async () => {
    const quotes = await realQuotes()
    const file = temp.path('round-trip.jsonl.gz')
    await record(file, quotes)
    const bytes = readFileSync(file)
    expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b])
    expect(JSON.parse(gunzipSync(bytes).toString('utf8').split('\n')[0] ?? '')).toMatchObject({ format: 'deltaflow-quotes', version: 1 })
    expect((await readAll(file)).map(({ quote }) => quote)).toEqual(quotes)
  })

  it('names the file, the line and what was expected when an amount is not a decimal integer', async () => {
    const file = temp.path('bad-amount.jsonl')
    await record(file, await realQuotes())
    const edited = lines(file)
    edited[2] = edited[2]?.replace(/"destAmount":"\d+"/, '"destAmount":"12.5"') ?? ''
    writeFileSync(file, `${edited.join('\n')}\n`)

    const error = await readError(file)
    expect(error.shortMessage).toBe(`${file}:3: destAmount: expected a decimal integer string, received "12.5"`)
    expect(error.details).toMatchObject({ file, line: 3 })
  })

  it('names the line whose amounts disagree with the answer recorded on it', async () => {
    const file = temp.path('edited-amount.jsonl')
    await record(file, await realQuotes())
    const edited = lines(file)
    const line = JSON.parse(edited[1] ?? '')
    line.destAmount = '1'
    edited[1] = JSON.stringify(line)
    writeFileSync(file, `${edited.join('\n')}\n`)

    const error = await readError(file)
    expect(error.shortMessage).toMatch(
      new RegExp(`^${file}:2: destAmount: expected "\\d+" \\(the destination amount of the answer\\), received "1"$`),
    )
  })

  it('names the line cut short by a crash, and reads the lines before it', async () => {
    const file = temp.path('cut.jsonl')
    await record(file, await realQuotes())
    truncateSync(file, readFileSync(file).length - 40)

    const read: RecordedQuote[] = []
    const error = await (async () => {
      for await (const recorded of readRecordedQuotes(file)) read.push(recorded)
    })().catch((thrown: unknown) => thrown)
    expect(error).toBeInstanceOf(RecordedQuotesError)
    expect((error as RecordedQuotesError).shortMessage).toMatch(new RegExp(`^${file}:7: expected one JSON object on the line`))
    expect(read).toHaveLength(5)
  })

  it('says the gzip stream ends early when a .gz recording was cut short', async () => {
    const file = temp.path('cut.jsonl.gz')
    await record(file, await realQuotes())
    truncateSync(file, readFileSync(file).length - 8)
    expect((await readError(file)).shortMessage).toContain('the gzip stream ends early')
  })

  it('refuses a recording of another version, a file without a header and a missing file', async () => {
    const newer = temp.path('newer.jsonl')
    writeFileSync(newer, `${JSON.stringify({ format: 'deltaflow-quotes', version: 2, startedAt: 0 })}\n`)
    expect((await readError(newer)).shortMessage).toBe(`${newer}:1: version: expected 1 (the version this deltaflow reads), received 2`)
    await expect(readRecordedQuotes(newer).header()).rejects.toThrow(`${newer}:1: version`)

    const headless = temp.path('headless.jsonl')
    const quoteLine = lines(temp.path('round-trip.jsonl'))[1] ?? ''
    writeFileSync(headless, `${quoteLine}\n`)
    expect((await readError(headless)).shortMessage).toMatch(new RegExp(`^${headless}:1: format: expected "deltaflow-quotes"`))

    const empty = temp.path('empty.jsonl')
    writeFileSync(empty, '')
    expect((await readError(empty)).shortMessage).toMatch(new RegExp(`^${empty}: the file is empty`))

    const missing = temp.path('missing.jsonl')
    expect((await readError(missing)).shortMessage).toBe(`${missing}: no such file`)
  })

  it('refuses to replace an existing recording unless asked to', async () => {
    const file = temp.path('existing.jsonl')
    writeFileSync(file, 'precious\n')
    await expect(createQuoteRecorder({ file, decimalsOf: decimalsOf(), clock: steppingClock() })).rejects.toBeInstanceOf(QuoteRecorderError)
    expect(readFileSync(file, 'utf8')).toBe('precious\n')
    const recorder = await createQuoteRecorder({ file, decimalsOf: decimalsOf(), clock: steppingClock(7), overwrite: true })
    await recorder.close()
    expect(await readRecordedQuotes(file).header()).toEqual({ format: 'deltaflow-quotes', version: 1, startedAt: 7 })
    expect(() => recorder.write({} as Quote)).toThrow(QuoteRecorderError)
  })

  it('records what a live feed polls from the sandbox, in order, every request several times', async () => {
    const file = temp.path('live.jsonl.gz')
    const recorder = await createQuoteRecorder({ file, decimalsOf: decimalsOf(), clock: steppingClock() })
    const feedRequests = requests().slice(0, 3)
    const feed = createQuoteFeed({ api: api(), requests: feedRequests, decimalsOf: decimalsOf(), intervalMs: 100, clock: steppingClock() })
    const seen: Quote[] = []
    const recording = recordQuoteEvents(feed.events.pipe(tap((event) => event.type === 'quote' && seen.push(event.quote))), recorder)
    // Until every request was polled three times.
    const counts = new Map<string, number>()
    await firstValueFrom(
      feed.events.pipe(
        filter((event) => event.type === 'quote'),
        filter((event) => {
          counts.set(event.key, (counts.get(event.key) ?? 0) + 1)
          return counts.size === feedRequests.length && [...counts.values()].every((count) => count >= 3)
        }),
      ),
    )
    recording.unsubscribe()
    await recorder.close()

    const read = (await readAll(file)).map(({ quote }) => quote)
    expect(read.length).toBe(recorder.written)
    expect(read).toEqual(seen)
    for (const request of feedRequests) {
      const times = read.filter((quote) => quote.key === quoteRequestKey(request)).map((quote) => quote.receivedAt)
      expect(times.length).toBeGreaterThanOrEqual(3)
      expect(times).toEqual([...times].sort((a, b) => a - b))
    }
    expect(new Set(read.map((quote) => quote.answer.source))).toEqual(new Set(['delta', 'market']))
  })
})
