import { createExecutorContext, type ExecutorContext } from '../exec/executor/executor-context.js'
import { riskLimitsSchema } from '../exec/risk/risk-limits-schema.js'
import type { Journal } from '../journal/journal.js'
import type { Session } from './session.js'

/** The executor's context for a one-off command: the session's venue, chains and account, the command's journal. */
export function executorContextOf(session: Session, journal: Journal): ExecutorContext {
  return createExecutorContext({
    api: session.api,
    chains: session.chains,
    contracts: session.contracts,
    account: session.account,
    journal,
    clock: session.clock,
    logger: session.logger,
    limits: riskLimitsSchema.parse({}),
  })
}
