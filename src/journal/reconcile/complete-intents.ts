import type { Journal } from '../journal.js'

/** Marks done each accepted intent of `intentIds` none of whose orders is still open; returns how many it marked. */
export function completeIntents(journal: Journal, intentIds: ReadonlySet<string>): number {
  if (intentIds.size === 0) return 0
  const open = new Set(journal.openOrders().map((order) => order.intentId))
  let completed = 0
  for (const id of intentIds) {
    if (open.has(id) || journal.getIntent(id)?.status !== 'accepted') continue
    journal.completeIntent(id)
    completed++
  }
  return completed
}
