import { createIntent } from '../domain/intents/create-intent.js'
import type { Intent } from '../domain/intents/intent-schema.js'
import { InvalidIntentError } from '../domain/intents/parse-intent.js'
import { describeReceived } from '../domain/wire-fields.js'
import type { Clock } from '../time/clock.js'
import { StrategyError, type StrategyHandlerName } from './strategy-errors.js'

export type ParseStrategyOutputParameters = {
  output: unknown
  strategy: string
  handler: StrategyHandlerName
  clock: Clock
}

/**
 * Turns what a handler returned into validated intents stamped with the strategy's name, a deterministic id and the
 * clock's time. All or nothing: one bad request fails the whole output with a StrategyError naming it and its field.
 * Requests giving the same id (same key and content) are kept once.
 */
export function parseStrategyOutput({ output, strategy, handler, clock }: ParseStrategyOutputParameters): Intent[] {
  if (output === undefined || output === null || (Array.isArray(output) && output.length === 0)) return []
  const requests: readonly unknown[] = Array.isArray(output) ? output : [output]
  const intents = new Map<string, Intent>()
  requests.forEach((request, index) => {
    const where = Array.isArray(output) ? `intent request ${index}` : 'intent request'
    const fail = (reason: string, cause?: unknown): never => {
      throw new StrategyError({ strategy, handler, reason: `${where}: ${reason}`, cause })
    }
    if (typeof request !== 'object' || request === null || Array.isArray(request)) {
      fail(`expected { key, intent }, an array of them, or nothing, received ${describeReceived(request)}`)
    }
    const key: unknown = Reflect.get(request as object, 'key')
    const content: unknown = Reflect.get(request as object, 'intent')
    if (typeof key !== 'string' || key.length === 0 || key.length > 200) {
      fail(`expected key to be a non-empty string (e.g. "slice-3"), received ${describeReceived(key)}`)
    }
    if (typeof content !== 'object' || content === null || Array.isArray(content)) {
      fail(`expected intent to be an intent object with a kind, received ${describeReceived(content)}`)
    }
    try {
      // The runtime, not the strategy, says who asked.
      const intent = createIntent({ content: { ...(content as object), strategy }, key: key as string, clock })
      if (!intents.has(intent.id)) intents.set(intent.id, intent)
    } catch (error) {
      if (!(error instanceof InvalidIntentError)) throw error
      fail(`key "${key as string}": ${error.problems.map((problem) => `${problem.field}: ${problem.message}`).join('; ')}`, error)
    }
  })
  return [...intents.values()]
}
