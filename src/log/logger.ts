import { createRequire } from 'node:module'
import pino, { type Logger, type LoggerOptions } from 'pino'
import type { PinoPretty } from 'pino-pretty'
import { BaseError } from '../errors/base.js'
import { withoutUrlSecrets } from '../errors/url-secrets.js'

export type { Logger }

/** Field names whose values never reach a log line, wherever they sit in the logged object. */
export const redactedKeys = ['privateKey', 'mnemonic', 'secret', 'secretKey', 'hmacSecret', 'apiKey', 'password', 'authorization']

const redactPaths = redactedKeys.flatMap((key) => [key, `*.${key}`, `*.*.${key}`, `headers["x-api-key"]`, `*.headers["x-api-key"]`])

/** The levels a logger takes, most verbose first; `silent` logs nothing. */
export const logLevels = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const

export type LogLevel = (typeof logLevels)[number]

/** A log level that is not one of logLevels (from --log-level or DELTAFLOW_LOG_LEVEL). Operational: fix the value. */
export class LogLevelError extends BaseError {
  override name = 'LogLevelError'
  constructor(level: string, source: string) {
    super(`${source}: expected a log level (${logLevels.join(', ')}), received "${level}"`, {
      hint: 'info is the default of a bot; warn keeps a one-off command quiet.',
      errorClass: 'operational',
    })
  }
}

/**
 * The level to log at: the command's flag, else DELTAFLOW_LOG_LEVEL, else `fallback`. A value that is not a level
 * throws LogLevelError naming where it came from.
 */
export function resolveLogLevel({
  flag,
  env = process.env,
  fallback = 'info',
}: {
  flag?: string | undefined
  env?: Readonly<Record<string, string | undefined>>
  fallback?: LogLevel
} = {}): LogLevel {
  if (flag !== undefined) return checkLogLevel(flag, '--log-level')
  const fromEnv = env.DELTAFLOW_LOG_LEVEL
  if (fromEnv !== undefined && fromEnv !== '') return checkLogLevel(fromEnv, 'DELTAFLOW_LOG_LEVEL')
  return fallback
}

function checkLogLevel(level: string, source: string): LogLevel {
  const normalised = level.trim().toLowerCase()
  if (!(logLevels as readonly string[]).includes(normalised)) throw new LogLevelError(level, source)
  return normalised as LogLevel
}

/**
 * The root logger: JSON lines on stderr (stdout stays free for command output), secrets redacted; `pretty` prints
 * readable colored lines instead (for a terminal). Units of work take `logger.child({ strategy, orderId })`; a child's
 * binding replaces its parent's of the same key (`unit: 'reconcile'` under `unit: 'bot'`), so every line has each key
 * once. A level that is not one of logLevels throws LogLevelError.
 */
export function createLogger(
  options: { level?: string | undefined; destination?: pino.DestinationStream | undefined; pretty?: boolean | undefined } = {},
): Logger {
  const loggerOptions: LoggerOptions = {
    level: options.level === undefined ? resolveLogLevel() : checkLogLevel(options.level, 'log level (--log-level or DELTAFLOW_LOG_LEVEL)'),
    redact: { paths: [...new Set(redactPaths)], censor: '[redacted]' },
    base: { app: 'deltaflow' },
    onChild: replaceRepeatedBindings,
    serializers: { err: serializeError },
  }
  if (options.pretty) {
    // Loaded for a terminal only (it is CommonJS, so synchronously): a bot logging JSON lines never loads its modules.
    const pretty = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty
    return pino(loggerOptions, pretty({ destination: 2, sync: true, ignore: 'pid,hostname,app', translateTime: 'HH:MM:ss.l' }))
  }
  return pino(loggerOptions, options.destination ?? pino.destination(2))
}

let silent: Logger | undefined

/**
 * A logger that logs nothing, made once per process: for what runs without a logger of the caller's (a backtest, an
 * optimiser trial, a test harness), which would otherwise build one (and its stderr stream) on every run.
 */
export function silentLogger(): Logger {
  silent ??= createLogger({ level: 'silent' })
  return silent
}

const { chindingsSym } = pino.symbols

/**
 * pino appends a child's bindings to its parent's serialised ones, so a key bound twice would appear twice on every
 * line (`"unit":"bot","unit":"reconcile"`). Keeps the last of each key, as written (redacted, bigints exact).
 */
function replaceRepeatedBindings(child: Logger): void {
  const holder = child as unknown as Record<symbol, unknown>
  const bindings = holder[chindingsSym]
  if (typeof bindings !== 'string') return
  const pairs = splitBindings(bindings)
  if (pairs === undefined) return
  const last = new Map(pairs.map((pair, index) => [pair.key, index]))
  if (last.size === pairs.length) return
  holder[chindingsSym] = pairs
    .filter((pair, index) => last.get(pair.key) === index)
    .map((pair) => pair.text)
    .join('')
}

/**
 * pino's serialised bindings (`,"key":value` repeated, each value JSON) as one entry per key, its text unchanged;
 * undefined if the text is not of that form (then it is left as it is).
 */
function splitBindings(text: string): { key: string; text: string }[] | undefined {
  const pairs: { key: string; text: string }[] = []
  let start = 0
  while (start < text.length) {
    if (text[start] !== ',' || text[start + 1] !== '"') return undefined
    const keyEnd = endOfString(text, start + 1)
    if (keyEnd === undefined || text[keyEnd] !== ':') return undefined
    const end = endOfValue(text, keyEnd + 1)
    pairs.push({ key: JSON.parse(text.slice(start + 1, keyEnd)) as string, text: text.slice(start, end) })
    start = end
  }
  return pairs
}

/** Index just past the JSON string opening at `open`. */
function endOfString(text: string, open: number): number | undefined {
  for (let index = open + 1; index < text.length; index += 1) {
    if (text[index] === '\\') index += 1
    else if (text[index] === '"') return index + 1
  }
  return undefined
}

/** Index of the comma ending the JSON value starting at `from` (or the text's end). */
function endOfValue(text: string, from: number): number {
  let depth = 0
  let index = from
  while (index < text.length) {
    const char = text[index]
    if (char === '"') {
      index = endOfString(text, index) ?? text.length
      continue
    }
    if (char === '{' || char === '[') depth += 1
    else if (char === '}' || char === ']') depth -= 1
    else if (char === ',' && depth === 0) return index
    index += 1
  }
  return index
}

/**
 * pino's error serialiser, with every URL in the error (message, stack, viem's `url` and request details, causes)
 * reduced to its scheme and host: RPC and API URLs carry keys in their path or query.
 */
function serializeError(error: unknown): unknown {
  return withoutUrlsDeep(error instanceof Error ? pino.stdSerializers.err(error) : error, 0)
}

function withoutUrlsDeep(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return withoutUrlSecrets(value)
  if (depth > 6 || value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((item) => withoutUrlsDeep(item, depth + 1))
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withoutUrlsDeep(item, depth + 1)]))
}
