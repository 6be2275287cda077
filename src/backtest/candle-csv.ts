import { createReadStream } from 'node:fs'
import type { Readable } from 'node:stream'
import { pipeline } from 'node:stream'
import { createGunzip } from 'node:zlib'
import { CsvError, parse } from 'csv-parse'
import { BaseError } from '../errors/base.js'

// Exchange candles in CSV (Binance kline layout). With a header row naming at least open_time, open, high, low and
// close (volume and close_time read when present, other columns ignored), or without one, as Binance's own dumps
// come: open_time, open, high, low, close, volume, close_time, quote_volume, count, taker_buy_volume,
// taker_buy_quote_volume, ignore. Times are unix seconds, milliseconds or microseconds (told apart by size: Binance
// spot dumps moved from milliseconds to microseconds in 2025) or an ISO time with a zone ("2023-03-01
// 00:00:00+00:00"). Prices are quote per base (USDT per ETH).

/** Candle prices are fixed-point bigints: the decimal price × 10^18. */
export const candlePriceScale = 10n ** 18n
const priceDecimals = 18

export type Candle = {
  /** Line of the candle in its file (1-based; a header is line 1). */
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
      hint: 'Expected Binance klines as CSV, one candle per row in time order: open_time,open,high,low,close[,volume,close_time,…], with or without a header row naming them.',
    })
  }
}

const requiredColumns = ['open_time', 'open', 'high', 'low', 'close'] as const
type Columns = Record<(typeof requiredColumns)[number], number> & { volume: number | undefined; close_time: number | undefined }

/** The columns of a file without a header: Binance's kline dumps. */
const binanceColumns = [
  'open_time',
  'open',
  'high',
  'low',
  'close',
  'volume',
  'close_time',
  'quote_volume',
  'count',
  'taker_buy_volume',
  'taker_buy_quote_volume',
  'ignore',
] as const

/**
 * Streams the candles of a CSV file (gunzipped when the name ends in `.gz`) in constant memory. The first row is a
 * header when its first field is not a time; otherwise the columns are Binance's. Every row is checked: as many
 * fields as the first row, positive prices with low ≤ open, close ≤ high, and open times strictly increasing. The
 * first bad row throws a CandleCsvError naming `file:line`.
 *
 * @example
 * for await (const candle of readCandleCsv('ethusdt-5m-binance.csv')) console.log(candle.openTime, candle.close)
 */
export async function* readCandleCsv(file: string): AsyncGenerator<Candle> {
  let columns: Columns | undefined
  let width = 0
  let widthSource = 'the header'
  let previous: Candle | undefined
  let lastLine = 0
  const rows = openCsvRows(file)
  try {
    for await (const { info, record } of rows as AsyncIterable<{ info: { lines: number }; record: string[] }>) {
      const line = info.lines
      lastLine = line
      if (!columns) {
        width = record.length
        const first = record[0] ?? ''
        if (parseCandleTime(first) === undefined) {
          columns = headerColumns(record, file, line)
          continue
        }
        columns = positionalColumns(record, file, line)
        widthSource = 'the first row'
      }
      if (record.length !== width) {
        throw new CandleCsvError(file, line, `expected ${width} fields as in ${widthSource}, received ${record.length}`)
      }
      const candle = parseCandleRow(record, columns, file, line)
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
  } catch (error) {
    if (error instanceof CandleCsvError) throw error
    throw new CandleCsvError(file, lastLine === 0 ? undefined : lastLine + 1, readProblem(error), error)
  } finally {
    rows.destroy()
  }
  if (!columns) {
    throw new CandleCsvError(
      file,
      undefined,
      'the file is empty; expected candles, with or without a header row (open_time,open,high,low,close)',
    )
  }
}

/** The file (gunzipped when it ends in .gz) through the CSV parser: one `{ info, record }` per non-empty row. */
function openCsvRows(file: string): Readable {
  const rows = parse({ info: true, trim: true, bom: true, skip_empty_lines: true, relax_column_count: true })
  const input = createReadStream(file)
  // pipeline destroys every stream with the first error, so the rows' iterator throws it.
  const done = () => undefined
  if (file.endsWith('.gz')) pipeline(input, createGunzip(), rows, done)
  else pipeline(input, rows, done)
  return rows
}

function readProblem(error: unknown): string {
  if (error instanceof CsvError) return `not CSV: ${error.message}`
  const code = (error as { code?: unknown } | null)?.code
  if (code === 'ENOENT') return 'no such file'
  if (code === 'EISDIR') return 'a directory, not a file'
  if (code === 'Z_BUF_ERROR') return 'the gzip stream ends early (a download cut short?)'
  if (code === 'Z_DATA_ERROR') return 'not gzip data, though the name ends in .gz'
  return `cannot read the file (${error instanceof Error ? error.message : String(error)})`
}

function headerColumns(fields: readonly string[], file: string, line: number): Columns {
  const names = fields.map((field) => field.toLowerCase())
  const indexOf = (name: string) => {
    const index = names.indexOf(name)
    return index < 0 ? undefined : index
  }
  const missing = requiredColumns.filter((name) => indexOf(name) === undefined)
  if (missing.length > 0) {
    throw new CandleCsvError(
      file,
      line,
      `the header lacks ${missing.join(', ')}; received the columns ${fields.join(',')} (a file without a header starts with a time)`,
    )
  }
  const required = Object.fromEntries(requiredColumns.map((name) => [name, indexOf(name) ?? 0])) as Record<
    (typeof requiredColumns)[number],
    number
  >
  return { ...required, volume: indexOf('volume'), close_time: indexOf('close_time') }
}

/** A file without a header: Binance's columns, as many as the first row has (at least open_time to close). */
function positionalColumns(fields: readonly string[], file: string, line: number): Columns {
  if (fields.length < requiredColumns.length) {
    throw new CandleCsvError(
      file,
      line,
      `a row without a header needs at least ${requiredColumns.length} fields (${requiredColumns.join(',')}), received ${fields.length}`,
    )
  }
  const at = (name: (typeof binanceColumns)[number]) => {
    const index = binanceColumns.indexOf(name)
    return index < fields.length ? index : undefined
  }
  return { open_time: 0, open: 1, high: 2, low: 3, close: 4, volume: at('volume'), close_time: at('close_time') }
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
      `open_time: expected unix seconds, milliseconds or microseconds, or an ISO time with a zone (2023-03-01 00:00:00+00:00), received ${JSON.stringify(field(columns.open_time))}`,
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
  const closeTime = columns.close_time === undefined ? undefined : parseCandleCloseTime(field(columns.close_time))
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

/**
 * Unix ms of a time: a unix timestamp in seconds, milliseconds, microseconds or nanoseconds (told apart by size:
 * below 10^11 seconds, 10^14 milliseconds, 10^17 microseconds, 10^20 nanoseconds, i.e. years 1973 to 5138 in each
 * unit; finer units are truncated to the millisecond), or an ISO time with a zone.
 */
export function parseCandleTime(text: string): number | undefined {
  return readTime(text)?.ms
}

/** As parseCandleTime, for the end of a candle: a time in seconds is its second's last millisecond. */
function parseCandleCloseTime(text: string): number | undefined {
  const time = readTime(text)
  return time === undefined ? undefined : time.ms + time.resolutionMs - 1
}

/** The time in ms and how many ms its unit spans (1000 for seconds, else 1). */
function readTime(text: string): { ms: number; resolutionMs: number } | undefined {
  if (/^\d{1,20}$/.test(text)) {
    const value = BigInt(text)
    if (value === 0n || value >= 10n ** 20n) return undefined
    if (value < 10n ** 11n) return { ms: Number(value * 1000n), resolutionMs: 1000 } // seconds
    if (value < 10n ** 14n) return { ms: Number(value), resolutionMs: 1 } // milliseconds
    if (value < 10n ** 17n) return { ms: Number(value / 1000n), resolutionMs: 1 } // microseconds
    return { ms: Number(value / 1_000_000n), resolutionMs: 1 } // nanoseconds
  }
  const match = isoTime.exec(text)
  if (!match) return undefined
  const [, date, time, zone = ''] = match
  const normalisedZone = zone === 'Z' ? 'Z' : zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`
  const ms = Date.parse(`${date}T${time}${normalisedZone}`)
  if (!Number.isSafeInteger(ms)) return undefined
  // Date.parse rolls 2023-02-30 over into March; a real calendar date reads back the same day.
  const shifted = new Date(ms + zoneOffsetMs(normalisedZone)).toISOString().slice(0, 10)
  return shifted === date ? { ms, resolutionMs: 1 } : undefined
}

function zoneOffsetMs(zone: string): number {
  if (zone === 'Z') return 0
  const sign = zone.startsWith('-') ? -1 : 1
  return sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000
}
