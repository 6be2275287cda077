import type { z } from 'zod'
import { issueMessage } from '../domain/wire-fields.js'
import { ApiResponseError } from './errors.js'

/**
 * Parses a 2xx answer of `endpoint` with its schema; throws ApiResponseError naming every bad field by its path
 * (`priceRoute.destAmount: expected a decimal integer string, received 12.5`).
 */
export function parseApiResponse<S extends z.ZodType>(schema: S, json: unknown, endpoint: string, status?: number): z.output<S> {
  const result = schema.safeParse(json, { reportInput: true })
  if (result.success) return result.data
  throw new ApiResponseError({ endpoint, ...(status === undefined ? {} : { status }), problems: result.error.issues.map(formatIssue) })
}

/** One line per issue: the field's path, then what was expected and received. */
export function formatIssue(issue: z.core.$ZodIssue): string {
  return `${formatPath(issue.path)}: ${issueMessage(issue)}`
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'answer'
  return path.map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`)).join('')
}
