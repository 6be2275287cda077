import type { ExecutorSettings } from '../exec/executor/executor-context.js'
import { createLogger, resolveLogLevel } from '../log/logger.js'
import { openSession, type Session } from '../runtime/open-session.js'
import { startEmbeddedSandbox } from './embedded-sandbox.js'
import { resolveVenueConfig, type VenueOptions } from './venue-options.js'

/**
 * The runtime's session for a one-off command (quote, swap, cancel, reconcile): the config file with the venue flags on
 * top; the venue as given (an embedded sandbox by default), on its clock.
 */
export function openCommandSession(
  options: VenueOptions,
  extra: { executorSettings?: Partial<ExecutorSettings>; journalFile?: string } = {},
): Promise<Session> {
  return openSession({
    config: resolveVenueConfig(options),
    logger: createLogger({ level: resolveLogLevel({ fallback: 'warn' }) }),
    startEmbedded: startEmbeddedSandbox,
    enforceMode: false,
    ...extra,
  })
}
