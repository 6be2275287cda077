import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { access } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { gunzipSync, gzipSync } from 'node:zlib'
import { Command } from 'commander'
import type { Address } from 'viem'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { isCrosschainRoute } from '../../src/api/delta/delta-price-schema.js'
import { type Candle, CandleCsvError, candlePriceScale, parseCandleDecimal, readCandleCsv } from '../../src/backtest/candle-csv.js'
import {
  type CandleBridge,
  type CandlePair,
  type CandleQuoteModel,
  CandleQuoteModelError,
  candlePricePoints,
  candleQuoteModelSchema,
  candleQuoteRequest,
  defaultCandleQuoteModel,
  modelBridgeAmounts,
  modelQuoteAmounts,
  type QuoteSize,
} from '../../src/backtest/candle-quote-model.js'
import { type CandleQuoteSetOptions, QuoteSetFileError, writeQuotesFromCandles } from '../../src/backtest/quotes-from-candles.js'
import { registerQuotesCommand } from '../../src/cli/quotes.js'
import { priceImpactPercent } from '../../src/exec/executor/price-impact.js'
import type { Quote } from '../../src/feed/quote.js'
import { readRecordedQuotes } from '../../src/feed/read-recorded-quotes.js'
import { toRecordedQuoteJson } from '../../src/feed/recorded-quote.js'
import { decimalsFromTokenList } from '../../src/feed/token-decimals.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

const data = '/work/shared/data'
const eth5m = `${data}/ethusdt-5m-binance.csv`
const eth15m = `${data}/ethusdt-15m-binance.csv`
const btc1m = `${data}/btcusdt-1m-binanceus-2023-03.csv`
const sample = fileURLToPath(new URL('../fixtures/quotes/ethusdt-sample.jsonl.gz', import.meta.url))
const strategiesSet = fileURLToPath(new URL('../fixtures/quotes/ethusdt-strategies.jsonl.gz', import.meta.url))

const weth = { symbol: 'WETH', address: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2' as Address, decimals: 18 }
const usdc = { symbol: 'USDC', address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' as Address, decimals: 6 }
const wbtc = { symbol: 'WBTC', address: '0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599' as Address, decimals: 8 }
const usdcBase = { symbol: 'USDC', address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' as Address, decimals: 6 }
const wethUsdc: CandlePair = { chainId: 1, base: weth, quote: usdc }
const decimalsOf = decimalsFromTokenList([...[weth, usdc, wbtc].map((token) => ({ chainId: 1, ...token })), { chainId: 8453, ...usdcBase }])

const directory = createTempDirectory('deltaflow-candle-quotes-')
afterAll(() => directory.cleanup())
let files = 0
function csvFile(text: string): string {
  const file = directory.path(`candles-${files++}.csv`)
  writeFileSync(file, text)
  return file
}
async function readAll(file: string): Promise<Candle[]> {
  const candles: Candle[] = []
  for await (const candle of readCandleCsv(file)) candles.push(candle)
  return candles
}
const price = (text: string) => parseCandleDecimal(text) ?? -1n

describe('readCandleCsv', () => {
  it('reads the Binance layout with unix-ms open_time and close_time (ETH 5m)', async () => {
    const candles = await readAll(eth5m)
    expect(candles).toHaveLength(2862)
    expect(candles[0]).toEqual({
      line: 2,
      openTime: 1771800900000,
      closeTime: 1771801199999,
      open: 1960_430000000000000000n,
      high: 1960_800000000000000000n,
      low: 1957_970000000000000000n,
      close: 1958_540000000000000000n,
      volume: 369_827200000000000000n,
    })
    // Later rows write 8 decimals ("2128.27000000").
    expect(candles.at(-1)).toMatchObject({ line: 2863, openTime: 1772695200000, close: 2128_270000000000000000n })
  })

  it('reads the layout with ISO open_time and no close_time (BTC 1m)', async () => {
    const candles = await readAll(btc1m)
    expect(candles).toHaveLength(30240)
    expect(candles[0]).toMatchObject({ openTime: Date.UTC(2023, 2, 1), closeTime: undefined, open: 23140_480000000000000000n })
    expect(candles.at(-1)?.openTime).toBe(Date.UTC(2023, 2, 21, 23, 59))
  })

  it('reads exponent volumes and other zones exactly', async () => {
    const file = csvFile('open_time,open,high,low,close,volume\n2023-03-01T05:30:00+05:30,1.5,2,1,1.25,9e-05\n')
    expect(await readAll(file)).toEqual([
      {
        line: 2,
        openTime: Date.UTC(2023, 2, 1),
        closeTime: undefined,
        open: price('1.5'),
        high: 2n * candlePriceScale,
        low: candlePriceScale,
        close: price('1.25'),
        volume: 90_000_000_000_000n,
      },
    ])
  })

  const header = 'open_time,open,high,low,close,volume\n'
  const good = '1771800900000,1960.43,1960.8,1957.97,1958.54,1\n'
  it.each([
    [
      'a row with a missing field',
      `${header}${good}1771801200000,1958.53,1960.15,1956.72,1959.0\n`,
      3,
      'expected 6 fields as in the header, received 5',
    ],
    [
      'a price that is not a decimal',
      `${header}1771800900000,1960.43,abc,1957.97,1958.54,1\n`,
      2,
      'high: expected a positive decimal price',
    ],
    ['a zero price', `${header}1771800900000,0,1960.8,0,1958.54,1\n`, 2, 'open: expected a positive decimal price'],
    ['a low above the open', `${header}1771800900000,1960.43,1960.8,1961,1960.5,1\n`, 2, 'expected low ≤ open, close ≤ high'],
    ['a repeated open_time', `${header}${good}${good}`, 3, 'open_time 2026-02-22T22:55:00.000Z is not after the previous row'],
    [
      'a fractional timestamp',
      `${header}1771800900.5,1960.43,1960.8,1957.97,1958.54,1\n`,
      2,
      'open_time: expected unix seconds, milliseconds',
    ],
    [
      'an ISO time without zone',
      `${header}2023-03-01 00:00:00,1,1,1,1,1\n`,
      2,
      'open_time: expected unix seconds, milliseconds or microseconds, or an ISO time',
    ],
    ['a date that does not exist', `${header}2023-02-30 00:00:00+00:00,1,1,1,1,1\n`, 2, 'open_time: expected'],
    ['a header without close', 'open_time,open,high,low,volume\n', 1, 'the header lacks close'],
    [
      'a row without a header and too few fields',
      '1771800900000,1960.43,1960.8,1957.97\n',
      1,
      'a row without a header needs at least 5 fields',
    ],
    ['an unclosed quote', `${header}1771800900000,"1960.43,1960.8,1957.97,1958.54,1\n`, 2, 'not CSV: Quote Not Closed'],
    ['a negative volume', `${header}1771800900000,1960.43,1960.8,1957.97,1958.54,-1\n`, 2, 'volume: expected a non-negative decimal'],
  ])('names file:line and the problem for %s', async (_name, text, line, problem) => {
    const file = csvFile(text)
    const error = await readAll(file).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(CandleCsvError)
    expect((error as CandleCsvError).shortMessage).toContain(`${file}:${line}: ${problem}`)
  })
})

describe('readCandleCsv without a header, in any unix time unit', () => {
  // The first hour of the ETH 5m file as Binance's own dumps write it: no header, 12 columns, times in microseconds
  // (spot dumps since 2025), in seconds, or in milliseconds.
  const rows = readFileSync(eth5m, 'utf8').trim().split(/\r?\n/).slice(1, 13)
  const retimed = (unit: (ms: bigint, end: boolean) => string) =>
    rows.map((row) => {
      const [openTime = '', open, high, low, close, volume, closeTime = '', ...rest] = row.split(',')
      return [unit(BigInt(openTime), false), open, high, low, close, volume, unit(BigInt(closeTime), true), ...rest].join(',')
    })
  const units = {
    microseconds: (ms: bigint, end: boolean) => String(ms * 1000n + (end ? 999n : 0n)),
    milliseconds: (ms: bigint) => String(ms),
    seconds: (ms: bigint) => String(ms / 1000n),
  }

  it.each(Object.entries(units))('reads a Binance dump with times in %s as the file with a header', async (_unit, unit) => {
    const expected = (await readAll(eth5m)).slice(0, 12).map((candle) => ({ ...candle, line: candle.line - 1 }))
    const candles = await readAll(csvFile(`${retimed(unit).join('\n')}\n`))
    expect(candles).toEqual(expected)
    expect(new Date(candles[0]?.openTime ?? 0).toISOString()).toBe('2026-02-22T22:55:00.000Z')
  })

  it('reads the dump gzipped and with CRLF line ends', async () => {
    const file = directory.path('eth5m-dump.csv.gz')
    writeFileSync(file, gzipSync(`${retimed(units.microseconds).join('\r\n')}\r\n`))
    const candles = await readAll(file)
    expect(candles).toHaveLength(12)
    expect(candles.at(-1)).toMatchObject({ line: 12, openTime: 1771804200000, closeTime: 1771804499999 })
  })

  it('names file:line of a row whose field count differs from the first row', async () => {
    const file = csvFile(`${retimed(units.microseconds).slice(0, 2).join('\n')}\n1771801500000000,1959,1960,1958,1959\n`)
    const error = await readAll(file).catch((caught: unknown) => caught)
    expect((error as CandleCsvError).shortMessage).toBe(`${file}:3: expected 12 fields as in the first row, received 5`)
  })
})

describe('readCandleCsv on gzip files', () => {
  const rows = readFileSync(eth5m, 'utf8')

  it('reads a .csv.gz like the plain file', async () => {
    const file = directory.path('eth5m.csv.gz')
    writeFileSync(file, gzipSync(rows))
    const candles = await readAll(file)
    expect(candles).toHaveLength(2862)
    expect(candles.at(-1)).toEqual((await readAll(eth5m)).at(-1))
  })

  it('names the line after the last one read when a .csv.gz is cut short', async () => {
    const file = directory.path('cut.csv.gz')
    const compressed = gzipSync(rows)
    writeFileSync(file, compressed.subarray(0, compressed.length - 8))
    const read: Candle[] = []
    const error = await (async () => {
      for await (const candle of readCandleCsv(file)) read.push(candle)
    })().catch((caught: unknown) => caught)
    expect(read.length).toBeGreaterThan(2000)
    expect(error).toBeInstanceOf(CandleCsvError)
    expect((error as CandleCsvError).shortMessage).toBe(`${file}:${read.length + 2}: the gzip stream ends early (a download cut short?)`)
  })

  it('says a missing file or a .gz that is not gzip', async () => {
    const missing = directory.path('missing.csv')
    expect(((await readAll(missing).catch((caught: unknown) => caught)) as CandleCsvError).shortMessage).toBe(`${missing}: no such file`)
    const plain = csvFile(rows.slice(0, 200))
    const fake = `${plain}.gz`
    writeFileSync(fake, readFileSync(plain))
    expect(((await readAll(fake).catch((caught: unknown) => caught)) as CandleCsvError).shortMessage).toBe(
      `${fake}: not gzip data, though the name ends in .gz`,
    )
  })

  it('closes the file when the caller stops early', async () => {
    // Larger than the streams' buffers: a file left open would stay so.
    const file = directory.path('early.csv.gz')
    writeFileSync(file, gzipSync(readFileSync(btc1m)))
    const open = () => readdirSync('/proc/self/fd').length
    const before = open()
    for (let round = 0; round < 20; round++) {
      for await (const candle of readCandleCsv(file)) if (candle.line > 10) break
    }
    // Let the destroyed streams release their descriptors.
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(open()).toBeLessThanOrEqual(before + 1)
  })
})

describe('candlePricePoints', () => {
  const candle = (open: string, close: string): Candle => ({
    line: 2,
    openTime: 1_000_000,
    closeTime: undefined,
    open: price(open),
    high: price('110'),
    low: price('90'),
    close: price(close),
    volume: undefined,
  })
  it('visits the low before the high in a rising candle, a quarter interval apart', () => {
    expect(candlePricePoints(candle('100', '105'), 60_000, 'ohlc')).toEqual([
      { time: 1_000_000, price: price('100') },
      { time: 1_015_000, price: price('90') },
      { time: 1_030_000, price: price('110') },
      { time: 1_045_000, price: price('105') },
    ])
  })
  it('visits the high before the low in a falling candle, and only the close with points=close', () => {
    expect(candlePricePoints(candle('100', '95'), 60_000, 'ohlc').map((point) => point.price)).toEqual(
      ['100', '110', '90', '95'].map(price),
    )
    expect(candlePricePoints(candle('100', '95'), 60_000, 'close')).toEqual([{ time: 1_045_000, price: price('95') }])
  })
})

describe('modelQuoteAmounts', () => {
  const at2000 = 2000n * candlePriceScale
  const usdc1000: QuoteSize = { token: 'quote', amount: 1_000_000_000n }
  const weth05: QuoteSize = { token: 'base', amount: 500_000_000_000_000_000n }
  // Expected values computed with exact fractions outside this code: mid 2000, h = 5 bps, i = q / (q + 20,000,000),
  // k = 5 bps on Delta; floor what the trader receives, ceil what the trader pays.
  it.each([
    ['market', usdc1000, 'SELL', 'dest', 499725152415421936n],
    ['market', usdc1000, 'BUY', 'src', 500275150081919712n],
    ['market', weth05, 'SELL', 'dest', 999450002n],
    ['market', weth05, 'BUY', 'src', 1000549998n],
    ['delta', usdc1000, 'SELL', 'dest', 499975139985414643n],
    ['delta', usdc1000, 'BUY', 'src', 500025137513163131n],
    ['delta', weth05, 'SELL', 'dest', 999949727n],
    ['delta', weth05, 'BUY', 'src', 1000049723n],
  ] as const)('prices %s %o %s exactly', (source, size, side, variable, expected) => {
    const request = candleQuoteRequest(wethUsdc, size, side, source)
    const amounts = modelQuoteAmounts(defaultCandleQuoteModel, wethUsdc, request, at2000)
    expect(variable === 'dest' ? amounts.destAmount : amounts.srcAmount).toBe(expected)
    expect(variable === 'dest' ? amounts.srcAmount : amounts.destAmount).toBe(size.amount)
  })

  it('fixes the size token: the source for SELL, the destination for BUY', () => {
    expect(candleQuoteRequest(wethUsdc, usdc1000, 'SELL', 'market')).toMatchObject({ srcToken: usdc.address, destToken: weth.address })
    expect(candleQuoteRequest(wethUsdc, usdc1000, 'BUY', 'market')).toMatchObject({ srcToken: weth.address, destToken: usdc.address })
    expect(candleQuoteRequest(wethUsdc, weth05, 'SELL', 'delta')).toMatchObject({ srcToken: weth.address, destToken: usdc.address })
    expect(candleQuoteRequest(wethUsdc, weth05, 'BUY', 'delta')).toMatchObject({ srcToken: usdc.address, destToken: weth.address })
  })

  it('refuses a trade that half-spread and impact price at or below zero', () => {
    const model = candleQuoteModelSchema.parse({ spreadBps: 10_000, depthUsd: 1 })
    const request = candleQuoteRequest(wethUsdc, weth05, 'SELL', 'market')
    expect(() => modelQuoteAmounts(model, wethUsdc, request, at2000)).toThrow(CandleQuoteModelError)
  })
})

type Ratio = { n: bigint; d: bigint }

/** The model restated from src/backtest/README.md, independently of its implementation. */
function referenceVariableAmount(model: CandleQuoteModel, pair: CandlePair, quote: Quote, mid: bigint): bigint {
  const { request } = quote
  const sellsBase = request.srcToken === pair.base.address
  const fixedIsBase = (request.side === 'SELL') === sellsBase
  const base = 10n ** BigInt(pair.base.decimals)
  const quoteUnit = 10n ** BigInt(pair.quote.decimals)
  // Whole quote tokens of the trade at mid.
  const size: Ratio = fixedIsBase ? { n: request.amount * mid, d: base * candlePriceScale } : { n: request.amount, d: quoteUnit }
  const depth = BigInt(model.depthUsd)
  const impact: Ratio = { n: size.n, d: size.n + depth * size.d }
  const halfSpread: Ratio = { n: BigInt(Math.round(model.spreadBps * 100)), d: 2_000_000n }
  const k: Ratio = { n: request.source === 'delta' ? BigInt(Math.round(model.deltaImprovementBps * 100)) : 0n, d: 1_000_000n }
  const sign = sellsBase ? -1n : 1n
  // 1 ± h ± i, then × (1 ∓ k)
  const adjust: Ratio = {
    n: halfSpread.d * impact.d + sign * halfSpread.n * impact.d + sign * impact.n * halfSpread.d,
    d: halfSpread.d * impact.d,
  }
  const total: Ratio = { n: adjust.n * (k.d - sign * k.n), d: adjust.d * k.d }
  // Trader's price in whole quote per whole base.
  const traderPrice: Ratio = { n: mid * total.n, d: candlePriceScale * total.d }
  const received = request.side === 'SELL'
  if (fixedIsBase) {
    const value: Ratio = { n: request.amount * traderPrice.n * quoteUnit, d: base * traderPrice.d }
    return received ? value.n / value.d : (value.n + value.d - 1n) / value.d
  }
  const value: Ratio = { n: request.amount * traderPrice.d * base, d: quoteUnit * traderPrice.n }
  return received ? value.n / value.d : (value.n + value.d - 1n) / value.d
}

describe('writeQuotesFromCandles', () => {
  const options: CandleQuoteSetOptions = {
    pair: wethUsdc,
    sizes: [
      { token: 'quote', amount: 1_000_000_000n },
      { token: 'quote', amount: 250_000_000_000n },
      { token: 'base', amount: 500_000_000_000_000_000n },
    ],
    sides: ['SELL', 'BUY'],
    sources: ['market', 'delta'],
    model: candleQuoteModelSchema.parse({ spreadBps: 12.5, depthUsd: 5_000_000, deltaImprovementBps: 3.25 }),
    from: Date.parse('2026-03-01T00:00:00Z'),
    to: Date.parse('2026-03-02T00:00:00Z'),
  }

  it('writes a set that reads back, every quote following the model at its candle point', async () => {
    const out = directory.path('eth15m.jsonl.gz')
    const result = await writeQuotesFromCandles({ ...options, candles: eth15m, out })
    expect(result).toMatchObject({ quotes: 96 * 4 * 12, candles: 96, intervalMs: 900_000, firstTime: options.from })
    const recording = readRecordedQuotes(out)
    const header = await recording.header()
    expect(header.startedAt).toBe(options.from)
    expect(header.meta).toMatchObject({
      generator: 'deltaflow quotes from-candles',
      candles: 'ethusdt-15m-binance.csv',
      sizes: '1000 USDC,250000 USDC,0.5 WETH',
      spreadBps: 12.5,
      depthUsd: 5_000_000,
      deltaImprovementBps: 3.25,
      marketGasUsd: '0.30',
    })
    const candles = new Map((await readAll(eth15m)).map((candle) => [candle.openTime, candle]))
    const raw = gunzipSync(readFileSync(out)).toString().trim().split('\n').slice(1)
    const byPoint = new Map<string, Quote>()
    let count = 0
    for await (const { quote, srcDecimals, destDecimals } of recording) {
      const offset = (quote.receivedAt - (options.from ?? 0)) % 900_000
      const candle = candles.get(quote.receivedAt - offset)
      if (!candle) throw new Error(`no candle for ${quote.receivedAt}`)
      const rising = candle.close >= candle.open
      const mid = [candle.open, rising ? candle.low : candle.high, rising ? candle.high : candle.low, candle.close][offset / 225_000]
      if (mid === undefined) throw new Error(`a quote off the quarter points: ${quote.receivedAt}`)
      const variable = quote.request.side === 'SELL' ? quote.destAmount : quote.srcAmount
      expect(variable).toBe(referenceVariableAmount(options.model, wethUsdc, quote, mid))
      expect(quote.request.side === 'SELL' ? quote.srcAmount : quote.destAmount).toBe(quote.request.amount)
      expect([srcDecimals, destDecimals]).toEqual(quote.request.srcToken === weth.address ? [18, 6] : [6, 18])
      // The line is what the recorder would write for the quote read back.
      expect(JSON.parse(raw[count] ?? '')).toEqual(toRecordedQuoteJson(quote, decimalsOf))
      byPoint.set(`${quote.receivedAt}:${quote.key}`, quote)
      count++
    }
    expect(count).toBe(result.quotes)
    // Delta beats Market on every request: more received on SELL, less paid on BUY.
    for (const [id, delta] of byPoint) {
      if (delta.request.source !== 'delta') continue
      const market = byPoint.get(id.replace(':delta:', ':market:'))
      if (!market) throw new Error(`no market quote beside ${id}`)
      if (delta.request.side === 'SELL') expect(delta.destAmount).toBeGreaterThan(market.destAmount)
      else expect(delta.srcAmount).toBeLessThan(market.srcAmount)
    }
  })

  it('gives a byte-identical file for the same inputs', async () => {
    const first = directory.path('same-1.jsonl.gz')
    const second = directory.path('same-2.jsonl.gz')
    await writeQuotesFromCandles({ ...options, candles: eth5m, out: first })
    await writeQuotesFromCandles({ ...options, candles: eth5m, out: second })
    expect(readFileSync(first).equals(readFileSync(second))).toBe(true)
  })

  it('prices the USDC depeg of March 2023 (BTC 1m) without failing', async () => {
    const out = directory.path('depeg.jsonl')
    const result = await writeQuotesFromCandles({
      candles: btc1m,
      out,
      pair: { chainId: 1, base: wbtc, quote: usdc },
      sizes: [{ token: 'quote', amount: 10_000_000_000n }],
      sides: ['SELL', 'BUY'],
      sources: ['market'],
      model: candleQuoteModelSchema.parse({ points: 'close' }),
      from: Date.parse('2023-03-10T00:00:00Z'),
      to: Date.parse('2023-03-14T00:00:00Z'),
    })
    expect(result).toMatchObject({ candles: 4 * 1440, quotes: 4 * 1440 * 2, intervalMs: 60_000 })
    let lowest = Number.POSITIVE_INFINITY
    let highest = 0
    for await (const { quote } of readRecordedQuotes(out)) {
      if (quote.request.side !== 'SELL') continue
      const usdPerBtc = 10_000 / (Number(quote.destAmount) / 1e8)
      lowest = Math.min(lowest, usdPerBtc)
      highest = Math.max(highest, usdPerBtc)
    }
    // Buying BTC with 10,000 USDC pays mid × (1 + h + i); BTC/USDT closed between 19,597.03 and 24,480.28 from the
    // depeg to the rebound (10 to 13 March).
    const markup = 1 + 0.0005 + 10_000 / 20_010_000
    expect(lowest).toBeCloseTo(19_597.03 * markup, 1)
    expect(highest).toBeCloseTo(24_480.28 * markup, 1)
  })

  it('quotes nothing inside a gap of whole intervals and refuses a gap of a part interval', async () => {
    const header = 'open_time,open,high,low,close\n'
    const gap = csvFile(`${header}1771800000000,1,1,1,1\n1771800300000,1,1,1,1\n1771801200000,1,1,1,1\n`)
    const base = {
      ...options,
      from: undefined,
      to: undefined,
      sizes: [{ token: 'quote' as const, amount: 1_000_000n }],
      sides: ['SELL' as const],
      sources: ['market' as const],
    }
    const out = directory.path('gap.jsonl')
    expect(await writeQuotesFromCandles({ ...base, candles: gap, out })).toMatchObject({ candles: 3, quotes: 12, intervalMs: 300_000 })
    const times: number[] = []
    for await (const { quote } of readRecordedQuotes(out)) times.push(quote.receivedAt)
    expect(times.filter((time) => time > 1771800600000 && time < 1771801200000)).toEqual([])
    const skewed = csvFile(`${header}1771800000000,1,1,1,1\n1771800300000,1,1,1,1\n1771800400000,1,1,1,1\n`)
    const failed = directory.path('skewed.jsonl')
    const error = await writeQuotesFromCandles({ ...base, candles: skewed, out: failed }).catch((caught: unknown) => caught)
    expect((error as CandleCsvError).shortMessage).toContain(`${skewed}:4: open_time is 100000 ms after the previous candle's (line 3)`)
    // The partial file is removed.
    await expect(access(failed)).rejects.toThrow()
  })

  it('refuses to replace an existing file unless told to', async () => {
    const out = directory.path('existing.jsonl')
    writeFileSync(out, 'keep me')
    const small = { ...options, candles: eth15m, out, to: Date.parse('2026-03-01T01:00:00Z') }
    await expect(writeQuotesFromCandles(small)).rejects.toBeInstanceOf(QuoteSetFileError)
    expect(readFileSync(out, 'utf8')).toBe('keep me')
    expect(await writeQuotesFromCandles({ ...small, overwrite: true })).toMatchObject({ candles: 4 })
  })
})

describe('crosschain quotes (bridge)', () => {
  const bridge: CandleBridge = {
    chainId: 8453,
    token: usdcBase,
    sizes: [1_000_000_000n, 1_000_000_000_000n],
    feeBps: 5,
    estimatedSeconds: 120,
  }
  const options: CandleQuoteSetOptions = {
    pair: wethUsdc,
    sizes: [{ token: 'quote', amount: 1_000_000_000n }],
    sides: ['SELL', 'BUY'],
    sources: ['market', 'delta'],
    model: defaultCandleQuoteModel,
    from: Date.parse('2026-02-25T20:00:00Z'),
    to: Date.parse('2026-02-25T22:00:00Z'),
    bridge,
  }

  it('quotes USDC to Base and back at 1 − fee at every point, as crosschain Delta prices the executor accepts', async () => {
    const out = directory.path('bridge.jsonl.gz')
    const result = await writeQuotesFromCandles({ ...options, candles: eth15m, out })
    // 8 candles × 4 points × (4 pair quotes + 2 sizes × 2 directions).
    expect(result).toMatchObject({ candles: 8, quotes: 8 * 4 * 8 })
    const header = await readRecordedQuotes(out).header()
    expect(header.meta).toMatchObject({
      bridgeChainId: 8453,
      bridgeToken: `USDC ${usdcBase.address}`,
      bridgeSizes: '1000 USDC,1000000 USDC',
      bridgeFeeBps: 5,
      bridgeEstimatedSeconds: 120,
    })
    const raw = gunzipSync(readFileSync(out)).toString().trim().split('\n').slice(1)
    const byKey = new Map<string, bigint[]>()
    let line = 0
    for await (const { quote } of readRecordedQuotes(out)) {
      expect(JSON.parse(raw[line++] ?? '')).toEqual(toRecordedQuoteJson(quote, decimalsOf))
      if (quote.request.destChainId === undefined) continue
      const { request, answer } = quote
      if (answer.source !== 'delta') throw new Error(`a crosschain quote answered by ${answer.source}`)
      const outbound = request.chainId === 1
      expect(request).toMatchObject({
        source: 'delta',
        chainId: outbound ? 1 : 8453,
        destChainId: outbound ? 8453 : 1,
        srcToken: outbound ? usdc.address : usdcBase.address,
        destToken: outbound ? usdcBase.address : usdc.address,
        side: 'SELL',
      })
      // 5 bps kept by the bridge, whatever ETH does.
      expect(quote.destAmount).toBe((request.amount * 9995n) / 10_000n)
      const { route } = answer.price
      expect(isCrosschainRoute(route)).toBe(true)
      expect(route.bridge).toMatchObject({
        estimatedTimeMs: 120_000,
        contractParams: { outputToken: request.destToken.toLowerCase(), scalingFactor: 0, protocolData: '0x' },
      })
      expect(route.fees.bridge).toEqual([
        {
          token: { chainId: request.destChainId, address: request.destToken.toLowerCase() },
          amount: (request.amount * 5n) / 10_000n,
          amountUSD: expect.any(String),
        },
      ])
      // The rebalancer's example config allows 1 % impact, the bridge fee counted.
      expect(priceImpactPercent({ delta: answer.price })).toBeCloseTo(0.05, 6)
      byKey.set(quote.key, [...(byKey.get(quote.key) ?? []), quote.destAmount])
    }
    expect(byKey.size).toBe(4)
    for (const amounts of byKey.values()) expect(new Set(amounts).size).toBe(1)
  })

  it('keeps the fee in the delivered token, rounding against the trader across decimals', () => {
    const model = { feeBps: 2.5, estimatedSeconds: 60 }
    // 1 token of 6 decimals to a twin of 18: 0.99975 arrives.
    expect(modelBridgeAmounts(model, 1_000_000n, 6, 18)).toEqual({
      arriving: 10n ** 18n,
      delivered: 999_750_000_000_000_000n,
      fee: 250_000_000_000_000n,
    })
    // 18 decimals to 6: what does not make a whole raw unit stays behind.
    expect(modelBridgeAmounts(model, 1_234_567_890_123_456_789n, 18, 6)).toEqual({ arriving: 1_234_567n, delivered: 1_234_258n, fee: 309n })
    expect(() => modelBridgeAmounts(model, 1n, 6, 6)).toThrow(CandleQuoteModelError)
  })

  it('leaves the pair quotes as they are without a bridge', async () => {
    const withBridge = directory.path('with-bridge.jsonl')
    const without = directory.path('without-bridge.jsonl')
    await writeQuotesFromCandles({ ...options, candles: eth15m, out: withBridge })
    await writeQuotesFromCandles({ ...options, bridge: undefined, candles: eth15m, out: without })
    // The same quotes but for the Delta answers' ids, which count the lines of a candle.
    const pairLines = (file: string) =>
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .filter((text) => !text.includes('"destChainId"'))
        .map((text) => text.replace(/"id":"candle-model-\d+-\d+"/, '"id":""'))
    expect(pairLines(withBridge)).toEqual(pairLines(without))
  })
})

describe('deltaflow quotes from-candles', () => {
  async function runCli(args: string[]): Promise<{ stdout: string; stderr: string; exitCode: number }> {
    const program = new Command().name('deltaflow')
    registerQuotesCommand(program)
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true)
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    const exitCode = process.exitCode
    try {
      await program.parseAsync(['node', 'deltaflow', 'quotes', 'from-candles', ...args])
      return {
        stdout: stdout.mock.calls.map(([text]) => String(text)).join(''),
        stderr: stderr.mock.calls.map(([text]) => String(text)).join(''),
        exitCode: Number(process.exitCode ?? 0),
      }
    } finally {
      stdout.mockRestore()
      stderr.mockRestore()
      process.exitCode = exitCode
    }
  }

  it('regenerates the committed sample exactly, with the command its README gives', async () => {
    const out = directory.path('sample.jsonl.gz')
    const { stdout, exitCode } = await runCli([
      eth5m,
      '--out',
      out,
      '--from',
      '2026-03-02T12:00:00Z',
      '--to',
      '2026-03-02T16:00:00Z',
      '--sizes',
      '40,1000',
      '--base-sizes',
      '0.5',
      '--json',
    ])
    expect(exitCode).toBe(0)
    expect(JSON.parse(stdout)).toEqual({
      file: out,
      quotes: 48 * 4 * 12,
      candles: 48,
      intervalMs: 300_000,
      from: '2026-03-02T12:00:00.000Z',
      to: '2026-03-02T15:58:45.000Z',
    })
    expect(gunzipSync(readFileSync(out)).equals(gunzipSync(readFileSync(sample)))).toBe(true)
  })

  it('regenerates the strategies set exactly, with the command of test/fixtures/quotes/README.md', async () => {
    const out = directory.path('strategies.jsonl.gz')
    const { stdout, exitCode } = await runCli([
      eth5m,
      '--out',
      out,
      '--from',
      '2026-02-25',
      '--to',
      '2026-02-27',
      '--sizes',
      '6.944444',
      '--base-sizes',
      '0.1,1',
      '--bridge-chain',
      '8453',
      '--bridge-sizes',
      '1000,100000,1000000',
      '--bridge-fee-bps',
      '5',
      '--json',
    ])
    expect(exitCode).toBe(0)
    expect(JSON.parse(stdout)).toMatchObject({
      quotes: 576 * 4 * 18,
      candles: 576,
      from: '2026-02-25T00:00:00.000Z',
      to: '2026-02-26T23:58:45.000Z',
    })
    expect(gunzipSync(readFileSync(out)).equals(gunzipSync(readFileSync(strategiesSet)))).toBe(true)
  })

  it('says which flag is wrong and exits 2 (a usage error)', async () => {
    const result = await runCli([eth15m, '--out', directory.path('bad.jsonl'), '--spread-bps', '0.001'])
    expect(result.exitCode).toBe(2)
    expect(result.stderr).toContain('--spread-bps 0.001: expected basis points with at most 2 decimals')
    const token = await runCli([eth15m, '--out', directory.path('bad.jsonl'), '--quote', 'EUR'])
    expect(token.stderr).toContain('--quote EUR: expected one of WETH, USDC')
    const strayBridge = await runCli([eth15m, '--out', directory.path('bad.jsonl'), '--bridge-fee-bps', '5'])
    expect(strayBridge.stderr).toContain('--bridge-fee-bps needs --bridge-chain')
    const sameChain = await runCli([eth15m, '--out', directory.path('bad.jsonl'), '--bridge-chain', '1'])
    expect(sameChain.stderr).toContain("--bridge-chain 1 is the quotes' own chain")
    const fee = await runCli([eth15m, '--out', directory.path('bad.jsonl'), '--bridge-chain', '8453', '--bridge-fee-bps', '0.125'])
    expect(fee.stderr).toContain('--bridge-fee-bps 0.125: expected basis points with at most 2 decimals')
  })
})
