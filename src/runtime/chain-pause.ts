import type { Intent } from '../domain/intents/intent-schema.js'
import { BaseError } from '../errors/base.js'
import type { ExecutionOutcome } from '../exec/executor/executor.js'
import type { Journal } from '../journal/journal.js'
import type { Logger } from '../log/logger.js'
import type { ConnectionHealth } from './connection-health.js'

/**
 * A new intent is for a chain whose RPC does not answer: nothing is priced, signed or sent, and the intent is journaled
 * failed with this reason (its strategy hears it). Retryable: the same trade may be asked for again once the chain
 * answers (the bot probes it at every reconciliation interval).
 */
export class ChainUnavailableError extends BaseError {
  override name = 'ChainUnavailableError' as const
  readonly chainId: number

  constructor({ chainId, failingSince, lastError }: { chainId: number; failingSince: string | null; lastError: string | null }) {
    super(`chain ${chainId} is unavailable: its RPC has not answered${failingSince ? ` since ${failingSince}` : ''}`, {
      details: { chainId, ...(lastError ? { lastError } : {}) },
      hint: 'The bot pauses new orders on the chain until its RPC answers again; check the node or add a fallback RPC URL.',
      errorClass: 'retryable',
    })
    this.chainId = chainId
  }
}

export type PauseUnavailableChainsParameters = {
  journal: Pick<Journal, 'getIntent' | 'recordIntent'>
  connections: Pick<ConnectionHealth, 'chainAvailable' | 'states'>
  logger?: Logger | undefined
}

/**
 * `execute`, except for a new intent (not yet journaled) on a chain that does not answer, source or destination: that
 * one ends at once as a journaled `failed` intent with a ChainUnavailableError reason. Cancels and intents already
 * journaled go through (a cancel of a Delta order needs no RPC; a journaled one resumes as the executor decides).
 */
export function pauseUnavailableChains(
  execute: (intent: Intent) => Promise<ExecutionOutcome>,
  { journal, connections, logger }: PauseUnavailableChainsParameters,
): (intent: Intent) => Promise<ExecutionOutcome> {
  return async (intent) => {
    if (intent.kind === 'cancel' || journal.getIntent(intent.id)) return execute(intent)
    const chainIds = intent.kind === 'crosschain' ? [intent.chainId, intent.destChainId] : [intent.chainId]
    const down = chainIds.find((chainId) => !connections.chainAvailable(chainId))
    if (down === undefined) return execute(intent)
    const state = connections.states().find((candidate) => candidate.chainId === down)
    const error = new ChainUnavailableError({
      chainId: down,
      failingSince: state?.failingSince ?? null,
      lastError: state?.lastError ?? null,
    })
    const reason = `${error.name} (${error.errorClass}): ${error.shortMessage}${state?.lastError ? ` (last error: ${state.lastError})` : ''}`
    const stored = journal.recordIntent({
      id: intent.id,
      strategy: intent.strategy,
      kind: intent.kind,
      intent,
      failed: { stage: 'chain', reason },
    })
    logger?.warn(
      { intentId: intent.id, strategy: intent.strategy, chainId: down },
      'chain unavailable: intent failed without placing an order',
    )
    return { status: stored.status, intent: stored, order: undefined, modeChoice: undefined, reason: stored.refusalReason ?? reason }
  }
}
