// What the journal knows about past intents, as checkRiskLimits needs it. Spent amounts are raw units committed by
// accepted intents (sent swaps, and the full amount of open orders, whether or not they fill).

export type TokenUsage = {
  /** Raw units committed per UTC day, keyed `YYYY-MM-DD`. Only today's entry is read. */
  spentByUtcDay: Readonly<Record<string, bigint>>
  /** Raw units committed since the journal began. */
  spentTotal: bigint
}

export type RiskUsage = {
  /** Keyed by tokenKey(chainId, address). A missing token has spent nothing. */
  tokens: Readonly<Record<string, TokenUsage>>
  /** Orders currently open per strategy name. */
  openOrdersByStrategy: Readonly<Record<string, number>>
}

export const emptyRiskUsage: RiskUsage = { tokens: {}, openOrdersByStrategy: {} }

/** The UTC day (`YYYY-MM-DD`) of unix milliseconds, as budgets count days. */
export function utcDay(unixMs: number): string {
  return new Date(unixMs).toISOString().slice(0, 10)
}

/** What `token` has committed on the UTC day of `now` and in total. */
export function spentOf(usage: RiskUsage, token: string, now: number): { today: bigint; total: bigint } {
  const entry = usage.tokens[token]
  return { today: entry?.spentByUtcDay[utcDay(now)] ?? 0n, total: entry?.spentTotal ?? 0n }
}

export type RecordSpendParameters = { token: string; amount: bigint; now: number; strategy?: string | undefined }

/** Usage after an accepted intent committed `amount` of `token` (and opened one order of `strategy`, when given). */
export function recordSpend(usage: RiskUsage, { token, amount, now, strategy }: RecordSpendParameters): RiskUsage {
  const day = utcDay(now)
  const entry = usage.tokens[token] ?? { spentByUtcDay: {}, spentTotal: 0n }
  const tokens = {
    ...usage.tokens,
    [token]: {
      spentByUtcDay: { ...entry.spentByUtcDay, [day]: (entry.spentByUtcDay[day] ?? 0n) + amount },
      spentTotal: entry.spentTotal + amount,
    },
  }
  if (strategy === undefined) return { ...usage, tokens }
  const openOrdersByStrategy = { ...usage.openOrdersByStrategy, [strategy]: (usage.openOrdersByStrategy[strategy] ?? 0) + 1 }
  return { tokens, openOrdersByStrategy }
}
