import { randomUUID } from 'node:crypto'
import { type Command, InvalidArgumentError } from 'commander'
import { formatUnits } from 'viem'
import { createIntent } from '../domain/intents/create-intent.js'
import { BaseError } from '../errors/base.js'
import { createExecutor, type ExecutionOutcome } from '../exec/executor/executor.js'
import type { Journal } from '../journal/journal.js'
import { settleOrder } from '../runtime/settle-order.js'
import { reportCommandError } from './command-errors.js'
import { openCommandSession } from './command-session.js'
import { descriptionOf } from './command-summaries.js'
import { addTradeOptions, defaultMaxImpactPercent, parseImpactPercent, type TradeOptions } from './trade-options.js'
import { parseTradeAmount, resolveTradeToken, type TradeToken } from './trade-tokens.js'

type SwapOptions = TradeOptions & { slippageBps: number; maxImpact: number; wait?: boolean; validFor: number }

export class SwapNotExecutedError extends BaseError {
  override name = 'SwapNotExecutedError'
}

export function registerSwapCommand(program: Command): void {
  addTradeOptions(
    program
      .command('swap')
      .description(descriptionOf('swap'))
      .option('--slippage-bps <n>', 'slippage in basis points (100 = 1 %)', parseBps, 50)
      .option(
        '--max-impact <percent>',
        'refuse a quote whose price impact is above this (15 = 15 %)',
        parseImpactPercent,
        defaultMaxImpactPercent,
      )
      .option('--valid-for <seconds>', 'deadline of the order or transaction, seconds from now', parseSeconds, 600)
      .option('--wait', 'wait for a Delta order to reach a final status'),
  ).action(async (options: SwapOptions) => {
    const executorSettings = { deltaValiditySeconds: options.validFor, marketValiditySeconds: options.validFor }
    const session = await openCommandSession(options, { executorSettings }).catch((error) => reportCommandError(error, options.json))
    if (!session) return
    const { journal } = session
    try {
      const destChainId = options.destChain ?? options.chain
      const sell = await resolveTradeToken(session, options.chain, options.sell, '--sell')
      const buy = await resolveTradeToken(session, destChainId, options.buy, '--buy')
      const executor = createExecutor(session.context)
      await executor.recover()
      const amount = parseTradeAmount(options.amount, options.side === 'SELL' ? sell : buy).toString()
      const common = { strategy: 'cli', srcToken: sell.address, destToken: buy.address, amount, side: options.side }
      const limits = { maxSlippageBps: options.slippageBps, maxPriceImpactPercent: options.maxImpact }
      const content =
        destChainId === options.chain
          ? { ...common, ...limits, kind: 'swap', chainId: options.chain, mode: options.mode === 'all' ? 'auto' : options.mode }
          : { ...common, ...limits, kind: 'crosschain', chainId: options.chain, destChainId }
      const outcome = await executor.execute(createIntent({ content, key: `cli-swap-${randomUUID()}`, clock: session.clock }))
      if (outcome.status === 'refused' || outcome.status === 'failed' || !outcome.order) {
        throw new SwapNotExecutedError(`The swap was ${outcome.status}: ${outcome.reason ?? 'no order was made'}`, {
          details: { intentId: outcome.intent.id },
          hint: 'The journal keeps the intent and the reason: deltaflow order <intent id>.',
          errorClass: 'operational',
        })
      }
      const order = await settleOrder(session, { orderId: outcome.order.id, waitMs: options.wait ? 15 * 60_000 : 0 })
      const settled = { ...outcome, order }
      const described = describeSwap(journal, settled, sell, buy, session.accountSource)
      if (options.json) process.stdout.write(`${JSON.stringify(described)}\n`)
      else process.stdout.write(formatSwap(described, sell, buy))
      if (['FAILED', 'EXPIRED', 'CANCELLED', 'REFUNDED', 'reverted', 'dropped'].includes(described.status)) process.exitCode = 1
    } catch (error) {
      reportCommandError(error, options.json)
    } finally {
      await session.close()
    }
  })
}

type SwapDescription = ReturnType<typeof describeSwap>

function describeSwap(journal: Journal, outcome: ExecutionOutcome, sell: TradeToken, buy: TradeToken, account: string) {
  const order = outcome.order as NonNullable<ExecutionOutcome['order']>
  const fills = journal.fillsOf(order.id)
  const spent = fills.reduce((sum, fill) => sum + fill.spentAmount, 0n)
  const received = fills.reduce((sum, fill) => sum + fill.receivedAmount, 0n)
  const transactions = journal.transactionsFrom(order.account, order.chainId)
  const approvals = transactions
    .filter((transaction) => transaction.purpose === 'approve' && transaction.sentAt >= outcome.intent.createdAt)
    .map((transaction) => transaction.txHash)
  const swap = journal.transactionsOf(order.id).find((transaction) => transaction.purpose === 'swap')
  return {
    mode: order.mode,
    account,
    intentId: outcome.intent.id,
    orderId: order.id,
    status: order.status,
    ...(order.mode === 'delta' ? { venueOrderId: order.venueId, orderHash: order.orderHash } : {}),
    ...(swap ? { transactionHash: swap.txHash, gasUsed: swap.gasUsed?.toString() ?? null } : {}),
    approvals,
    modeChoice: outcome.modeChoice ? { mode: outcome.modeChoice.mode, reason: outcome.modeChoice.explanation } : null,
    fills: fills.map((fill) => ({ txHash: fill.txHash, destinationTxHash: fill.destinationTxHash, source: fill.source })),
    spent: { symbol: sell.symbol, amount: formatUnits(spent, sell.decimals), raw: spent.toString() },
    received: { symbol: buy.symbol, amount: formatUnits(received, buy.decimals), raw: received.toString() },
  }
}

function formatSwap(described: SwapDescription, sell: TradeToken, buy: TradeToken): string {
  const lines = [`${described.mode === 'delta' ? 'Delta' : 'Market'} swap from ${described.account}`]
  if (described.modeChoice) lines.push(`  mode: ${described.modeChoice.reason}`)
  if (described.approvals.length > 0) lines.push(`  approvals: ${described.approvals.join(', ')}`)
  lines.push(`  order ${described.orderId}${described.venueOrderId ? ` (venue ${described.venueOrderId})` : ''}: ${described.status}`)
  if (described.transactionHash) lines.push(`  transaction ${described.transactionHash} (gas ${described.gasUsed ?? 'pending'})`)
  for (const fill of described.fills) lines.push(`  fill ${fill.txHash}${fill.destinationTxHash ? ` → ${fill.destinationTxHash}` : ''}`)
  lines.push(`  spent ${described.spent.amount} ${sell.symbol}, received ${described.received.amount} ${buy.symbol}`, '')
  return lines.join('\n')
}

function parseBps(value: string): number {
  const parsed = Number(value)
  if (!/^\d+$/.test(value) || parsed > 10_000) throw new InvalidArgumentError(`--slippage-bps expects 0 to 10000, received "${value}"`)
  return parsed
}

function parseSeconds(value: string): number {
  const parsed = Number(value)
  if (!/^\d+$/.test(value) || parsed < 60) throw new InvalidArgumentError(`--valid-for expects at least 60 seconds, received "${value}"`)
  return parsed
}
