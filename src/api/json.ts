import { z } from 'zod'
import { issueMessage } from '../domain/wire-fields.js'

/** A JSON value exactly as the service sent it (the output of JSON.parse). */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | JsonObject
export type JsonObject = { readonly [key: string]: JsonValue }

export function isJsonValue(value: unknown): value is JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true
  if (typeof value === 'number') return Number.isFinite(value)
  if (Array.isArray(value)) return value.every(isJsonValue)
  return isJsonObject(value)
}

export function isJsonObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const prototype = Object.getPrototypeOf(value)
  if (prototype !== Object.prototype && prototype !== null) return false
  return Object.values(value).every(isJsonValue)
}

/** A JSON object kept as it is (no copy, no key reordering): for payloads that go back to the service verbatim. */
export const jsonObjectSchema = z.custom<JsonObject>(isJsonObject, { error: 'expected a JSON object' })

/**
 * Checks that `value` is JSON and freezes it in place, in one walk, so that a payload that must go back unmodified
 * cannot be edited by accident. A value found not to be JSON is left partly frozen.
 */
function freezeJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && freezeJsonValue(value)
}

function freezeJsonValue(value: unknown): value is JsonValue {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return isJsonValue(value)
  if (Array.isArray(value)) {
    for (const inner of value) if (!freezeJsonValue(inner)) return false
  } else {
    const prototype = Object.getPrototypeOf(value)
    if (prototype !== Object.prototype && prototype !== null) return false
    for (const key in value) if (!freezeJsonValue((value as Record<string, unknown>)[key])) return false
  }
  Object.freeze(value)
  return true
}

/**
 * Parses a JSON object with `schema` for the typed view and keeps the object itself, frozen, as `raw`: the bytes the
 * service must receive back (route integrity checks reject re-encoded numbers, reordered keys and dropped fields).
 * Issues of `schema` keep their paths and messages.
 */
export function withRaw<S extends z.ZodType<object>>(schema: S) {
  return z.unknown().transform((value, context): z.output<S> & { readonly raw: JsonObject } => {
    const parsed = schema.safeParse(value, { reportInput: true })
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        context.addIssue({ code: 'custom', message: issueMessage(issue), path: issue.path, input: issue.input })
      return z.NEVER
    }
    if (!freezeJsonObject(value)) {
      context.addIssue({ code: 'custom', message: 'expected a JSON object', input: value })
      return z.NEVER
    }
    return { ...parsed.data, raw: value }
  })
}
