import type { Journal } from '../../journal/journal.js'
import type { SafeStrategy, StrategyStats } from '../../strategy/safe-strategy.js'

/**
 * Journals what the strategies' wrappers only count in memory, for the event stream: a strategy paused (and by
 * whom), resumed, or failing (its failure count grew). Call the returned function now and then (each poll of the
 * stream); each change is journaled once.
 */
export function createStrategyWatch(strategies: readonly SafeStrategy[], journal: Pick<Journal, 'recordStrategyEvent'>): () => void {
  const seen = new Map<string, StrategyStats>(strategies.map((strategy) => [strategy.name, strategy.stats()]))
  return () => {
    for (const strategy of strategies) {
      const now = strategy.stats()
      const before = seen.get(strategy.name)
      seen.set(strategy.name, now)
      if (!before) continue
      if (now.failures > before.failures) {
        journal.recordStrategyEvent(strategy.name, {
          type: 'error',
          failures: now.failures,
          consecutiveFailures: now.consecutiveFailures,
          error: now.lastError?.shortMessage ?? null,
        })
      }
      if (now.paused && !before.paused) journal.recordStrategyEvent(strategy.name, { type: 'paused', pausedBy: now.pausedBy })
      if (!now.paused && before.paused) journal.recordStrategyEvent(strategy.name, { type: 'resumed' })
    }
  }
}
