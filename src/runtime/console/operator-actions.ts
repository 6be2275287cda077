import { withoutUrlSecrets } from '../../errors/url-secrets.js'
import type { Journal } from '../../journal/journal.js'
import type { OperatorAction } from '../../journal/operator-actions.js'
import type { Logger } from '../../log/logger.js'
import type { ActionName } from './action-answer.js'
import { ConsoleRefusal } from './error-answer.js'

export type RunOperatorActionParameters = {
  /** The Idempotency-Key (or the body's actionId); a fresh one when the client sent none. */
  key: string
  action: ActionName
  target: string | null
  request: Record<string, unknown>
  who: string
  /** Does it, once; its answer is journaled as the outcome, what it throws as `{ error }`. */
  act: () => Promise<Record<string, unknown>>
}

/**
 * Runs operator actions exactly once per key: journaled as running (what, target, who, when) before acting, then
 * with the outcome. The same key again answers the journaled action without acting (one still running is waited
 * for); a key used for another action or target is refused (409).
 */
export function createOperatorActions(journal: Pick<Journal, 'beginOperatorAction' | 'completeOperatorAction'>, logger: Logger) {
  const running = new Map<string, Promise<OperatorAction>>()

  const sameRequest = (stored: OperatorAction, { key, action, target }: RunOperatorActionParameters): OperatorAction => {
    if (stored.action === action && stored.target === target) return stored
    throw new ConsoleRefusal(409, {
      error: `the key ${key} was used for ${stored.action}${stored.target === null ? '' : ` ${stored.target}`}; send a new key for another action`,
    })
  }

  async function run(parameters: RunOperatorActionParameters): Promise<{ action: OperatorAction; replayed: boolean }> {
    const { key, action, target, request, who, act } = parameters
    const inFlight = running.get(key)
    if (inFlight) return { action: sameRequest(await inFlight, parameters), replayed: true }
    const begun = journal.beginOperatorAction({ key, action, target, request, requestedBy: who })
    if (!begun.created) return { action: sameRequest(begun.action, parameters), replayed: true }
    const log = logger.child({ action, target, requestedBy: who, key })
    const done = (async () => {
      try {
        const outcome = await act()
        log.info({ outcome }, 'operator action done')
        return journal.completeOperatorAction(begun.action.id, 'done', outcome)
      } catch (error) {
        const reason = withoutUrlSecrets(error instanceof Error ? error.message : String(error))
        log.warn({ reason }, 'operator action failed')
        return journal.completeOperatorAction(begun.action.id, 'failed', { error: reason })
      }
    })()
    running.set(key, done)
    try {
      return { action: await done, replayed: false }
    } finally {
      running.delete(key)
    }
  }

  return { run }
}
