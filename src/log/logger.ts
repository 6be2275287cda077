import pino, { type Logger, type LoggerOptions } from 'pino'
import pretty from 'pino-pretty'
import { BaseError } from '../errors/base.js'

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
 * readable colored lines instead (for a terminal). Units of work take `logger.child({ strategy, orderId })`. A level
 * that is not one of logLevels throws LogLevelError.
 */
export function createLogger(options: { level?: string; destination?: pino.DestinationStream; pretty?: boolean } = {}): Logger {
  const loggerOptions: LoggerOptions = {
    level: options.level === undefined ? resolveLogLevel() : checkLogLevel(options.level, 'log level (--log-level or DELTAFLOW_LOG_LEVEL)'),
    redact: { paths: [...new Set(redactPaths)], censor: '[redacted]' },
    base: { app: 'deltaflow' },
  }
  if (options.pretty) {
    return pino(loggerOptions, pretty({ destination: 2, sync: true, ignore: 'pid,hostname,app', translateTime: 'HH:MM:ss.l' }))
  }
  return pino(loggerOptions, options.destination ?? pino.destination(2))
}
