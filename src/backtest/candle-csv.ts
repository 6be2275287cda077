import { BaseError } from '../errors/base.js'
import { readLines } from '../feed/read-lines.js'

// Exchange candles in CSV (Binance kline layout): a header row naming at least open_time, open, high, low and close;
// volume and close_time are read when present, other columns are ignored. open_time is unix milliseconds or an ISO
// time with a zone ("2023-03-01 00:00:00+00:00"). Prices are quote per base (USDT per ETH).

/** Candle prices are fixed-point bigints: the decimal price × 10^18. */
export const candlePriceScale = 10n ** 18n
const priceDecimals = 18

export type Candle = {
  /** Line of the candle in its file (1-based; the header is line 1). */
  line: number
  /** Unix ms. */
  openTime: number
  /** Unix ms of the candle's last millisecond (Binance: openTime + interval − 1), when the file has close_time. */
  closeTime: number | undefined
  /** Quote per base × 10^18. */
  open: bigint
  high: bigint
  low: bigint
  close: bigint
  /** Base volume × 10^18, when the file has volume. */
  volume: bigint | undefined
}

/** A candle file that cannot be read, at a line. Operational: fix the file (or cut the bad rows). */
export class CandleCsvError extends BaseError {
  override name = 'CandleCsvError' as const
  constructor(file: string, line: number | undefined, problem: string, cause?: unknown) {
    super(`${line === undefined ? file : `${file}:${line}`}: ${problem}`, {
      details: line === undefined ? { file } : { file, line },
      cause,
      errorClass: 'operational',
      hint: 'Expected Binance klines as CSV: a header with open_time,open,high,low,close (volume, close_time optional), one candle per row in time order.',
    })
  }
}

const requiredColumns = ['open_time', 'open', 'high', 'low', 'close'] as const
type Columns = Record<(typeof requiredColumns)[number], number> & { volume: number | undefined; close_time: number | undefined }

/**
 * Streams the candles of a CSV file (gunzipped when the name ends in `.gz`) in constant memory. Every row is checked:
 * as many fields as the header, positive prices with low ≤ open, close ≤ high, and open times strictly increasing.
 * The first bad row throws a CandleCsvError naming `file:line`.
 *
 * @example
 * for await (const candle of readCandleCsv('ethusdt-5m-binance.csv')) console.log(candle.openTime, candle.close)
 */
export async function* readCandleCsv(file: string): AsyncGenerator<Candle> {
  let columns: Columns | undefined
  let width = 0
  let previous: Candle | undefined
  const lines = readLines(file, {
    fail: ({ problem, line, cause }) => new CandleCsvError(file, line, problem, cause),
    cutShort: 'a download cut short?',
  })
  for await (const { text, line } of lines) {
    const fields = text.split(',').map((field) => field.trim())
    if (!columns) {
      columns = headerColumns(fields, file, line)
      width = fields.length
      continue
    }
    if (fields.length !== width)
      throw new CandleCsvError(file, line, `expected ${width} fields as in the header, received ${fields.length}`)
    const candle = parseCandleRow(fields, columns, file, line)
    if (previous && candle.openTime <= previous.openTime) {
      throw new CandleCsvError(
        file,
        line,
        `open_time ${new Date(candle.openTime).toISOString()} is not after the previous row's (line ${previous.line}, ${new Date(previous.openTime).toISOString()}); rows must be in time order without repeats`,
      )
    }
    previous = candle
    yield candle
  }
  if (!columns) throw new CandleCsvError(file, undefined, 'the file is empty; expected a header row with open_time,open,high,low,close')
}

function headerColumns(fields: readonly string[], file: string, line: number): Columns {
  const names = fields.map((field) => field.toLowerCase())
  const indexOf = (name: string) => {
    const index = names.indexOf(name)
    return index < 0 ? undefined : index
  }
  const missing = requiredColumns.filter((name) => indexOf(name) === undefined)
  if (missing.length > 0) {
    throw new CandleCsvError(file, line, `the header lacks ${missing.join(', ')}; received the columns ${fields.join(',')}`)
  }
  const required = Object.fromEntries(requiredColumns.map((name) => [name, indexOf(name) ?? 0])) as Record<
    (typeof requiredColumns)[number],
    number
  >
  return { ...required, volume: indexOf('volume'), close_time: indexOf('close_time') }
}

function parseCandleRow(fields: readonly string[], columns: Columns, file: string, line: number): Candle {
  const field = (index: number) => fields[index] ?? ''
  const price = (name: 'open' | 'high' | 'low' | 'close') => {
    const text = field(columns[name])
    const value = parseCandleDecimal(text)
    if (value === undefined || value === 0n) {
      throw new CandleCsvError(
        file,
        line,
        `${name}: expected a positive decimal price (at most ${priceDecimals} decimals), received ${JSON.stringify(text)}`,
      )
    }
    return value
  }
  const openTime = parseCandleTime(field(columns.open_time))
  if (openTime === undefined) {
    throw new CandleCsvError(
      file,
      line,
      `open_time: expected unix milliseconds or an ISO time with a zone (2023-03-01 00:00:00+00:00), received ${JSON.stringify(field(columns.open_time))}`,
    )
  }
  const open = price('open')
  const high = price('high')
  const low = price('low')
  const close = price('close')
  if (low > open || low > close || high < open || high < close) {
    throw new CandleCsvError(
      file,
      line,
      `expected low ≤ open, close ≤ high, received open ${field(columns.open)}, high ${field(columns.high)}, low ${field(columns.low)}, close ${field(columns.close)}`,
    )
  }
  const closeTime = columns.close_time === undefined ? undefined : parseCandleTime(field(columns.close_time))
  if (columns.close_time !== undefined && (closeTime === undefined || closeTime <= openTime)) {
    throw new CandleCsvError(
      file,
      line,
      `close_time: expected a time after open_time, received ${JSON.stringify(field(columns.close_time))}`,
    )
  }
  const volumeText = columns.volume === undefined ? undefined : field(columns.volume)
  const volume = volumeText === undefined ? undefined : parseCandleDecimal(volumeText)
  if (volumeText !== undefined && volume === undefined) {
    throw new CandleCsvError(file, line, `volume: expected a non-negative decimal, received ${JSON.stringify(volumeText)}`)
  }
  return { line, openTime, closeTime, open, high, low, close, volume }
}

/** "2076.18000000" or "9e-05" → the value × 10^18 (2076180000000000000000n); undefined when not a non-negative decimal
 * or finer than 10^-18. */
export function parseCandleDecimal(text: string): bigint | undefined {
  const match = /^(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d{1,3}))?$/.exec(text)
  if (!match) return undefined
  const [, whole = '', fraction = '', exponent = '0'] = match
  // digits × 10^(exponent − fraction length), scaled by 10^18.
  const shift = Number(exponent) - fraction.length + priceDecimals
  const digits = BigInt(whole + fraction)
  if (shift >= 0) return digits * 10n ** BigInt(shift)
  const divisor = 10n ** BigInt(-shift)
  return digits % divisor === 0n ? digits / divisor : undefined
}

const isoTime = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?)(Z|[+-]\d{2}:?\d{2})$/

/** Unix ms from unix milliseconds (at least 12 digits: seconds are refused) or an ISO time with a zone. */
export function parseCandleTime(text: string): number | undefined {
  if (/^\d+$/.test(text)) {
    const ms = Number(text)
    return Number.isSafeInteger(ms) && ms >= 1e11 ? ms : undefined
  }
  const match = isoTime.exec(text)
  if (!match) return undefined
  const [, date, time, zone = ''] = match
  const normalisedZone = zone === 'Z' ? 'Z' : zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`
  const ms = Date.parse(`${date}T${time}${normalisedZone}`)
  if (!Number.isSafeInteger(ms)) return undefined
  // Date.parse rolls 2023-02-30 over into March; a real calendar date reads back the same day.
  const shifted = new Date(ms + zoneOffsetMs(normalisedZone)).toISOString().slice(0, 10)
  return shifted === date ? ms : undefined
}

function zoneOffsetMs(zone: string): number {
  if (zone === 'Z') return 0
  const sign = zone.startsWith('-') ? -1 : 1
  return sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000
}
