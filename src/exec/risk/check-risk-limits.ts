import type { Intent } from '../../domain/intents/intent-schema.js'
import { type RiskUsage, spentOf, utcDay } from '../../domain/risk-usage.js'
import { intentSpend, type RiskQuote } from './intent-spend.js'
import type { KillSwitch } from './kill-switch.js'
import type { RiskLimits } from './risk-limits-schema.js'

export type RiskLimitName =
  | 'killSwitch'
  | 'minTradeSize'
  | 'maxSlippage'
  | 'maxPriceImpact'
  | 'maxOpenOrders'
  | 'dailyBudget'
  | 'totalBudget'
  | 'quoteRequired'

export type RiskRefusal = {
  allowed: false
  limit: RiskLimitName
  /** Which limit, the numbers and what to change, in one sentence for logs and the user. */
  reason: string
  /** The numbers of the reason, for the journal (amounts as decimal strings of raw units). */
  numbers: Readonly<Record<string, string | number>>
}

export type RiskCheckResult = { allowed: true } | RiskRefusal

export type CheckRiskLimitsParameters = {
  intent: Intent
  limits: RiskLimits
  usage: RiskUsage
  /** Unix ms from the executor's Clock; budgets count the UTC day of it. */
  now: number
  killSwitch?: Pick<KillSwitch, 'isTripped' | 'reason'> | undefined
  /** The intent's quote, once priced: a BUY's source amount and the quote's price impact are checked against it. */
  quote?: RiskQuote | undefined
}

/**
 * Whether an intent may go ahead under the risk limits, given what the journal says was already spent and opened.
 * Pure apart from reading the kill switch. A cancel is always allowed (it only reduces risk), even when the switch
 * is tripped. Checks, in order: kill switch, slippage, price impact, quote needed, minimum trade size, open orders,
 * daily budget, total budget; the first refusal is returned.
 */
export function checkRiskLimits({ intent, limits, usage, now, killSwitch, quote }: CheckRiskLimitsParameters): RiskCheckResult {
  if (intent.kind === 'cancel') return { allowed: true }
  if (killSwitch?.isTripped()) {
    return refuse(
      'killSwitch',
      `kill switch is tripped (${killSwitch.reason ?? 'no reason given'}); no new intent is accepted until it is reset`,
      {
        trippedBy: killSwitch.reason ?? 'unknown',
      },
      'once the cause is dealt with, remove the kill-switch file or reset the switch (a signal trip lasts until reset)',
    )
  }
  const refusal = checkPriceLimits(intent, limits, quote) ?? checkAmountLimits(intent, limits, usage, now, quote)
  return refusal ?? { allowed: true }
}

function checkPriceLimits(
  intent: Exclude<Intent, { kind: 'cancel' }>,
  limits: RiskLimits,
  quote: RiskQuote | undefined,
): RiskRefusal | undefined {
  if (!('maxSlippageBps' in intent)) return undefined
  if (limits.maxSlippageBps !== undefined && intent.maxSlippageBps > limits.maxSlippageBps) {
    return refuse(
      'maxSlippage',
      `intent allows ${intent.maxSlippageBps} bps slippage, above the limit of ${limits.maxSlippageBps} bps`,
      { intentBps: intent.maxSlippageBps, limitBps: limits.maxSlippageBps },
      `lower maxSlippageBps of strategy "${intent.strategy}" to at most ${limits.maxSlippageBps}, or raise risk.maxSlippageBps`,
    )
  }
  if (limits.maxPriceImpactPercent !== undefined && intent.maxPriceImpactPercent > limits.maxPriceImpactPercent) {
    return refuse(
      'maxPriceImpact',
      `intent allows ${intent.maxPriceImpactPercent} % price impact, above the limit of ${limits.maxPriceImpactPercent} %`,
      { intentPercent: intent.maxPriceImpactPercent, limitPercent: limits.maxPriceImpactPercent },
      `lower maxPriceImpactPercent of strategy "${intent.strategy}" to at most ${limits.maxPriceImpactPercent}, or raise risk.maxPriceImpactPercent`,
    )
  }
  const ceiling = Math.min(intent.maxPriceImpactPercent, limits.maxPriceImpactPercent ?? Number.POSITIVE_INFINITY)
  if (quote?.priceImpactPercent !== undefined && quote.priceImpactPercent > ceiling) {
    return refuse(
      'maxPriceImpact',
      `the quote's price impact is ${quote.priceImpactPercent} %, above the allowed ${ceiling} %`,
      { quotePercent: quote.priceImpactPercent, limitPercent: ceiling },
      'trade a smaller amount (or split it with a TWAP), or raise maxPriceImpactPercent',
    )
  }
  return undefined
}

function checkAmountLimits(
  intent: Exclude<Intent, { kind: 'cancel' }>,
  limits: RiskLimits,
  usage: RiskUsage,
  now: number,
  quote: RiskQuote | undefined,
): RiskRefusal | undefined {
  const spend = intentSpend(intent, quote)
  if (spend === undefined) return undefined
  if ('quoteRequired' in spend) {
    return refuse(
      'quoteRequired',
      `a BUY spends an amount of ${spend.token} known only from a quote, and none was given`,
      { token: spend.token },
      'price the intent first and pass quote.srcAmount',
    )
  }
  const tokenLimits = limits.tokens[spend.token]
  const { token, amount, perTrade } = spend
  if (tokenLimits?.minTradeSize !== undefined && perTrade < tokenLimits.minTradeSize) {
    return refuse(
      'minTradeSize',
      `a trade of ${perTrade} raw units of ${token}${perTrade === amount ? '' : ' (one TWAP slice)'} is below the minimum of ${tokenLimits.minTradeSize}`,
      { token, tradeAmount: perTrade.toString(), minimum: tokenLimits.minTradeSize.toString() },
      `trade at least ${tokenLimits.minTradeSize} raw units (fewer TWAP slices, or a larger amount), or lower tokens["${token}"].minTradeSize`,
    )
  }
  const open = usage.openOrdersByStrategy[intent.strategy] ?? 0
  if (limits.maxOpenOrdersPerStrategy !== undefined && open + 1 > limits.maxOpenOrdersPerStrategy) {
    return refuse(
      'maxOpenOrders',
      `strategy "${intent.strategy}" has ${open} open orders; one more exceeds the limit of ${limits.maxOpenOrdersPerStrategy}`,
      { strategy: intent.strategy, openOrders: open, limit: limits.maxOpenOrdersPerStrategy },
      'wait for open orders to settle or cancel some, or raise risk.maxOpenOrdersPerStrategy',
    )
  }
  const spent = spentOf(usage, token, now)
  if (tokenLimits?.dailyBudget !== undefined && spent.today + amount > tokenLimits.dailyBudget) {
    const day = utcDay(now)
    return refuse(
      'dailyBudget',
      `spending ${amount} raw units of ${token} on ${day} (UTC) would bring the day's total to ${spent.today + amount}, above the daily budget of ${tokenLimits.dailyBudget} (${remaining(tokenLimits.dailyBudget, spent.today)} left)`,
      {
        token,
        day,
        amount: amount.toString(),
        spentToday: spent.today.toString(),
        dailyBudget: tokenLimits.dailyBudget.toString(),
      },
      `trade at most ${remaining(tokenLimits.dailyBudget, spent.today)} raw units today, wait for the next UTC day, or raise tokens["${token}"].dailyBudget`,
    )
  }
  if (tokenLimits?.totalBudget !== undefined && spent.total + amount > tokenLimits.totalBudget) {
    return refuse(
      'totalBudget',
      `spending ${amount} raw units of ${token} would bring the total spent to ${spent.total + amount}, above the total budget of ${tokenLimits.totalBudget} (${remaining(tokenLimits.totalBudget, spent.total)} left)`,
      { token, amount: amount.toString(), spentTotal: spent.total.toString(), totalBudget: tokenLimits.totalBudget.toString() },
      `trade at most ${remaining(tokenLimits.totalBudget, spent.total)} raw units, or raise tokens["${token}"].totalBudget`,
    )
  }
  return undefined
}

function remaining(budget: bigint, spent: bigint): bigint {
  return budget > spent ? budget - spent : 0n
}

function refuse(limit: RiskLimitName, reason: string, numbers: Record<string, string | number>, change: string): RiskRefusal {
  return { allowed: false, limit, reason: `${limit}: ${reason}; to proceed: ${change}`, numbers }
}
