import type { z } from 'zod'
import { BaseError } from '../../errors/base.js'
import { type MakerCredentials, makerAuthHeaders } from '../../protocol/maker-auth.js'
import type { Clock } from '../../time/clock.js'

/** Why a maker request failed: the maker was unreachable or slow, answered an error, or answered something unusable. */
export type MakerFailureKind = 'unreachable' | 'timeout' | 'status' | 'non-json' | 'invalid'

/** A maker request that did not produce a valid payload. Operational: the maker is taken out of routing for a while. */
export class MakerRequestError extends BaseError {
  override name = 'MakerRequestError'
  readonly kind: MakerFailureKind
  /** The HTTP status when the maker answered. */
  readonly status: number | undefined

  constructor(message: string, { kind, status, cause }: { kind: MakerFailureKind; status?: number | undefined; cause?: unknown }) {
    super(message, { cause, errorClass: 'operational' })
    this.kind = kind
    this.status = status
  }
}

/** Where and as whom the sandbox calls one maker. */
export type MakerEndpoint = {
  /** Base URL of the maker on one chain; its path is a prefix of every endpoint (and of the signed path). */
  baseUrl: URL
  credentials?: MakerCredentials | undefined
  /** Wall clock: the maker checks the auth timestamp against its own clock. */
  wallClock: Clock
}

export type RequestMakerParameters<T extends z.ZodType> = {
  method: 'GET' | 'POST'
  /** Endpoint path relative to the base URL, e.g. `/prices`. */
  path: string
  /** POST only: serialised once, so the signed bytes are the sent bytes. */
  body?: unknown
  schema: T
  timeoutMs: number
  /** Aborts the request (the maker was removed or the sandbox stops). */
  signal?: AbortSignal | undefined
}

/**
 * One signed request to a maker (section 5 of the maker document: the four X-AUTH headers over timestamp, method,
 * full path with the base URL's prefix, no query, and the body as sent). Resolves with the parsed payload; throws
 * MakerRequestError for a network failure, a timeout, an error status, a non-JSON body or a payload the schema refuses.
 */
export async function requestMaker<T extends z.ZodType>(
  endpoint: MakerEndpoint,
  { method, path, body, schema, timeoutMs, signal }: RequestMakerParameters<T>,
): Promise<z.output<T>> {
  const fullPath = `${endpoint.baseUrl.pathname.replace(/\/+$/, '')}${path}`
  const text = method === 'POST' ? JSON.stringify(body ?? {}) : undefined
  const headers: Record<string, string> = { accept: 'application/json' }
  if (text !== undefined) headers['content-type'] = 'application/json'
  if (endpoint.credentials) {
    Object.assign(
      headers,
      makerAuthHeaders(endpoint.credentials, { nowMs: endpoint.wallClock.now(), method, path: fullPath, body: text ?? '' }),
    )
  }
  const where = `${method} ${fullPath}`
  let response: Response
  let answer: string
  try {
    response = await fetch(`${endpoint.baseUrl.origin}${fullPath}`, {
      method,
      headers,
      ...(text === undefined ? {} : { body: text }),
      signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs),
    })
    answer = await response.text()
  } catch (cause) {
    if (signal?.aborted) throw new MakerRequestError(`${where} was cancelled`, { kind: 'unreachable', cause })
    const timedOut = cause instanceof Error && (cause.name === 'TimeoutError' || cause.name === 'AbortError')
    if (timedOut) throw new MakerRequestError(`${where} timed out after ${timeoutMs} ms`, { kind: 'timeout', cause })
    throw new MakerRequestError(`${where} failed: ${describeCause(cause)}`, { kind: 'unreachable', cause })
  }
  let json: unknown
  try {
    json = JSON.parse(answer)
  } catch {
    json = undefined
  }
  if (!response.ok) {
    const error = typeof (json as { error?: unknown } | undefined)?.error === 'string' ? (json as { error: string }).error : clip(answer)
    throw new MakerRequestError(`${where} answered ${response.status}: ${error || '(empty body)'}`, {
      kind: 'status',
      status: response.status,
    })
  }
  if (json === undefined) {
    throw new MakerRequestError(`${where} answered a body that is not JSON: ${clip(answer) || '(empty)'}`, { kind: 'non-json' })
  }
  const parsed = schema.safeParse(json)
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.map(String).join('.') || '(body)'}: ${issue.message}`)
    throw new MakerRequestError(`${where} answered an invalid payload: ${problems.slice(0, 5).join('; ')}`, { kind: 'invalid' })
  }
  return parsed.data
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text
}

function describeCause(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause)
  const inner = cause.cause instanceof Error ? `: ${cause.cause.message}` : ''
  return `${cause.message}${inner}`
}
