import { type Command, InvalidArgumentError } from 'commander'
import { type Address, getAddress, isAddress, parseUnits } from 'viem'
import type { z } from 'zod'
import { parseCandleTime } from '../backtest/candle-csv.js'
import {
  type CandleBridge,
  type CandlePair,
  type CandleQuoteModel,
  type CandleQuoteSource,
  candleBridgeModelSchema,
  candleQuoteModelSchema,
  type PairToken,
  type QuoteSize,
} from '../backtest/candle-quote-model.js'
import { packRecordedQuotes } from '../backtest/quote-store.js'
import { writeQuotesFromCandles } from '../backtest/quotes-from-candles.js'
import { requireFile } from '../config/file-not-found.js'
import { tokenAddress, tokenCatalogue } from '../sandbox/chains/catalogue.js'
import { reportCommandError } from './command-errors.js'
import { descriptionOf } from './command-summaries.js'

type FromCandlesOptions = {
  out: string
  chain: number
  base: string
  quote: string
  sizes: string
  baseSizes?: string
  sides: string
  sources: string
  from?: string
  to?: string
  points?: string
  spreadBps?: string
  depthUsd?: string
  gasUnits?: string
  gasUsd?: string
  marketFeeBps?: string
  deltaImprovementBps?: string
  deltaFeeBps?: string
  maxImpactPercent?: string
  bridgeChain?: number
  bridgeSizes?: string
  bridgeFeeBps?: string
  bridgeSeconds?: string
  overwrite?: boolean
  json?: boolean
}

/** Model parameters and their flags (numbers unless listed in textParameters). */
const modelFlags = {
  points: ['points', '--points'],
  spreadBps: ['spreadBps', '--spread-bps'],
  depthUsd: ['depthUsd', '--depth-usd'],
  marketGasUnits: ['gasUnits', '--gas-units'],
  marketGasUsd: ['gasUsd', '--gas-usd'],
  marketFeeBps: ['marketFeeBps', '--market-fee-bps'],
  deltaImprovementBps: ['deltaImprovementBps', '--delta-improvement-bps'],
  deltaFeeBps: ['deltaFeeBps', '--delta-fee-bps'],
  maxImpactPercent: ['maxImpactPercent', '--max-impact-percent'],
} as const satisfies Record<keyof CandleQuoteModel, readonly [keyof FromCandlesOptions, string]>

const textParameters: ReadonlySet<string> = new Set<keyof CandleQuoteModel>(['points', 'marketGasUsd'])

export function registerQuotesCommand(program: Command): void {
  const quotes = program.command('quotes').description(descriptionOf('quotes'))
  quotes
    .command('from-candles')
    .description('build a recorded-quote set from exchange candles (CSV) with a spread and size-impact model (src/backtest/README.md)')
    .argument(
      '<csv>',
      'Binance klines as CSV, with or without a header: open_time (unix s, ms or µs, or ISO), open, high, low, close; prices are quote per base',
    )
    .requiredOption('--out <file>', 'the quote set (JSON Lines; gzip-compressed when it ends in .gz)')
    .option('--chain <id>', 'chain id of the quotes', parseChainId, 1)
    .option(
      '--base <token>',
      'base token: a symbol of the catalogue (WETH, WBTC, …) or an address (address:decimals if not listed)',
      'WETH',
    )
    .option('--quote <token>', 'quote token, as --base; the candles’ quote currency is taken at par with it', 'USDC')
    .option('--sizes <list>', 'request amounts in whole quote tokens, comma-separated', '1000,10000')
    .option('--base-sizes <list>', 'more request amounts, in whole base tokens, comma-separated')
    .option('--sides <list>', 'SELL: the size is the source amount; BUY: the destination amount', 'SELL,BUY')
    .option('--sources <list>', 'market, delta or both', 'market,delta')
    .option('--from <time>', 'only candles opening at or after this ISO time (a date alone is UTC midnight)')
    .option('--to <time>', 'only candles opening before this ISO time')
    .option('--points <ohlc|close>', 'price points per candle (default ohlc)')
    .option('--spread-bps <n>', 'full bid–ask spread, bps; each trade pays half (default 10)')
    .option('--depth-usd <n>', 'constant-product-like depth per side, USD: impact = q / (q + depth) (default 20000000)')
    .option('--gas-units <n>', 'gas estimate of a Market swap (default 150000)')
    .option('--gas-usd <usd>', 'gas cost of a Market swap, USD (default 0.30)')
    .option('--market-fee-bps <n>', 'partner fee stated on Market routes, bps (default 1)')
    .option('--delta-improvement-bps <n>', 'Delta price better than Market by this, bps (default 5)')
    .option('--delta-fee-bps <n>', 'partner fee stated on Delta prices, bps (default 1)')
    .option('--max-impact-percent <n>', 'maxImpactReached above this impact, percent (default 15)')
    .option(
      '--bridge-chain <id>',
      'also quote crosschain Delta SELLs of the quote token to this chain and back (rate 1 − bridge fee)',
      parseChainId,
    )
    .option('--bridge-sizes <list>', 'crosschain amounts in whole quote tokens, comma-separated (default 1000,100000,1000000)')
    .option('--bridge-fee-bps <n>', 'bridge fee, bps of the bridged amount (default 5)')
    .option('--bridge-seconds <n>', 'estimated bridge time the routes state, seconds (default 120)')
    .option('--overwrite', 'replace an existing file')
    .option('--json', 'print one JSON line with the file and the counts')
    .action(async (csv: string, options: FromCandlesOptions) => {
      await fromCandles(csv, options).catch((error: unknown) => reportCommandError(error, options.json))
    })
  quotes
    .command('pack')
    .description(
      'pack a recording into a SQLite quote store, which backtests replay about a hundred times faster (src/backtest/quote-store.md)',
    )
    .argument('<recording>', 'a recording: .jsonl or .jsonl.gz')
    .requiredOption('--out <file>', 'the store (.sqlite)')
    .option('--no-answers', "drop the service's answers (a third of the size; answers are then rebuilt from the amounts)")
    .option('--overwrite', 'replace an existing store')
    .option('--json', 'print one JSON line with the counts')
    .action(async (input: string, options: PackOptions) => {
      await pack(input, options).catch((error: unknown) => reportCommandError(error, options.json))
    })
}

type PackOptions = { out: string; answers: boolean; overwrite?: boolean; json?: boolean }

async function pack(input: string, options: PackOptions): Promise<void> {
  requireFile(input, 'a recording (.jsonl or .jsonl.gz)')
  const result = await packRecordedQuotes({
    input,
    output: options.out,
    keepAnswers: options.answers,
    overwrite: options.overwrite === true,
  })
  process.stdout.write(
    options.json ? `${JSON.stringify(result)}\n` : `packed ${result.quotes} quotes into ${result.blocks} blocks: ${result.output}\n`,
  )
}

async function fromCandles(csv: string, options: FromCandlesOptions): Promise<void> {
  const pair: CandlePair = {
    chainId: options.chain,
    base: resolvePairToken(options.chain, options.base, '--base'),
    quote: resolvePairToken(options.chain, options.quote, '--quote'),
  }
  if (pair.base.address === pair.quote.address) throw new InvalidArgumentError('--base and --quote name the same token')
  const sizes: QuoteSize[] = [
    ...parseSizes(options.sizes, pair.quote, '--sizes').map((amount) => ({ token: 'quote' as const, amount })),
    ...(options.baseSizes === undefined ? [] : parseSizes(options.baseSizes, pair.base, '--base-sizes')).map((amount) => ({
      token: 'base' as const,
      amount,
    })),
  ]
  requireFile(csv, 'exchange candles as CSV')
  const result = await writeQuotesFromCandles({
    candles: csv,
    out: options.out,
    overwrite: options.overwrite === true,
    pair,
    sizes,
    sides: parseList(options.sides, ['SELL', 'BUY'] as const, '--sides', (item) => item.toUpperCase()),
    sources: parseList<CandleQuoteSource>(options.sources, ['market', 'delta'], '--sources', (item) => item.toLowerCase()),
    model: parseModel(options),
    from: options.from === undefined ? undefined : parseTime(options.from, '--from'),
    to: options.to === undefined ? undefined : parseTime(options.to, '--to'),
    bridge: parseBridge(options, pair),
  })
  const summary = {
    file: result.file,
    quotes: result.quotes,
    candles: result.candles,
    intervalMs: result.intervalMs,
    from: new Date(result.firstTime).toISOString(),
    to: new Date(result.lastTime).toISOString(),
  }
  process.stdout.write(
    options.json
      ? `${JSON.stringify(summary)}\n`
      : `wrote ${summary.quotes} quotes from ${summary.candles} candles (${summary.from} → ${summary.to}) to ${summary.file}\n`,
  )
}

function parseModel(options: FromCandlesOptions): CandleQuoteModel {
  return parseFlagged(candleQuoteModelSchema, modelFlags, options, textParameters)
}

/**
 * The parameters given by flags, checked by their schema (which supplies the defaults). Numbers unless named in
 * `text`; a bad value names its flag.
 */
function parseFlagged<Schema extends z.ZodType>(
  schema: Schema,
  flags: Record<string, readonly [keyof FromCandlesOptions, string]>,
  options: FromCandlesOptions,
  text: ReadonlySet<string> = new Set(),
): z.output<Schema> {
  const input: Record<string, unknown> = {}
  for (const [parameter, [option, flag]] of Object.entries(flags)) {
    const value = options[option]
    if (typeof value !== 'string') continue
    if (text.has(parameter)) input[parameter] = value
    else if (/^\d+(\.\d+)?$/.test(value)) input[parameter] = Number(value)
    else throw new InvalidArgumentError(`${flag} expects a non-negative number, received "${value}"`)
  }
  const parsed = schema.safeParse(input)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  const parameter = String(issue?.path[0] ?? '')
  throw new InvalidArgumentError(`${flags[parameter]?.[1] ?? parameter} ${String(input[parameter] ?? '')}: ${issue?.message ?? 'invalid'}`)
}

const bridgeFlags = { feeBps: ['bridgeFeeBps', '--bridge-fee-bps'], estimatedSeconds: ['bridgeSeconds', '--bridge-seconds'] } as const

/** The crosschain options: the quote token's catalogue twin on --bridge-chain, its sizes and the bridge model. */
function parseBridge(options: FromCandlesOptions, pair: CandlePair): CandleBridge | undefined {
  const chainId = options.bridgeChain
  if (chainId === undefined) {
    const given = {
      '--bridge-sizes': options.bridgeSizes,
      '--bridge-fee-bps': options.bridgeFeeBps,
      '--bridge-seconds': options.bridgeSeconds,
    }
    const stray = Object.entries(given).flatMap(([flag, value]) => (value === undefined ? [] : [flag]))
    if (stray.length > 0)
      throw new InvalidArgumentError(
        `${stray.join(', ')} ${stray.length > 1 ? 'need' : 'needs'} --bridge-chain, the chain to quote transfers to`,
      )
    return undefined
  }
  if (chainId === pair.chainId)
    throw new InvalidArgumentError(`--bridge-chain ${chainId} is the quotes' own chain (--chain); expected another`)
  if (!tokenCatalogue.some((spec) => spec.symbol === pair.quote.symbol)) {
    throw new InvalidArgumentError(
      `--bridge-chain needs a catalogue quote token (${tokenCatalogue.map((spec) => spec.symbol).join(', ')}), received ${pair.quote.symbol}`,
    )
  }
  return {
    ...parseFlagged(candleBridgeModelSchema, bridgeFlags, options),
    chainId,
    token: resolvePairToken(chainId, pair.quote.symbol, '--quote'),
    sizes: parseSizes(options.bridgeSizes ?? '1000,100000,1000000', pair.quote, '--bridge-sizes'),
  }
}

/** A catalogue symbol (WETH, USDC, USDT, WBTC, DAI), a catalogue address, or `address:decimals`. */
function resolvePairToken(chainId: number, name: string, flag: string): PairToken {
  const [text = '', decimalsText] = name.split(':')
  const listed = tokenCatalogue.find((spec) =>
    isAddress(text, { strict: false })
      ? tokenAddress(spec, chainId).toLowerCase() === text.toLowerCase()
      : spec.symbol.toUpperCase() === text.toUpperCase(),
  )
  if (listed && decimalsText === undefined)
    return { symbol: listed.symbol, address: tokenAddress(listed, chainId), decimals: listed.decimals }
  if (isAddress(text, { strict: false }) && decimalsText !== undefined && /^\d{1,2}$/.test(decimalsText) && Number(decimalsText) <= 36) {
    const address: Address = getAddress(text)
    return { symbol: `${address.slice(0, 6)}…${address.slice(-4)}`, address, decimals: Number(decimalsText) }
  }
  throw new InvalidArgumentError(
    `${flag} ${name}: expected one of ${tokenCatalogue.map((spec) => spec.symbol).join(', ')}, their address on chain ${chainId}, or address:decimals for another token`,
  )
}

function parseSizes(value: string, token: PairToken, flag: string): bigint[] {
  const sizes = value.split(',').map((part) => part.trim())
  return sizes.map((size) => {
    const fraction = size.split('.')[1] ?? ''
    if (!/^\d+(\.\d+)?$/.test(size) || fraction.length > token.decimals) {
      throw new InvalidArgumentError(
        `${flag} expects amounts of ${token.symbol} (at most ${token.decimals} decimals) such as 1000,10000, received "${value}"`,
      )
    }
    const amount = parseUnits(size, token.decimals)
    if (amount === 0n) throw new InvalidArgumentError(`${flag}: every size must be above 0, received "${value}"`)
    return amount
  })
}

function parseList<T extends string>(value: string, allowed: readonly T[], flag: string, normalise: (item: string) => string): T[] {
  const items = value.split(',').map((item) => normalise(item.trim()))
  const bad = items.filter((item) => !(allowed as readonly string[]).includes(item))
  if (bad.length > 0 || items.length === 0)
    throw new InvalidArgumentError(`${flag} expects a comma-separated list of ${allowed.join(', ')}, received "${value}"`)
  if (new Set(items).size !== items.length) throw new InvalidArgumentError(`${flag}: "${value}" names an item twice`)
  return items as T[]
}

function parseTime(value: string, flag: string): number {
  const time = parseCandleTime(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value)
  if (time === undefined) {
    throw new InvalidArgumentError(`${flag} expects an ISO time with a zone (2026-03-01T12:00:00Z) or a date, received "${value}"`)
  }
  return time
}

function parseChainId(value: string): number {
  const chainId = Number(value)
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(chainId) || chainId <= 0) {
    throw new InvalidArgumentError(`expected a positive chain id such as 1, received "${value}"`)
  }
  return chainId
}
