import { z } from 'zod'
import type { ConsoleRoute } from './console-route.js'
import { errorAnswerSchema } from './error-answer.js'

type JsonSchema = Record<string, unknown> & { properties?: Record<string, unknown>; required?: string[] }

/** The OpenAPI 3.1 schema of a zod schema (JSON Schema 2020-12, as `deltaflow schema` makes the config's). */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema
  return rest
}

function parametersOf(schema: z.ZodType, where: 'path' | 'query') {
  const { properties = {}, required = [] } = jsonSchemaOf(schema, 'input')
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || required.includes(name),
    schema: property,
  }))
}

const statusText: Record<number, string> = {
  400: 'invalid request (each issue names where)',
  401: 'no bearer token, or a wrong one',
  403: 'cross-origin action, or actions without a configured token',
  404: 'not found',
  409: 'the idempotency key was used for another action',
  429: 'too many actions (Retry-After says when to try again)',
  500: 'the action failed (journaled with its error)',
}

/** An extra path documented by hand (the event stream answers text/event-stream). */
export type DocumentedPath = { path: string; method: 'get'; operation: Record<string, unknown> }

/** The OpenAPI 3.1 document of the console, generated from the routes' own schemas. */
export function openApiDocumentOf(routes: readonly ConsoleRoute[], extra: readonly DocumentedPath[]) {
  const paths: Record<string, Record<string, unknown>> = {}
  const error = { 'application/json': { schema: jsonSchemaOf(errorAnswerSchema, 'output') } }
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}')
    const refusals = [400, 401, ...(route.action ? [403, 429] : []), ...(route.refusals ?? [])]
    const bodyProperties = jsonSchemaOf(route.body, 'input').properties ?? {}
    paths[path] ??= {}
    ;(paths[path] as Record<string, unknown>)[route.method.toLowerCase()] = {
      summary: route.summary,
      ...(route.action ? { security: [{ bearer: [] }] } : {}),
      parameters: [
        ...parametersOf(route.params, 'path'),
        ...parametersOf(route.query, 'query'),
        ...(route.action
          ? [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', pattern: '^[\\w.:-]{8,128}$' } }]
          : []),
      ],
      ...(route.method === 'POST' && Object.keys(bodyProperties).length > 0
        ? { requestBody: { required: false, content: { 'application/json': { schema: jsonSchemaOf(route.body, 'input') } } } }
        : {}),
      responses: {
        200: { description: 'OK', content: { 'application/json': { schema: jsonSchemaOf(route.answer, 'output') } } },
        ...Object.fromEntries(
          [...new Set(refusals)].map((status) => [status, { description: statusText[status] ?? 'refused', content: error }]),
        ),
      },
    }
  }
  for (const { path, method, operation } of extra) {
    paths[path] ??= {}
    ;(paths[path] as Record<string, unknown>)[method] = operation
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'deltaflow operator console',
      version: '1.0.0',
      description:
        'Reads and actions on a running deltaflow bot. Actions need `Authorization: Bearer <token>`; on a non-loopback bind every request does. Amounts are decimal strings of raw units, each with its token’s label (symbol and decimals, read from its chain) and the amount in token units beside it (null when the token’s decimals are unknown); PnL and equity are valued in the valuation token (ops.valuation) at the latest prices the bot has seen. Times are ms of the bot’s clock.',
    },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    security: [],
    paths,
  }
}
