import type { z } from 'zod'
import { BaseError } from '../../errors/base.js'
import { deepFreeze } from '../deep-freeze.js'
import { describeReceived } from '../wire-fields.js'
import { type Intent, type IntentContent, intentContentSchema, intentSchema } from './intent-schema.js'

export type IntentProblem = {
  /** Dotted path of the field, e.g. `maxSlippageBps` or `orderIds.2`. */
  field: string
  /** What was expected and what was received. */
  message: string
}

/** Intents that passed intentSchema and were then frozen all the way down: nothing can have changed them since. */
const checkedIntents = new WeakSet<object>()

/**
 * Freezes an intent that passed intentSchema (its arrays and objects too) and remembers it, so that parseIntent hands
 * it back as it is instead of checking it again: createIntent's intents reach the executor, which parses its input.
 */
export function markCheckedIntent(intent: Intent): Intent {
  deepFreeze(intent)
  checkedIntents.add(intent)
  return intent
}

/** Validates what a strategy emitted; throws InvalidIntentError naming every bad field and the strategy. */
export function parseIntent(input: unknown): Intent {
  if (typeof input === 'object' && input !== null && checkedIntents.has(input)) return input as Intent
  const result = intentSchema.safeParse(input)
  if (!result.success) throw new InvalidIntentError({ input, problems: describeIssues(input, result.error.issues) })
  return result.data
}

/**
 * Like parseIntent, for an intent without `id` and `createdAt` (see createIntent): amounts become bigint, addresses
 * checksummed, defaults applied. Throws InvalidIntentError naming every bad field.
 *
 * @example
 * const content = parseIntentContent({ strategy: 'dca', kind: 'twap-sell', chainId: 1, srcToken: usdc, destToken: weth,
 *   totalSrcAmount: '1000000000', numSlices: 4, intervalSeconds: 900, maxSlippageBps: 50, maxPriceImpactPercent: 2 })
 */
export function parseIntentContent(input: unknown): IntentContent {
  const result = intentContentSchema.safeParse(input)
  if (!result.success) throw new InvalidIntentError({ input, problems: describeIssues(input, result.error.issues) })
  return result.data
}

/**
 * A strategy emitted an intent the executor cannot act on (missing or malformed field, unknown key, contradictory
 * fields). Operational: the executor drops this intent, logs the error under the strategy and counts it; nothing is
 * sent. The strategy's author fixes the field named.
 */
export class InvalidIntentError extends BaseError {
  override name = 'InvalidIntentError' as const
  readonly strategy: string
  readonly problems: readonly IntentProblem[]

  constructor({ input, problems }: { input: unknown; problems: IntentProblem[] }) {
    const strategy = fieldOf(input, 'strategy') ?? '(unnamed strategy)'
    const kind = fieldOf(input, 'kind')
    const listed = problems.map((problem) => `${problem.field}: ${problem.message}`)
    super(`strategy "${strategy}" emitted an invalid ${kind ? `${kind} ` : ''}intent: ${listed.join('; ')}`, {
      details: { strategy, ...(kind ? { kind } : {}), problems: listed },
      hint: `fix ${problems.map((problem) => problem.field).join(', ')} in what strategy "${strategy}" emits; amounts are raw units as decimal strings or bigint`,
      errorClass: 'operational',
    })
    this.strategy = strategy
    this.problems = problems
  }
}

function describeIssues(input: unknown, issues: readonly z.core.$ZodIssue[]): IntentProblem[] {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return [{ field: '(intent)', message: `expected an intent object with a kind, received ${describeReceived(input)}` }]
  }
  return issues.flatMap((issue): IntentProblem[] => {
    const base = issue.path.map(String)
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        field: [...base, key].join('.'),
        message: 'not a field of this intent kind (unknown keys are refused; check the spelling)',
      }))
    }
    const field = base.length > 0 ? base.join('.') : issue.code === 'invalid_union' ? 'kind' : '(intent)'
    // zod does not hand the discriminator's value to the issue; read it from the input.
    const received = field === 'kind' ? Reflect.get(input, 'kind') : issue.input
    const message = issue.message.includes('received') ? issue.message : `${issue.message}, received ${describeReceived(received)}`
    return [{ field, message }]
  })
}

function fieldOf(input: unknown, key: string): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined
  const value: unknown = Reflect.get(input, key)
  return typeof value === 'string' && value.length > 0 ? value : undefined
}
