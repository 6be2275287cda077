import type { z } from 'zod'
import { type ActionAnswer, actionAnswerSchema } from '../runtime/console/action-answer.js'
import { errorAnswerSchema } from '../runtime/console/error-answer.js'

const tokenKey = 'deltaflow.console.token'

const tokenListeners: (() => void)[] = []

/** The console token the operator typed, kept for this browser tab only (sessionStorage). */
export const consoleToken = {
  get: (): string | undefined => sessionStorage.getItem(tokenKey) ?? undefined,
  set: (value: string): void => {
    if (value === '') sessionStorage.removeItem(tokenKey)
    else sessionStorage.setItem(tokenKey, value)
    if (value !== '') for (const listener of tokenListeners) listener()
  },
  /** Called each time a token is set (not when one is forgotten). */
  onSet: (listener: () => void): void => {
    tokenListeners.push(listener)
  },
}

/** The API refused a request, or answered something its schema does not allow. */
export class ConsoleApiError extends Error {
  override name = 'ConsoleApiError' as const
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

/** The Authorization header, when the page holds a token. */
export function authorization(): Record<string, string> {
  const token = consoleToken.get()
  return token ? { authorization: `Bearer ${token}` } : {}
}

/**
 * Whether reads (and the event stream) need the token: learnt from a read refused without one, as a console bound
 * beyond loopback refuses them. On loopback they never carry it, so a wrong token typed for an action is refused by
 * that action alone, and a read never forgets it meanwhile.
 */
let readsNeedToken = false

/** The Authorization header for a read: the token once reads need it, else none. */
export function readAuthorization(): Record<string, string> {
  return readsNeedToken ? authorization() : {}
}

/**
 * A read answered 401: without the token, reads need it from now on (true: ask for it or send the one held); with
 * it, the token was wrong (false: forget it and ask again).
 */
export function readRefused(sentToken: boolean): boolean {
  if (sentToken) return false
  readsNeedToken = true
  return true
}

function headers(extra: Record<string, string> = {}, read = false): Record<string, string> {
  return { accept: 'application/json', ...(read ? readAuthorization() : authorization()), ...extra }
}

async function answerOf<Schema extends z.ZodType>(response: Response, schema: Schema, what: string): Promise<z.output<Schema>> {
  const body: unknown = await response.json().catch(() => undefined)
  if (!response.ok) {
    const failed = actionAnswerSchema.safeParse(body)
    if (failed.success)
      throw new ConsoleApiError(response.status, `${what}: failed: ${String(failed.data.outcome?.error ?? 'no reason given')}`)
    const refusal = errorAnswerSchema.safeParse(body)
    const issues = refusal.success ? (refusal.data.issues ?? []).map((issue) => ` (${issue.where}: ${issue.message})`).join('') : ''
    throw new ConsoleApiError(response.status, `${what}: ${refusal.success ? refusal.data.error : `HTTP ${response.status}`}${issues}`)
  }
  const parsed = schema.safeParse(body)
  if (!parsed.success)
    throw new ConsoleApiError(response.status, `${what}: unexpected answer (${parsed.error.issues[0]?.message ?? 'invalid'})`)
  return parsed.data
}

/** GET `path` (under /api/), its answer checked against `schema`. */
export async function readApi<Schema extends z.ZodType>(path: string, schema: Schema): Promise<z.output<Schema>> {
  const sent = headers({}, true)
  const response = await fetch(path, { headers: sent })
  // A first refusal without the token: reads need it; sent again at once when the page holds one.
  if (response.status === 401 && readRefused('authorization' in sent) && consoleToken.get()) return readApi(path, schema)
  return answerOf(response, schema, `GET ${path}`)
}

/** POST an action with the console token and a fresh Idempotency-Key (a retry of the same click would reuse it). */
export async function postAction(path: string, body: Record<string, unknown> = {}): Promise<ActionAnswer> {
  const response = await fetch(path, {
    method: 'POST',
    headers: headers({ 'content-type': 'application/json', 'idempotency-key': `ui:${crypto.randomUUID()}` }),
    body: JSON.stringify(body),
  })
  return answerOf(response, actionAnswerSchema, `POST ${path}`)
}
