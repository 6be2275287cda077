import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { type FileHandle, open, rm } from 'node:fs/promises'
import { basename } from 'node:path'
import type { Writable } from 'node:stream'
import { finished, pipeline } from 'node:stream/promises'
import { createGzip } from 'node:zlib'
import { type Address, formatUnits, keccak256, stringToHex } from 'viem'
import { FileNotFoundError } from '../config/file-not-found.js'
import { BaseError } from '../errors/base.js'
import { type QuoteRequest, quoteRequestKey } from '../feed/quote.js'
import { type RecordedQuoteJson, type RecordedQuotesHeader, recordedQuotesFormat, recordedQuotesVersion } from '../feed/recorded-quote.js'
import { deltaAddress, marketRouterAddress, nativeTokenPlaceholder } from '../protocol/addresses.js'
import { type Candle, CandleCsvError, readCandleCsv } from './candle-csv.js'
import {
  type CandleBridge,
  type CandlePair,
  type CandleQuoteModel,
  CandleQuoteModelError,
  type CandleQuoteSource,
  candleBridgeRequests,
  candlePricePoints,
  candleQuoteRequest,
  exceedsMaxImpact,
  formatDecimal,
  modelBridgeAmounts,
  modelQuoteAmounts,
  type PricePoint,
  type QuoteSize,
  type Side,
  usdOfAmount,
} from './candle-quote-model.js'

// Candles → a recorded-quote set (src/feed/recorded-quotes.md) that reads back with readRecordedQuotes, so that
// strategies can be backtested on real price paths. The model is in candle-quote-model.ts and src/backtest/README.md.

export type CandleQuoteSetOptions = {
  pair: CandlePair
  sizes: readonly QuoteSize[]
  sides: readonly Side[]
  sources: readonly CandleQuoteSource[]
  model: CandleQuoteModel
  /** Only candles opening at or after this time (unix ms). */
  from?: number | undefined
  /** Only candles opening before this time (unix ms). */
  to?: number | undefined
  /** The candles' interval; default: close_time − open_time + 1 of the first candle, else the first step of open_time. */
  intervalMs?: number | undefined
  /** Crosschain Delta quotes of the quote token to and from another chain, at every price point after the others. */
  bridge?: CandleBridge | undefined
}

/** The quote lines of one candle, in file order. */
export type CandleQuotes = { candle: Candle; intervalMs: number; lines: RecordedQuoteJson[] }

/**
 * Quote lines every `sources × sizes × sides` request gets at each price point of the candle, in that order, each
 * point followed by the bridge's requests (candleBridgeRequests) when there is a bridge.
 */
export function quoteLinesOfCandle(candle: Candle, intervalMs: number, options: CandleQuoteSetOptions): RecordedQuoteJson[] {
  const lines: RecordedQuoteJson[] = []
  const { bridge } = options
  const bridged = bridge ? candleBridgeRequests(options.pair, bridge).map((request) => ({ bridge, request })) : []
  for (const point of candlePricePoints(candle, intervalMs, options.model.points)) {
    for (const source of options.sources) {
      for (const size of options.sizes) {
        for (const side of options.sides) {
          const request = candleQuoteRequest(options.pair, size, side, source)
          lines.push(quoteLine(options, request, point, lines.length))
        }
      }
    }
    for (const transfer of bridged) lines.push(bridgeQuoteLine(options, transfer.bridge, transfer.request, point, lines.length))
  }
  return lines
}

/**
 * Streams the candles of a CSV file (readCandleCsv) as quote lines, candle by candle, in constant memory. The gaps
 * between candles must be whole intervals (a missing candle yields no quotes); a bad row throws CandleCsvError.
 */
export async function* generateCandleQuotes(file: string, options: CandleQuoteSetOptions): AsyncGenerator<CandleQuotes> {
  const empty = (['sizes', 'sides', 'sources'] as const).filter((name) => options[name].length === 0)
  if (empty.length > 0) {
    throw new CandleQuoteModelError(`no quotes to generate: ${empty.join(', ')} ${empty.length > 1 ? 'are' : 'is'} empty`, {
      hint: 'Give at least one size, side and source.',
      errorClass: 'operational',
    })
  }
  let intervalMs = options.intervalMs
  let pending: Candle | undefined
  let previous: Candle | undefined
  const emit = (candle: Candle, interval: number): CandleQuotes => {
    checkSpacing(file, candle, previous, interval)
    previous = candle
    return { candle, intervalMs: interval, lines: quoteLinesOfCandle(candle, interval, options) }
  }
  for await (const candle of readCandleCsv(file)) {
    if (pending && intervalMs === undefined) {
      intervalMs = candle.openTime - pending.openTime
      yield emit(pending, intervalMs)
      pending = undefined
    }
    if (options.to !== undefined && candle.openTime >= options.to) break
    if (options.from !== undefined && candle.openTime < options.from) continue
    if (intervalMs === undefined && candle.closeTime !== undefined) intervalMs = candle.closeTime - candle.openTime + 1
    if (intervalMs === undefined) pending = candle
    else yield emit(candle, intervalMs)
  }
  if (pending) {
    throw new CandleCsvError(
      file,
      pending.line,
      'cannot tell the candle interval from a single candle without close_time; give two candles or more, or a close_time column',
    )
  }
}

function checkSpacing(file: string, candle: Candle, previous: Candle | undefined, intervalMs: number): void {
  if (candle.closeTime !== undefined && candle.closeTime - candle.openTime + 1 !== intervalMs) {
    throw new CandleCsvError(
      file,
      candle.line,
      `close_time − open_time + 1 is ${candle.closeTime - candle.openTime + 1} ms, expected the interval of ${intervalMs} ms`,
    )
  }
  if (previous && (candle.openTime - previous.openTime) % intervalMs !== 0) {
    throw new CandleCsvError(
      file,
      candle.line,
      `open_time is ${candle.openTime - previous.openTime} ms after the previous candle's (line ${previous.line}), not a whole number of ${intervalMs} ms intervals`,
    )
  }
}

function quoteLine(options: CandleQuoteSetOptions, request: QuoteRequest, point: PricePoint, index: number): RecordedQuoteJson {
  const { pair, model } = options
  const amounts = modelQuoteAmounts(model, pair, request, point.price)
  const srcIsBase = amounts.sellsBase
  const src = srcIsBase ? pair.base : pair.quote
  const dest = srcIsBase ? pair.quote : pair.base
  const srcUsd = usdOfAmount(pair, srcIsBase ? 'base' : 'quote', amounts.srcAmount, point.price)
  const destUsd = usdOfAmount(pair, srcIsBase ? 'quote' : 'base', amounts.destAmount, point.price)
  const srcAmount = amounts.srcAmount.toString()
  const destAmount = amounts.destAmount.toString()
  const common = {
    time: point.time,
    requestedAt: point.time,
    key: quoteRequestKey(request),
    source: request.source,
    chainId: request.chainId,
    srcToken: src.address,
    srcDecimals: src.decimals,
    destToken: dest.address,
    destDecimals: dest.decimals,
    side: request.side,
    amount: request.amount.toString(),
    srcAmount,
    destAmount,
  }
  if (request.source === 'market') {
    const gasCost = String(model.marketGasUnits)
    const partnerFee = bpsToPercent(model.marketFeeBps)
    return {
      ...common,
      gas: { usd: model.marketGasUsd, units: gasCost },
      fees: { partnerPercent: partnerFee },
      answer: {
        source: 'market',
        route: {
          blockNumber: 0,
          network: pair.chainId,
          srcToken: src.address.toLowerCase(),
          srcDecimals: src.decimals,
          srcAmount,
          destToken: dest.address.toLowerCase(),
          destDecimals: dest.decimals,
          destAmount,
          bestRoute: [
            {
              percent: 100,
              swaps: [
                {
                  srcToken: src.address.toLowerCase(),
                  srcDecimals: src.decimals,
                  destToken: dest.address.toLowerCase(),
                  destDecimals: dest.decimals,
                  swapExchanges: [{ exchange: modelName, srcAmount, destAmount, percent: 100 }],
                },
              ],
            },
          ],
          gasCostUSD: model.marketGasUsd,
          gasCost,
          side: request.side,
          version: '6.2',
          contractAddress: marketRouterAddress,
          tokenTransferProxy: marketRouterAddress,
          contractMethod: request.side === 'SELL' ? 'swapExactAmountIn' : 'swapExactAmountOut',
          partnerFee,
          srcUSD: srcUsd,
          destUSD: destUsd,
          partner: 'anon',
          maxImpactReached: exceedsMaxImpact(model, amounts.impact),
          // Not an issued route: the service would refuse to build a transaction from it.
          hmac: modelName,
        },
      },
    }
  }
  const feePercent = bpsToPercent(model.deltaFeeBps)
  const token = (address: Address) => ({ chainId: pair.chainId, address: address.toLowerCase() as Address })
  const output = { token: token(dest.address), amount: destAmount, amountUSD: destUsd }
  return {
    ...common,
    gas: { usd: '0', wei: '0' },
    fees: { partnerPercent: feePercent },
    answer: {
      source: 'delta',
      price: {
        id: `${modelName}-${point.time}-${index}`,
        side: request.side,
        inputToken: token(src.address),
        outputToken: token(dest.address),
        route: {
          origin: { input: { token: token(src.address), amount: srcAmount, amountUSD: srcUsd }, output },
          destination: { input: output, output },
          bridge: null,
          // The user pays no gas on Delta; the agents' is not modelled.
          fees: { gas: { token: token(nativeTokenPlaceholder), amount: '0', amountUSD: '0' }, bridge: [] },
        },
        alternatives: [],
        partner: { name: 'anon', feePercent },
        spender: deltaAddress,
      },
    },
  }
}

/**
 * A crosschain Delta SELL of the quote token, shaped as the service's crosschain PriceV2: no swap on either chain, the
 * bridge delivers the same asset less its fee (route.fees.bridge, in the destination token on the destination chain).
 * Like the same-chain Delta answers, the amounts are before the partner fee and the user pays no gas.
 */
function bridgeQuoteLine(
  options: CandleQuoteSetOptions,
  bridge: CandleBridge,
  request: QuoteRequest,
  point: PricePoint,
  index: number,
): RecordedQuoteJson {
  const { pair, model } = options
  const destChainId = request.destChainId ?? request.chainId
  const [src, dest] = request.chainId === pair.chainId ? [pair.quote, bridge.token] : [bridge.token, pair.quote]
  const amounts = modelBridgeAmounts(bridge, request.amount, src.decimals, dest.decimals)
  // The quote token is taken at par.
  const usd = (amount: bigint, decimals: number) => formatDecimal(amount, decimals, 6)
  const token = (chainId: number, address: Address) => ({ chainId, address: address.toLowerCase() as Address })
  const tokenAmount = (chainId: number, address: Address, amount: bigint, decimals: number) => ({
    token: token(chainId, address),
    amount: amount.toString(),
    amountUSD: usd(amount, decimals),
  })
  const input = tokenAmount(request.chainId, src.address, request.amount, src.decimals)
  const output = tokenAmount(destChainId, dest.address, amounts.delivered, dest.decimals)
  const fee = tokenAmount(destChainId, dest.address, amounts.fee, dest.decimals)
  const feePercent = bpsToPercent(model.deltaFeeBps)
  return {
    time: point.time,
    requestedAt: point.time,
    key: quoteRequestKey(request),
    source: 'delta',
    chainId: request.chainId,
    destChainId,
    srcToken: src.address,
    srcDecimals: src.decimals,
    destToken: dest.address,
    destDecimals: dest.decimals,
    side: 'SELL',
    amount: request.amount.toString(),
    srcAmount: request.amount.toString(),
    destAmount: amounts.delivered.toString(),
    gas: { usd: '0', wei: '0' },
    fees: {
      partnerPercent: feePercent,
      bridge: [{ chainId: destChainId, token: fee.token.address, amount: fee.amount, usd: fee.amountUSD }],
    },
    answer: {
      source: 'delta',
      price: {
        id: `${modelName}-${point.time}-${index}`,
        side: 'SELL',
        inputToken: token(request.chainId, src.address),
        outputToken: token(destChainId, dest.address),
        route: {
          origin: { input, output: input },
          destination: { input: output, output },
          bridge: {
            protocol: modelName,
            estimatedTimeMs: bridge.estimatedSeconds * 1000,
            tags: ['recommended', 'fastest', 'best-return'],
            contractParams: {
              protocolSelector: bridgeProtocolSelector,
              outputToken: dest.address.toLowerCase(),
              scalingFactor: dest.decimals - src.decimals,
              protocolData: '0x',
            },
          },
          fees: { gas: { token: token(request.chainId, nativeTokenPlaceholder), amount: '0', amountUSD: '0' }, bridge: [fee] },
        },
        alternatives: [],
        partner: { name: 'anon', feePercent },
        spender: deltaAddress,
      },
    },
  }
}

const modelName = 'candle-model'
/** Not a real bridge's: the first 4 bytes of keccak256("candle-model"). */
const bridgeProtocolSelector = keccak256(stringToHex(modelName)).slice(0, 10)

/** 1 bps → 0.01 (percent), exact to the 2 decimals of bps the model allows. */
function bpsToPercent(bps: number): number {
  return Math.round(bps * 100) / 10_000
}

/** Writing a quote set failed (file exists, disk full, directory gone). Operational. */
export class QuoteSetFileError extends BaseError {
  override name = 'QuoteSetFileError' as const
  constructor(shortMessage: string, file: string, cause?: unknown) {
    super(shortMessage, {
      details: { file },
      cause,
      errorClass: 'operational',
      hint: 'Check the path and the free disk space; an existing file is replaced only when asked (deltaflow quotes from-candles --overwrite).',
    })
  }
}

export type WriteQuotesFromCandlesParameters = CandleQuoteSetOptions & {
  /** The candle CSV. */
  candles: string
  /** The quote set; gzip-compressed when the name ends in `.gz`. */
  out: string
  /** Replace an existing file (default: refuse). */
  overwrite?: boolean | undefined
}

export type WriteQuotesFromCandlesResult = {
  file: string
  quotes: number
  candles: number
  intervalMs: number
  /** Times of the first and the last quote (unix ms). */
  firstTime: number
  lastTime: number
}

/**
 * Writes the quote set of a candle file: the header (startedAt = the first candle's open time; meta names the candle
 * file, its sha256 and every model parameter) and then every candle's quote lines, with backpressure, so any length
 * of file runs in constant memory. The same inputs give a byte-identical file. On failure the partial file is removed.
 *
 * @example
 * await writeQuotesFromCandles({ candles: 'ethusdt-5m-binance.csv', out: 'eth.jsonl.gz', pair, sizes, sides: ['SELL', 'BUY'],
 *   sources: ['market', 'delta'], model: defaultCandleQuoteModel })
 */
export async function writeQuotesFromCandles(parameters: WriteQuotesFromCandlesParameters): Promise<WriteQuotesFromCandlesResult> {
  const { candles: csv, out } = parameters
  const candlesSha256 = await sha256OfFile(csv)
  const handle = await open(out, parameters.overwrite ? 'w' : 'wx').catch((error: unknown) => {
    throw new QuoteSetFileError('cannot create the quote set', out, error)
  })
  const sink = openSink(handle, out)
  let quotes = 0
  let candleCount = 0
  let first: CandleQuotes | undefined
  let lastTime = 0
  try {
    for await (const candle of generateCandleQuotes(csv, parameters)) {
      if (!first) {
        first = candle
        const header: RecordedQuotesHeader = {
          format: recordedQuotesFormat,
          version: recordedQuotesVersion,
          startedAt: candle.candle.openTime,
          meta: quoteSetMeta(parameters, basename(csv), candlesSha256, candle.intervalMs),
        }
        await sink.write(`${JSON.stringify(header)}\n`)
      }
      candleCount++
      quotes += candle.lines.length
      lastTime = candle.lines.at(-1)?.time ?? lastTime
      await sink.write(candle.lines.map((line) => `${JSON.stringify(line)}\n`).join(''))
    }
    if (!first) {
      throw new CandleCsvError(
        csv,
        undefined,
        `no candle opens between ${describeTime(parameters.from)} and ${describeTime(parameters.to)}`,
      )
    }
    await sink.close()
  } catch (error) {
    await sink.abort()
    await rm(out, { force: true })
    throw error
  }
  return { file: out, quotes, candles: candleCount, intervalMs: first.intervalMs, firstTime: first.lines[0]?.time ?? 0, lastTime }
}

function quoteSetMeta(
  parameters: WriteQuotesFromCandlesParameters,
  candles: string,
  candlesSha256: string,
  intervalMs: number,
): NonNullable<RecordedQuotesHeader['meta']> {
  const { pair, model } = parameters
  const sizes = parameters.sizes.map((size) => `${formatUnits(size.amount, pair[size.token].decimals)} ${pair[size.token].symbol}`)
  return {
    generator: 'deltaflow quotes from-candles',
    candles,
    candlesSha256,
    intervalMs,
    ...(parameters.from !== undefined ? { from: new Date(parameters.from).toISOString() } : {}),
    ...(parameters.to !== undefined ? { to: new Date(parameters.to).toISOString() } : {}),
    chainId: pair.chainId,
    base: `${pair.base.symbol} ${pair.base.address}`,
    quote: `${pair.quote.symbol} ${pair.quote.address}`,
    sizes: sizes.join(','),
    sides: parameters.sides.join(','),
    sources: parameters.sources.join(','),
    ...model,
    ...(parameters.bridge ? bridgeMeta(pair, parameters.bridge) : {}),
  }
}

function bridgeMeta(pair: CandlePair, bridge: CandleBridge): NonNullable<RecordedQuotesHeader['meta']> {
  return {
    bridgeChainId: bridge.chainId,
    bridgeToken: `${bridge.token.symbol} ${bridge.token.address}`,
    bridgeSizes: bridge.sizes.map((size) => `${formatUnits(size, pair.quote.decimals)} ${pair.quote.symbol}`).join(','),
    bridgeFeeBps: bridge.feeBps,
    bridgeEstimatedSeconds: bridge.estimatedSeconds,
  }
}

function describeTime(time: number | undefined): string {
  return time === undefined ? 'the start' : new Date(time).toISOString()
}

async function sha256OfFile(file: string): Promise<string> {
  const hash = createHash('sha256')
  try {
    for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer)
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code
    if (code === 'ENOENT') throw new FileNotFoundError(file, 'exchange candles as CSV')
    throw new CandleCsvError(file, undefined, 'cannot read the file', error)
  }
  return hash.digest('hex')
}

type Sink = { write: (text: string) => Promise<void>; close: () => Promise<void>; abort: () => Promise<void> }

/** A writer that waits for the disk (and gzip) to drain, and reports a write failure on the next write or at close. */
function openSink(handle: FileHandle, file: string): Sink {
  const output = handle.createWriteStream()
  const gzip = file.endsWith('.gz') ? createGzip() : undefined
  const stream: Writable = gzip ?? output
  let failure: unknown
  const done = (gzip ? pipeline(gzip, output) : finished(output)).catch((error: unknown) => {
    failure = error
  })
  const fail = () => new QuoteSetFileError('writing the quote set failed', file, failure)
  return {
    write: async (text) => {
      if (failure !== undefined) throw fail()
      if (stream.write(text)) return
      let onDrain = () => {}
      const drained = new Promise<void>((resolve) => {
        onDrain = resolve
      })
      stream.once('drain', onDrain)
      // A failing stream never drains; `done` settles instead.
      await Promise.race([drained, done])
      stream.off('drain', onDrain)
      if (failure !== undefined) throw fail()
    },
    close: async () => {
      stream.end()
      await done
      if (failure !== undefined) throw fail()
    },
    abort: async () => {
      stream.destroy()
      output.destroy()
      await done
      await handle.close().catch(() => undefined)
    },
  }
}
