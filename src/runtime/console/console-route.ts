import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { ConsoleRefusal, errorAnswerSchema } from './error-answer.js'

const empty = z.object({})

/** The caller as the console knows it, once its request passed the guard. */
export type Caller = { who: string }

export type RouteInput<Params extends z.ZodType, Query extends z.ZodType, Body extends z.ZodType> = {
  params: z.output<Params>
  query: z.output<Query>
  body: z.output<Body>
  request: FastifyRequest
  caller: Caller
}

/** One route of the console: its schemas are what it checks, what it answers and what the OpenAPI document says. */
export type ConsoleRoute<
  Params extends z.ZodType = z.ZodType,
  Query extends z.ZodType = z.ZodType,
  Body extends z.ZodType = z.ZodType,
  Answer extends z.ZodType = z.ZodType,
> = {
  method: 'GET' | 'POST'
  /** Fastify's syntax: /api/orders/:id. */
  path: string
  summary: string
  /** An action: a token is required, the rate limit applies, and cross-origin requests are refused. */
  action: boolean
  params: Params
  query: Query
  body: Body
  answer: Answer
  /** Answers with other statuses than 200, documented (404, 409, …); refusals common to all are added. */
  refusals?: readonly number[]
  handle: (
    input: RouteInput<Params, Query, Body>,
  ) => Promise<{ status?: number; answer: z.input<Answer> }> | { status?: number; answer: z.input<Answer> }
}

/** Declares a route with its types inferred from its schemas (params, query and body default to none). */
export function defineRoute<
  Answer extends z.ZodType,
  Params extends z.ZodType = typeof empty,
  Query extends z.ZodType = typeof empty,
  Body extends z.ZodType = typeof empty,
>(
  route: Omit<ConsoleRoute<Params, Query, Body, Answer>, 'params' | 'query' | 'body'> & { params?: Params; query?: Query; body?: Body },
): ConsoleRoute {
  return { ...route, params: route.params ?? empty, query: route.query ?? empty, body: route.body ?? empty } as unknown as ConsoleRoute
}

/** Lets a request through (returning its caller) or throws a ConsoleRefusal. */
export type RouteGuard = (request: FastifyRequest, route: ConsoleRoute) => Caller

/** Registers a route: guard, then params, query and body parsed (400 naming each problem), then the answer checked. */
export function registerRoute(app: FastifyInstance, route: ConsoleRoute, guard: RouteGuard): void {
  app.route({
    method: route.method,
    url: route.path,
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      try {
        const caller = guard(request, route)
        const params = parseInput(route.params, request.params ?? {}, 'path')
        const query = parseInput(route.query, request.query ?? {}, 'query')
        const body = parseInput(route.body, request.body ?? {}, 'body')
        const { status = 200, answer } = await route.handle({ params, query, body, request, caller })
        reply.code(status)
        return route.answer.parse(answer)
      } catch (error) {
        if (!(error instanceof ConsoleRefusal)) throw error
        reply.code(error.status).headers(error.headers)
        return errorAnswerSchema.parse(error.answer)
      }
    },
  })
}

function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown, where: string): z.output<Schema> {
  const parsed = schema.safeParse(input)
  if (parsed.success) return parsed.data
  throw new ConsoleRefusal(400, {
    error: `invalid request ${where}`,
    issues: parsed.error.issues.map((issue) => ({
      where: [where, ...issue.path.map(String)].join('.'),
      message: issue.message,
    })),
  })
}
