import type { Command } from 'commander'
import { formatUnits } from 'viem'
import { quoteTrade, type TradeQuotes } from '../exec/quote-trade.js'
import { reportCommandError } from './command-errors.js'
import { openCommandSession } from './command-session.js'
import { descriptionOf } from './command-summaries.js'
import { addTradeOptions, type TradeOptions } from './trade-options.js'
import { parseTradeAmount, resolveTradeToken, type TradeToken } from './trade-tokens.js'

export function registerQuoteCommand(program: Command): void {
  addTradeOptions(program.command('quote').description(descriptionOf('quote'))).action(async (options: TradeOptions) => {
    // A quote records nothing: its journal lives in memory.
    const session = await openCommandSession(options, { journalFile: ':memory:' }).catch((error) => reportCommandError(error, options.json))
    if (!session) return
    try {
      const destChainId = options.destChain ?? options.chain
      const sell = await resolveTradeToken(session, options.chain, options.sell, '--sell')
      const buy = await resolveTradeToken(session, destChainId, options.buy, '--buy')
      const amount = parseTradeAmount(options.amount, options.side === 'SELL' ? sell : buy)
      const quotes = await quoteTrade(session.api, {
        chainId: options.chain,
        destChainId,
        srcToken: sell,
        destToken: buy,
        amount,
        side: options.side,
        mode: options.mode,
        userAddress: session.account.address,
      })
      if (options.json) process.stdout.write(`${JSON.stringify(describeQuotes(quotes, sell, buy))}\n`)
      else process.stdout.write(formatQuotes(quotes, sell, buy))
      if (!quotes.chosen) process.exitCode = 1
    } catch (error) {
      reportCommandError(error, options.json)
    } finally {
      await session.close()
    }
  })
}

type QuoteLine = { srcAmount: string; destAmount: string; detail: Record<string, string> } | { error: string }

export function describeQuotes(quotes: TradeQuotes, sell: TradeToken, buy: TradeToken) {
  const delta: QuoteLine | undefined = !quotes.delta
    ? undefined
    : 'error' in quotes.delta
      ? { error: quotes.delta.error.message.split('\n')[0] ?? '' }
      : {
          srcAmount: formatUnits(quotes.delta.price.route.origin.input.amount, sell.decimals),
          destAmount: formatUnits(quotes.delta.price.route.destination.output.amount, buy.decimals),
          detail: { partnerFeePercent: String(quotes.delta.price.partner.feePercent), spender: quotes.delta.price.spender },
        }
  const market: QuoteLine | undefined = !quotes.market
    ? undefined
    : 'error' in quotes.market
      ? { error: quotes.market.error.message.split('\n')[0] ?? '' }
      : {
          srcAmount: formatUnits(quotes.market.route.srcAmount, sell.decimals),
          destAmount: formatUnits(quotes.market.route.destAmount, buy.decimals),
          detail: { gasCostUSD: quotes.market.route.gasCostUSD, spender: quotes.market.route.tokenTransferProxy },
        }
  return {
    sell: { chainId: sell.chainId, symbol: sell.symbol, address: sell.address },
    buy: { chainId: buy.chainId, symbol: buy.symbol, address: buy.address },
    ...(delta ? { delta } : {}),
    ...(market ? { market } : {}),
    chosen: quotes.chosen ?? null,
  }
}

function formatQuotes(quotes: TradeQuotes, sell: TradeToken, buy: TradeToken): string {
  const described = describeQuotes(quotes, sell, buy)
  const line = (name: string, quote: QuoteLine | undefined) => {
    if (!quote) return []
    if ('error' in quote) return [`${name.padEnd(7)} unavailable: ${quote.error}`]
    const details = Object.entries(quote.detail)
      .map(([key, value]) => `${key} ${value}`)
      .join(', ')
    return [`${name.padEnd(7)} ${quote.srcAmount} ${sell.symbol} → ${quote.destAmount} ${buy.symbol}  (${details})`]
  }
  const route = sell.chainId === buy.chainId ? `chain ${sell.chainId}` : `chain ${sell.chainId} → ${buy.chainId}`
  return [
    `${sell.symbol} → ${buy.symbol} on ${route}`,
    ...line('Delta', described.delta),
    ...line('Market', described.market),
    `chosen: ${described.chosen ?? 'none (no mode can execute this swap)'}`,
    '',
  ].join('\n')
}
