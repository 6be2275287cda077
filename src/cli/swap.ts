import { type Command, InvalidArgumentError } from 'commander'
import { formatUnits } from 'viem'
import { quoteTrade, type TradeRequest } from '../exec/quote-trade.js'
import { type DeltaSwapResult, swapWithDelta } from '../exec/swap-with-delta.js'
import { type MarketSwapResult, swapWithMarket } from '../exec/swap-with-market.js'
import { reportCommandError } from './command-errors.js'
import { openSession } from './session.js'
import { addTradeOptions, type TradeOptions } from './trade-options.js'
import { parseTradeAmount, resolveTradeToken, type TradeToken } from './trade-tokens.js'

type SwapOptions = TradeOptions & { slippageBps: number; wait?: boolean; validFor: number }

export function registerSwapCommand(program: Command): void {
  addTradeOptions(
    program
      .command('swap')
      .description('perform one swap end to end: approval or permit, build, sign, submit or broadcast')
      .option('--slippage-bps <n>', 'slippage in basis points (100 = 1 %)', parseBps, 50)
      .option('--valid-for <seconds>', 'deadline of the order or transaction, seconds from now', parseSeconds, 600)
      .option('--wait', 'wait for a Delta order to reach a final status'),
  ).action(async (options: SwapOptions) => {
    const session = await openSession(options).catch((error) => reportCommandError(error, options.json))
    if (!session) return
    try {
      const destChainId = options.destChain ?? options.chain
      const sell = await resolveTradeToken(session, options.chain, options.sell, '--sell')
      const buy = await resolveTradeToken(session, destChainId, options.buy, '--buy')
      const trade: TradeRequest = {
        chainId: options.chain,
        destChainId,
        srcToken: sell,
        destToken: buy,
        amount: parseTradeAmount(options.amount, options.side === 'SELL' ? sell : buy),
        side: options.side,
        mode: options.mode,
        userAddress: session.account.address,
      }
      const quotes = await quoteTrade(session.api, trade)
      const common = { trade, slippageBps: options.slippageBps, validForSeconds: options.validFor }
      let result: DeltaSwapResult | MarketSwapResult
      if (quotes.chosen === 'delta' && quotes.delta && 'price' in quotes.delta) {
        result = await swapWithDelta(session, { ...common, price: quotes.delta.price, waitMs: options.wait ? 15 * 60_000 : undefined })
      } else if (quotes.chosen === 'market' && quotes.market && 'route' in quotes.market) {
        result = await swapWithMarket(session, { ...common, route: quotes.market.route })
      } else {
        const reasons = [quotes.delta, quotes.market].flatMap((quote) => (quote && 'error' in quote ? [quote.error] : []))
        throw reasons[0] ?? new Error('no mode can execute this swap')
      }
      const failed = result.mode === 'delta' && ['FAILED', 'EXPIRED', 'CANCELLED', 'REFUNDED'].includes(result.status)
      if (options.json) process.stdout.write(`${JSON.stringify(describeResult(result, sell, buy, session.accountSource))}\n`)
      else process.stdout.write(formatResult(result, sell, buy, session.accountSource))
      if (failed) process.exitCode = 1
    } catch (error) {
      reportCommandError(error, options.json)
    } finally {
      await session.close()
    }
  })
}

function describeResult(result: DeltaSwapResult | MarketSwapResult, sell: TradeToken, buy: TradeToken, account: string) {
  const amounts = {
    spent: { symbol: sell.symbol, amount: formatUnits(result.spent, sell.decimals), raw: result.spent.toString() },
    received: { symbol: buy.symbol, amount: formatUnits(result.received, buy.decimals), raw: result.received.toString() },
  }
  if (result.mode === 'market') {
    return {
      mode: 'market',
      account,
      transactionHash: result.transactionHash,
      approvals: result.approvals,
      gasUsed: result.gasUsed.toString(),
      ...amounts,
    }
  }
  return {
    mode: 'delta',
    account,
    orderId: result.orderId,
    orderHash: result.orderHash,
    status: result.status,
    approvals: result.approvals,
    transactions: result.transactions,
    ...amounts,
  }
}

function formatResult(result: DeltaSwapResult | MarketSwapResult, sell: TradeToken, buy: TradeToken, account: string): string {
  const described = describeResult(result, sell, buy, account)
  const lines = [`${described.mode === 'delta' ? 'Delta' : 'Market'} swap from ${account}`]
  if (result.approvals.length > 0) lines.push(`  approvals: ${result.approvals.join(', ')}`)
  if (result.mode === 'delta') {
    lines.push(`  order ${result.orderId} (${result.orderHash}): ${result.status}`)
    for (const fill of result.transactions) lines.push(`  fill ${fill.originTx}${fill.destinationTx ? ` → ${fill.destinationTx}` : ''}`)
  } else {
    lines.push(`  transaction ${result.transactionHash} (gas ${result.gasUsed})`)
  }
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
  if (!/^\d+$/.test(value) || parsed < 30) throw new InvalidArgumentError(`--valid-for expects at least 30 seconds, received "${value}"`)
  return parsed
}
