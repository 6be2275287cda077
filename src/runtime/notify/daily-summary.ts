import { utcDay } from '../../domain/risk-usage.js'
import type { FillEvent } from '../../journal/notification-sources.js'
import type { FormatTokenAmount } from '../token-labels.js'
import type { NotificationMessage } from './notification-message.js'

const dayMs = 86_400_000

/** Start (inclusive) and end (exclusive) of a UTC day, ms. */
export function utcDayRange(day: string): { from: number; to: number } {
  const from = Date.parse(`${day}T00:00:00.000Z`)
  return { from, to: from + dayMs }
}

/** The UTC day before `day`. */
export function previousUtcDay(day: string): string {
  return utcDay(utcDayRange(day).from - dayMs)
}

export type DailySummaryParameters = {
  day: string
  fills: readonly FillEvent[]
  intentCounts: readonly { strategy: string; status: string; count: number }[]
  formatAmount: FormatTokenAmount
}

/** One UTC day per strategy: its fills, what they spent and received per token, and its intents by status. */
export async function dailySummaryMessage({
  day,
  fills,
  intentCounts,
  formatAmount,
}: DailySummaryParameters): Promise<NotificationMessage> {
  type Flow = { chainId: number; token: string; amount: bigint }
  const perStrategy = new Map<string, { fills: number; spent: Map<string, Flow>; received: Map<string, Flow>; intents: string[] }>()
  const entryOf = (strategy: string) => {
    let entry = perStrategy.get(strategy)
    if (!entry) {
      entry = { fills: 0, spent: new Map(), received: new Map(), intents: [] }
      perStrategy.set(strategy, entry)
    }
    return entry
  }
  const add = (flows: Map<string, Flow>, chainId: number, token: string, amount: bigint) => {
    const key = `${chainId}:${token}`
    const flow = flows.get(key) ?? { chainId, token, amount: 0n }
    flow.amount += amount
    flows.set(key, flow)
  }
  for (const fill of fills) {
    const entry = entryOf(fill.strategy || 'deltaflow')
    entry.fills += 1
    add(entry.spent, fill.chainId, fill.srcToken, fill.spent)
    add(entry.received, fill.destChainId, fill.destToken, fill.received)
  }
  for (const { strategy, status, count } of intentCounts) entryOf(strategy).intents.push(`${count} ${status}`)
  const describe = async (flows: Map<string, Flow>) =>
    (await Promise.all([...flows.values()].map((flow) => formatAmount(flow.chainId, flow.token, flow.amount)))).join(', ') || 'nothing'
  const lines: string[] = []
  for (const [strategy, entry] of [...perStrategy].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`${strategy}: ${entry.fills} fill(s); intents ${entry.intents.join(', ') || 'none'}`)
    if (entry.fills > 0) lines.push(`  spent ${await describe(entry.spent)}; received ${await describe(entry.received)}`)
  }
  return {
    event: 'daily-summary',
    severity: 'info',
    title: `daily summary ${day} (UTC): ${fills.length} fill(s)`,
    lines: lines.length > 0 ? lines : ['no fills and no intents'],
  }
}
