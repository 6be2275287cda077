import { BaseError } from '../errors/base.js'

/**
 * Prints a command's failure (its typed message with the hint, or one JSON document with --json) and sets a
 * non-zero exit code. Returns undefined so callers can write `await x.catch(reportCommandError)`.
 */
export function reportCommandError(error: unknown, json: boolean | undefined): undefined {
  const message = error instanceof Error ? error.message : String(error)
  if (json) {
    const typed = error instanceof BaseError ? { name: error.name, shortMessage: error.shortMessage, hint: error.hint ?? null } : {}
    process.stdout.write(`${JSON.stringify({ error: { message, ...typed } })}\n`)
  } else {
    process.stderr.write(`error: ${message}\n`)
  }
  process.exitCode = 1
  return undefined
}
