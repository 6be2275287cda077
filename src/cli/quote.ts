import type { Command } from 'commander'
import { createIntent } from '../domain/intents/create-intent.js'
import { priceSwap } from '../exec/executor/price-swap.js'
import { chooseMode, type ExecutionMode, type ModeFigures } from '../exec/mode/choose-mode.js'
import { quoteTrade, type TradeQuotes } from '../exec/quote-trade.js'
import type { Session } from '../runtime/open-session.js'
import { exitCodes, reportCommandError } from './command-errors.js'
import { openCommandSession } from './command-session.js'
import { descriptionOf } from './command-summaries.js'
import { describeQuote, type ModeQuote, type QuoteFacts } from './quote-report.js'
import { formatQuote, impactWarning } from './quote-text.js'
import { addTradeOptions, defaultMaxImpactPercent, parseImpactPercent, type TradeOptions } from './trade-options.js'
import { parseTradeAmount, resolveTradeToken, type TradeToken } from './trade-tokens.js'

type QuoteOptions = TradeOptions & { maxImpact?: number; allowImpact?: boolean }

/** The reference size of the price impact: this fraction of the amount (1/1000). */
const referenceDivisor = 1000n

export function registerQuoteCommand(program: Command): void {
  addTradeOptions(
    program
      .command('quote')
      .description(descriptionOf('quote'))
      .option(
        '--max-impact <percent>',
        "the price impact `swap` refuses above (15 = 15 %); a quote above it exits 1 (default: 15, or the config's risk.maxPriceImpactPercent when lower)",
        parseImpactPercent,
      )
      .option('--allow-impact', 'report a quote whose price impact is above the limit without failing'),
  ).action(async (options: QuoteOptions) => {
    // A quote records nothing: its journal lives in memory.
    const session = await openCommandSession(options, { journalFile: ':memory:' }).catch((error) => reportCommandError(error, options.json))
    if (!session) return
    try {
      const destChainId = options.destChain ?? options.chain
      const sell = await resolveTradeToken(session, options.chain, options.sell, '--sell')
      const buy = await resolveTradeToken(session, destChainId, options.buy, '--buy')
      const amount = parseTradeAmount(options.amount, options.side === 'SELL' ? sell : buy)
      const configLimit = session.config.risk.maxPriceImpactPercent
      const impactLimitPercent = Math.min(options.maxImpact ?? defaultMaxImpactPercent, configLimit ?? Number.POSITIVE_INFINITY)
      const referenceAmount = amount / referenceDivisor
      const [priced, reference] = await Promise.all([
        priceModes(session, { sell, buy, amount, options, impactLimitPercent }),
        referenceAmount === 0n ? undefined : quoteAt(session, { sell, buy, amount: referenceAmount, options }),
      ])
      const facts: QuoteFacts = {
        sell,
        buy,
        side: options.side,
        amount,
        quotes: priced.quotes,
        reference: reference && { amount: referenceAmount, ...reference },
        choice: priced.choice,
        serviceChoice: priced.serviceChoice,
        impactLimitPercent,
        allowImpact: options.allowImpact === true,
      }
      const described = describeQuote(facts)
      if (options.json) process.stdout.write(`${JSON.stringify(described)}\n`)
      else process.stdout.write(formatQuote(described))
      // The text report ends with the warning; beside the JSON document it goes to stderr.
      const warning = impactWarning(described)
      if (warning && options.json) process.stderr.write(`${warning}\n`)
      if (!described.chosen || (described.impact.exceeded && !described.impact.allowed)) process.exitCode = exitCodes.failure
    } catch (error) {
      reportCommandError(error, options.json)
    } finally {
      await session.close()
    }
  })
}

type PriceModesParameters = { sell: TradeToken; buy: TradeToken; amount: bigint; options: QuoteOptions; impactLimitPercent: number }

/**
 * Each mode asked for, priced at the amount, and the mode `deltaflow swap` would take: a same-chain trade goes through
 * the executor's own pricing and mode choice (gas, fees, the preference and --mode), a crosschain one is Delta's.
 */
async function priceModes(session: Session, { sell, buy, amount, options, impactLimitPercent }: PriceModesParameters) {
  const asked = { delta: options.mode !== 'market', market: options.mode !== 'delta' }
  if (sell.chainId !== buy.chainId) {
    const quotes = await quoteTrade(session.api, tradeOf(session, { sell, buy, amount, options }, 'delta'))
    const choice = chooseMode({
      side: options.side,
      delta: quotes.delta,
      market: undefined,
      preference: session.context.settings.preference,
    })
    return { quotes: { delta: modeQuote(quotes, 'delta', choice.delta) }, choice, serviceChoice: undefined }
  }
  const intent = createIntent({
    content: {
      strategy: 'cli',
      kind: 'swap',
      chainId: sell.chainId,
      srcToken: sell.address,
      destToken: buy.address,
      amount: amount.toString(),
      side: options.side,
      mode: options.mode === 'all' ? 'auto' : options.mode,
      maxSlippageBps: 50,
      maxPriceImpactPercent: impactLimitPercent,
    },
    key: `cli-quote-${sell.chainId}-${sell.address}-${buy.address}-${amount}`,
    clock: session.clock,
  })
  if (intent.kind !== 'swap') throw new Error('unreachable: a swap intent parsed as another kind')
  const priced = await priceSwap(session.context, intent)
  const quoteOf = (mode: ExecutionMode): ModeQuote | undefined => {
    if (!asked[mode]) return undefined
    const figures = priced.choice[mode]
    const refused = figures.status === 'quoted' ? undefined : figures.why
    if (mode === 'delta' && priced.delta) return { delta: priced.delta, refused }
    if (mode === 'market' && priced.market) return { market: priced.market, refused }
    return { error: refused ?? 'no quote' }
  }
  return { quotes: { delta: quoteOf('delta'), market: quoteOf('market') }, choice: priced.choice, serviceChoice: priced.serviceChoice }
}

/** The modes asked for, quoted at another amount (the reference size); a failure is kept as the mode's error. */
async function quoteAt(session: Session, trade: Omit<PriceModesParameters, 'impactLimitPercent'>) {
  const crosschain = trade.sell.chainId !== trade.buy.chainId
  const quotes = await quoteTrade(session.api, tradeOf(session, trade, crosschain ? 'delta' : trade.options.mode))
  return { delta: modeQuote(quotes, 'delta'), market: modeQuote(quotes, 'market') }
}

function tradeOf(
  session: Session,
  { sell, buy, amount, options }: Omit<PriceModesParameters, 'impactLimitPercent'>,
  mode: QuoteOptions['mode'],
) {
  return {
    chainId: sell.chainId,
    destChainId: buy.chainId,
    srcToken: sell,
    destToken: buy,
    amount,
    side: options.side,
    mode,
    userAddress: session.account.address,
  }
}

/** A mode of quoteTrade's answer as the report takes it; `figures` (the choice's) words a refusal as the choice saw it. */
function modeQuote(quotes: TradeQuotes, mode: ExecutionMode, figures?: ModeFigures): ModeQuote | undefined {
  const answer = quotes[mode]
  if (answer === undefined) return undefined
  if ('price' in answer) return { delta: answer.price }
  if ('route' in answer) return { market: answer.route }
  if (figures && figures.status !== 'quoted') return { error: figures.why }
  return { error: answer.error.message.split('\n')[0] ?? '' }
}
