import { BaseError } from '../errors/base.js'

/**
 * The database was written by a newer deltaflow (its schema version is above the newest migration this code knows).
 * Fatal: the bot refuses to start rather than misread or downgrade the journal; upgrade deltaflow or point it at another file.
 */
export class JournalVersionError extends BaseError {
  override name = 'JournalVersionError' as const
  constructor({ file, databaseVersion, codeVersion }: { file: string; databaseVersion: number; codeVersion: number }) {
    super(`journal ${file} has schema version ${databaseVersion}, newer than this deltaflow understands (${codeVersion})`, {
      details: { file, databaseVersion, codeVersion },
      hint: `upgrade deltaflow to a version whose journal schema is ${databaseVersion} or newer, or use another journal file`,
      errorClass: 'fatal',
    })
  }
}

/**
 * A record names something the journal does not hold (an order id, an intent id). Fatal: the caller broke the
 * write-before-effect order (for example a status for an order never recorded); the unit of work stops.
 */
export class JournalRecordNotFoundError extends BaseError {
  override name = 'JournalRecordNotFoundError' as const
  constructor({ kind, id }: { kind: string; id: string }) {
    super(`journal holds no ${kind} ${id}`, { details: { kind, id }, errorClass: 'fatal' })
  }
}

/**
 * A record contradicts one already stored under the same key (the same order hash under another local id, a fill
 * for another order). Fatal: ids are derived deterministically, so this is a bug, not a repeat after restart.
 */
export class JournalConflictError extends BaseError {
  override name = 'JournalConflictError' as const
  constructor(shortMessage: string, details: Record<string, unknown>) {
    super(shortMessage, { details, errorClass: 'fatal' })
  }
}

/**
 * A value the journal refuses to store as given (a transaction hash that is not 0x and 64 hex digits). Fatal: the
 * caller passed something that is not what the name says.
 */
export class JournalValueError extends BaseError {
  override name = 'JournalValueError' as const
  constructor(shortMessage: string, details: Record<string, unknown>) {
    super(shortMessage, { details, errorClass: 'fatal' })
  }
}

/** A foreign-key failure on an intent id means the intent was never recorded. */
export function rethrowMissingIntent(error: unknown, intentId: string): unknown {
  if (error instanceof Error && 'code' in error && error.code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
    return new JournalRecordNotFoundError({ kind: 'intent', id: intentId })
  }
  return error
}
