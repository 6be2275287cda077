import pino, { type Logger, type LoggerOptions } from 'pino'
import pretty from 'pino-pretty'

export type { Logger }

/** Field names whose values never reach a log line, wherever they sit in the logged object. */
export const redactedKeys = ['privateKey', 'mnemonic', 'secret', 'secretKey', 'hmacSecret', 'apiKey', 'password', 'authorization']

const redactPaths = redactedKeys.flatMap((key) => [key, `*.${key}`, `*.*.${key}`, `headers["x-api-key"]`, `*.headers["x-api-key"]`])

/**
 * The root logger: JSON lines on stderr (stdout stays free for command output), secrets redacted; `pretty` prints
 * readable colored lines instead (for a terminal). Units of work take `logger.child({ strategy, orderId })`.
 */
export function createLogger(options: { level?: string; destination?: pino.DestinationStream; pretty?: boolean } = {}): Logger {
  const loggerOptions: LoggerOptions = {
    level: options.level ?? process.env.DELTAFLOW_LOG_LEVEL ?? 'info',
    redact: { paths: [...new Set(redactPaths)], censor: '[redacted]' },
    base: { app: 'deltaflow' },
  }
  if (options.pretty) {
    return pino(loggerOptions, pretty({ destination: 2, sync: true, ignore: 'pid,hostname,app', translateTime: 'HH:MM:ss.l' }))
  }
  return pino(loggerOptions, options.destination ?? pino.destination(2))
}
