import { CommanderError } from 'commander'
import { FileNotFoundError } from '../config/file-not-found.js'
import { BaseError } from '../errors/base.js'
import { LogLevelError } from '../log/logger.js'

/** Exit codes: 1 when the work failed, 2 when the command line was wrong (nothing was started). */
export const exitCodes = { failure: 1, usage: 2 } as const

/** A flag or argument that cannot be used, found by a command itself. Exit code 2. */
export class CommandUsageError extends BaseError {
  override name = 'CommandUsageError'
  constructor(message: string, hint?: string) {
    super(message, { hint, errorClass: 'operational' })
  }
}

/**
 * Whether an error means the command line was wrong: a bad flag value (commander's InvalidArgumentError, which the
 * option parsers throw), a missing file it names, a log level that is not one.
 */
export function isUsageError(error: unknown): boolean {
  return (
    error instanceof CommanderError ||
    error instanceof CommandUsageError ||
    error instanceof FileNotFoundError ||
    error instanceof LogLevelError
  )
}

/**
 * Prints a command's failure (its typed message with the hint, or one JSON document with --json) and sets the exit
 * code: 2 for a usage error, else 1. Returns undefined so callers can write `await x.catch(reportCommandError)`.
 */
export function reportCommandError(error: unknown, json: boolean | undefined): undefined {
  const message = error instanceof Error ? error.message : String(error)
  if (json) {
    const typed = error instanceof BaseError ? { name: error.name, shortMessage: error.shortMessage, hint: error.hint ?? null } : {}
    process.stdout.write(`${JSON.stringify({ error: { message, ...typed } })}\n`)
  } else {
    process.stderr.write(`error: ${message}\n`)
  }
  process.exitCode = isUsageError(error) ? exitCodes.usage : exitCodes.failure
  return undefined
}
