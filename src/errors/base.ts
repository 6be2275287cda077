/**
 * How the bot reacts to an error:
 * - `retryable`: a transient fault (network, 429, 5xx); the same call may succeed later.
 * - `operational`: the world is not as the request assumed (allowance, balance, stale quote); the caller must change something.
 * - `fatal`: a bug or a broken invariant; stop the unit of work and report it.
 */
export type ErrorClass = 'retryable' | 'operational' | 'fatal'

export type BaseErrorParameters = {
  /** Structured facts for logs and tests (never secrets). */
  details?: Record<string, unknown> | undefined
  cause?: unknown
  /** What the user can do about it. */
  hint?: string | undefined
  errorClass?: ErrorClass | undefined
}

/** Root of every error deltaflow throws on purpose. */
export class BaseError extends Error {
  override name = 'BaseError'
  readonly shortMessage: string
  readonly details: Record<string, unknown>
  readonly hint: string | undefined
  readonly errorClass: ErrorClass

  constructor(shortMessage: string, parameters: BaseErrorParameters = {}) {
    const lines = [shortMessage]
    if (parameters.details && Object.keys(parameters.details).length > 0) {
      for (const [key, value] of Object.entries(parameters.details)) lines.push(`  ${key}: ${formatDetail(value)}`)
    }
    if (parameters.hint) lines.push(`  hint: ${parameters.hint}`)
    if (parameters.cause instanceof Error) lines.push(`  cause: ${parameters.cause.message.split('\n')[0]}`)
    super(lines.join('\n'), parameters.cause === undefined ? undefined : { cause: parameters.cause })
    this.shortMessage = shortMessage
    this.details = parameters.details ?? {}
    this.hint = parameters.hint
    this.errorClass = parameters.errorClass ?? 'fatal'
  }

  /** Walks the cause chain; returns the first error matching `predicate`, or the deepest cause without one. */
  walk(predicate?: (error: unknown) => boolean): unknown {
    let current: unknown = this
    while (current instanceof Error) {
      if (predicate?.(current)) return current
      if (current.cause === undefined) return predicate ? undefined : current
      current = current.cause
    }
    return predicate ? (predicate(current) ? current : undefined) : current
  }
}

function formatDetail(value: unknown): string {
  if (typeof value === 'bigint') return value.toString()
  if (typeof value === 'string') return value
  return JSON.stringify(value, (_key, inner) => (typeof inner === 'bigint' ? inner.toString() : inner))
}
