import { z } from 'zod'

/** A fault the sandbox injects into matching requests, for testing clients against a misbehaving service. */
export const faultRuleSchema = z.strictObject({
  /** "GET /prices", "POST /v2/delta/orders", "* /v2/delta/*" (a trailing * matches any rest of the path). */
  route: z.string().default('*'),
  /** Added delay before answering, ms. */
  latencyMs: z.number().int().min(0).max(120_000).default(0),
  /** Answer with this status instead of handling the request (429 and 5xx are typical). */
  status: z.number().int().min(400).max(599).optional(),
  /** Retry-After header (seconds) with a 429. */
  retryAfterSeconds: z.number().int().min(0).optional(),
  /** Body of the injected answer: a JSON error (default), nothing, or text that is not JSON. */
  body: z.enum(['json', 'empty', 'non-json']).default('json'),
  /** Close the connection without answering. */
  drop: z.boolean().default(false),
  /** Share of matching requests affected, 0..1. */
  probability: z.number().min(0).max(1).default(1),
  /** Affect only this many requests, then retire the rule. */
  times: z.number().int().min(1).optional(),
})

export type FaultRule = z.infer<typeof faultRuleSchema>
export type FaultRuleInput = z.input<typeof faultRuleSchema>

/** The active fault rules; the first matching rule applies. */
export class FaultInjector {
  #rules: (FaultRule & { id: number; used: number })[] = []
  #nextId = 1
  readonly #random: () => number

  constructor(random: () => number) {
    this.#random = random
  }

  add(input: FaultRuleInput): number {
    const rule = faultRuleSchema.parse(input)
    const id = this.#nextId++
    this.#rules.push({ ...rule, id, used: 0 })
    return id
  }

  clear(): void {
    this.#rules = []
  }

  list(): readonly (FaultRule & { id: number; used: number })[] {
    return this.#rules
  }

  /** The rule to apply to this request, if any (counts its use). */
  match(method: string, path: string): FaultRule | undefined {
    for (const rule of this.#rules) {
      if (!routeMatches(rule.route, method, path)) continue
      if (rule.probability < 1 && this.#random() >= rule.probability) continue
      rule.used++
      if (rule.times !== undefined && rule.used >= rule.times) this.#rules = this.#rules.filter((candidate) => candidate !== rule)
      return rule
    }
    return undefined
  }
}

function routeMatches(pattern: string, method: string, path: string): boolean {
  if (pattern === '*') return true
  const [patternMethod, patternPath = '*'] = pattern.includes(' ') ? pattern.split(' ', 2) : ['*', pattern]
  if (patternMethod !== '*' && patternMethod?.toUpperCase() !== method.toUpperCase()) return false
  if (patternPath.endsWith('*')) return path.startsWith(patternPath.slice(0, -1))
  return path === patternPath || path === `${patternPath}/`
}
