import type { Address } from 'viem'
import type { z } from 'zod'
import type { Intent } from '../domain/intents/intent-schema.js'
import { orderIdOf } from '../domain/order-id.js'
import type { OrderMode, OrderStatus } from '../domain/order-status.js'
import type { FillView, IntentResult, OrderView } from '../domain/order-views.js'
import { type Quote, type QuoteRequest, quoteRequestKey } from '../feed/quote.js'
import { createLogger, type Logger } from '../log/logger.js'
import { ManualClock } from '../time/clock.js'
import type { StrategyDefinition } from './define-strategy.js'
import { type DeepReadonly, frozenQuote } from './frozen-copy.js'
import { createMemoryStateStore } from './memory-state-store.js'
import { createSafeStrategy, type StrategyRun } from './safe-strategy.js'
import type { BalancesEvent, FillEvent, OrderUpdateEvent, RefundEvent } from './strategy-events.js'

export type CreateStrategyHarnessParameters = {
  /** The strategy's config section, as the YAML would give it (parsed by the definition's configSchema). */
  config: unknown
  /** The name the runtime stamps on its intents (the config's `name`). Default: the definition's name. */
  name?: string | undefined
  /** Unix ms the harness clock starts at. Default: 2026-01-01T00:00:00Z. */
  now?: number | undefined
  /** Where the strategy's log lines go. Default: nowhere. */
  logger?: Logger | undefined
}

/** A quote as a test writes it: the request defaults to the strategy's first subscription, times to the clock's now. */
export type HarnessQuote = {
  request?: QuoteRequest | undefined
  srcAmount?: bigint | undefined
  destAmount: bigint
}

/** An order of one of the strategy's intents, as the runtime would report it; fields default from the intent. */
export type HarnessOrder = Partial<OrderView> & { status: OrderStatus }

export type StrategyHarness<Config> = {
  /** The config as the handlers see it: parsed and frozen. */
  config: DeepReadonly<Config>
  /** What the runtime would subscribe to, fire and read for it, validated. */
  subscriptions: readonly QuoteRequest[]
  timers: readonly number[]
  /** The harness's clock, which is the strategy's `now()`: move it between events. */
  clock: { now: () => number; advance: (ms: number) => void; set: (ms: number) => void }
  /** The strategy's stored state under `key`, as the journal keeps it (JSON: bigints as decimal strings). */
  state: (key: string) => unknown
  /**
   * Each event goes through the runtime's own safe wrapper (frozen inputs, intents validated and stamped with their
   * deterministic ids, state kept only when the handler succeeds) and resolves to the intents the strategy asked for.
   * A handler that throws, or asks for an invalid intent, rejects with the StrategyError the bot would log.
   */
  start: () => Promise<Intent[]>
  quote: (quote: HarnessQuote | Quote) => Promise<Intent[]>
  orderUpdate: (event: OrderUpdateEvent) => Promise<Intent[]>
  fill: (event: FillEvent) => Promise<Intent[]>
  refund: (event: RefundEvent) => Promise<Intent[]>
  /** One of the strategy's timers fired (default: its first). */
  timer: (intervalMs?: number) => Promise<Intent[]>
  balances: (event: BalancesEvent) => Promise<Intent[]>
  intentResult: (event: IntentResult) => Promise<Intent[]>
  stop: () => Promise<Intent[]>
  /** The order the executor would place for `intent`, with `fields` on top: for order updates and fills. */
  orderOf: (intent: Intent, fields: HarnessOrder) => OrderView
  /** A fill of `order`, numbered in the order fills are made. */
  fillOf: (order: OrderView, amounts: { spentAmount: bigint; receivedAmount: bigint }) => FillView
}

/**
 * Runs a strategy definition in a test, the way the runtime runs it, without a venue: events in, validated intents out,
 * on a clock the test moves. The context (state, clock, logger, intent ids) is the runtime's own, so a test keeps
 * working when the contract grows.
 *
 * @example
 * import { createStrategyHarness } from 'deltaflow'
 * import strategy from './steady-buyer.js'
 *
 * const harness = createStrategyHarness(strategy, { config: { chainId: 1, srcToken: usdc, destToken: weth, amount: '100000000' } })
 * const [buy] = await harness.quote({ destAmount: 50_000_000_000_000_000n })
 * expect(buy).toMatchObject({ kind: 'swap', amount: 100_000_000n })
 * harness.clock.advance(60_000)
 * await harness.orderUpdate({ order: harness.orderOf(buy, { status: 'COMPLETED' }), reason: null })
 */
export function createStrategyHarness<Schema extends z.ZodType>(
  definition: StrategyDefinition<Schema>,
  { config, name = definition.name, now = Date.UTC(2026, 0, 1), logger }: CreateStrategyHarnessParameters,
): StrategyHarness<z.output<Schema>> {
  const clock = new ManualClock(now)
  const store = createMemoryStateStore()
  const strategy = createSafeStrategy(
    { ...definition, name },
    {
      config,
      clock,
      journal: store,
      logger: logger ?? createLogger({ level: 'silent' }),
      maxConsecutiveFailures: Number.POSITIVE_INFINITY,
    },
  )
  let fills = 0

  async function intentsOf(running: Promise<StrategyRun>): Promise<Intent[]> {
    const run = await running
    if (run.outcome === 'handled') return run.intents
    if (run.outcome === 'failed') throw run.error
    return []
  }

  function quoteOf(input: HarnessQuote | Quote): Quote {
    if ('key' in input) return input
    const request = input.request ?? strategy.subscriptions[0]
    if (!request) throw new TypeError(`strategy "${name}" subscribes to no quotes: pass the quote's request`)
    const at = clock.now()
    const srcAmount = input.srcAmount ?? (request.side === 'SELL' ? request.amount : 0n)
    return {
      request,
      key: quoteRequestKey(request),
      srcAmount,
      destAmount: input.destAmount,
      requestedAt: at,
      receivedAt: at,
      get answer(): never {
        throw new TypeError('a test quote carries no service answer: pass a recorded Quote to test code that reads quote.answer')
      },
    }
  }

  return {
    config: strategy.config,
    subscriptions: strategy.subscriptions,
    timers: strategy.timers,
    clock: { now: () => clock.now(), advance: (ms) => clock.advance(ms), set: (ms) => clock.set(ms) },
    state: (key) => store.getStrategyState(name, key),
    start: () => intentsOf(strategy.start()),
    quote: async (quote) => intentsOf(strategy.handleQuote(frozenQuote(quoteOf(quote)) as Quote)),
    orderUpdate: (event) => intentsOf(strategy.handleOrderUpdate(event)),
    fill: (event) => intentsOf(strategy.handleFill(event)),
    refund: (event) => intentsOf(strategy.handleRefund(event)),
    timer: async (intervalMs) => {
      const interval = intervalMs ?? strategy.timers[0]
      if (interval === undefined) throw new TypeError(`strategy "${name}" has no timers`)
      return intentsOf(strategy.handleTimer(interval))
    },
    balances: (event) => intentsOf(strategy.handleBalances(event)),
    intentResult: (event) => intentsOf(strategy.handleIntentResult(event)),
    stop: () => intentsOf(strategy.stop()),
    orderOf: (intent, fields) => ({ ...orderFieldsOf(intent, clock.now()), ...fields }),
    fillOf: (order, { spentAmount, receivedAmount }) => ({
      id: ++fills,
      orderId: order.id,
      chainId: order.chainId,
      txHash: `0x${fills.toString(16).padStart(64, '0')}`,
      destinationChainId: order.destChainId === order.chainId ? null : order.destChainId,
      destinationTxHash: order.destChainId === order.chainId ? null : `0x${(fills + 2 ** 32).toString(16).padStart(64, '0')}`,
      spentAmount,
      receivedAmount,
      recordedAt: clock.now(),
    }),
  }
}

const testAccount: Address = '0x00000000000000000000000000000000000000a1'

/** The order fields an intent implies (mode, chains, tokens, amounts), before the venue says anything. */
function orderFieldsOf(intent: Intent, now: number): Omit<OrderView, 'status'> {
  if (intent.kind === 'cancel') throw new TypeError('a cancel intent places no order of its own')
  const mode: OrderMode = intent.kind === 'otc' ? 'otc' : intent.kind === 'swap' && intent.mode === 'market' ? 'market' : 'delta'
  const beneficiary = intent.kind === 'crosschain' ? (intent.beneficiary ?? testAccount) : testAccount
  return {
    id: orderIdOf(intent.id),
    intentId: intent.id,
    mode,
    account: testAccount,
    beneficiary,
    chainId: intent.chainId,
    destChainId: intent.kind === 'crosschain' ? intent.destChainId : intent.chainId,
    venueId: null,
    orderHash: null,
    deadline: null,
    ...tradeOf(intent),
    createdAt: now,
    updatedAt: now,
  }
}

/** What an order of the intent sells and buys: raw amounts, 0 where the executor fixes it from the quote. */
function tradeOf(
  intent: Exclude<Intent, { kind: 'cancel' }>,
): Pick<OrderView, 'srcToken' | 'destToken' | 'srcAmount' | 'destAmount' | 'side'> {
  switch (intent.kind) {
    case 'swap':
    case 'crosschain': {
      const sell = intent.side === 'SELL'
      const { srcToken, destToken, amount, side } = intent
      return { srcToken, destToken, srcAmount: sell ? amount : 0n, destAmount: sell ? 0n : amount, side }
    }
    case 'limit':
      return {
        srcToken: intent.srcToken,
        destToken: intent.destToken,
        srcAmount: intent.srcAmount,
        destAmount: intent.destAmount,
        side: 'SELL',
      }
    case 'twap-sell':
      return { srcToken: intent.srcToken, destToken: intent.destToken, srcAmount: intent.totalSrcAmount, destAmount: 0n, side: 'SELL' }
    case 'twap-buy':
      return {
        srcToken: intent.srcToken,
        destToken: intent.destToken,
        srcAmount: intent.maxSrcAmount,
        destAmount: intent.totalDestAmount,
        side: 'BUY',
      }
    case 'otc':
      return {
        srcToken: intent.makerAsset,
        destToken: intent.takerAsset,
        srcAmount: intent.makerAmount,
        destAmount: intent.takerAmount,
        side: 'SELL',
      }
  }
}
