import type { z } from 'zod'
import { ApiError, commonErrors } from './api-error.js'

/**
 * Parses a request part with a zod schema; on failure answers 400 naming every bad field, e.g.
 * `Validation failed: query.amount: expected a decimal integer string, received "1.5"`.
 */
export function parseRequestPart<T extends z.ZodType>(schema: T, value: unknown, part: 'query' | 'body' | 'params'): z.infer<T> {
  const result = schema.safeParse(value ?? {})
  if (result.success) return result.data
  const problems = result.error.issues.map((issue) => {
    const path = [part, ...issue.path.map(String)].join('.')
    return `${path}: ${issue.message}`
  })
  throw new ApiError(commonErrors.validation, { message: `Validation failed: ${problems.join('; ')}` })
}
