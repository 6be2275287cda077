import type { Address } from 'viem'
import { toApiRequestError } from '../api/error-rules.js'
import type { Intent } from '../domain/intents/intent-schema.js'
import { orderIdOf } from '../domain/order-id.js'
import { isFinalStatus, type OrderMode } from '../domain/order-status.js'
import type { CancelOutcome } from '../exec/executor/cancel-orders.js'
import type { DeltaOrderPlan } from '../exec/executor/delta-order-flow.js'
import type { ExecutorContext } from '../exec/executor/executor-context.js'
import type { MarketOrderPlan } from '../exec/executor/market-order-flow.js'
import type { OrderPlacement } from '../exec/executor/order-placement.js'
import { findOrders } from '../journal/find-orders.js'
import type { Journal } from '../journal/journal.js'
import type { JournalOrder } from '../journal/orders.js'
import { keccak256Hex } from '../protocol/keccak.js'
import type { Clock } from '../time/clock.js'
import { unixSeconds } from '../time/clock.js'
import { createNormalRandom, shiftByBps, sizeImpactBps } from './fill-draws.js'
import { afterFees, type FillModel } from './fill-model.js'
import { limitCrossed, limitRateOf, ownRateOf, rateBelowLimitRate } from './limit-crossing.js'
import {
  type BookPair,
  type BookQuote,
  ceilDiv,
  nearestFromEitherSource,
  pairKeyOf,
  priceFromBook,
  priceFromEitherSource,
  type ReplayBook,
  type ScaledQuote,
} from './replay-book.js'

/** One fill as the backtest reports it (raw units; the result converts them for people). */
export type SimulatedFill = {
  at: number
  orderId: string
  strategy: string
  mode: OrderMode
  chainId: number
  destChainId: number
  srcToken: string
  destToken: string
  spent: bigint
  /** Received after the model's fees. */
  received: bigint
  /** The model's partner and protocol fees, in the destination token. */
  fee: bigint
  gasUsd: number
  /** What the order was planned at (the quote when it was priced), for slippage. */
  planned: { src: bigint; dest: bigint }
}

type Schedule = { at: number; seq: number; run: () => void }

type RestingOrder = {
  id: string
  intentId: string
  strategy: string
  mode: OrderMode
  kind: Intent['kind']
  chainId: number
  destChainId: number
  srcToken: string
  destToken: string
  side: 'SELL' | 'BUY'
  /** Unix seconds. */
  deadline: number
  planned: { src: bigint; dest: bigint }
  /** Delta MARKET-style (swap, crosschain): the amounts the signed order allows. */
  maxSrc: bigint
  minDest: bigint
  /** Clock ms before which no agent settles it (the auction). */
  activeAt: number
  /** Its pairs on the book, by source, once asked for. */
  pairs?: { delta?: BookPair; market?: BookPair }
  /** LIMIT: filled so far (source) and whether partial fills are allowed. */
  filledSrc: bigint
  /** LIMIT, SELL: limitRateOf the order, once asked for. */
  limitRate?: number
  partiallyFillable: boolean
  /** TWAP: slice plan; `firstMissed` says which slice was missed first and why (the EXPIRED reason names it). */
  slices?: {
    count: number
    intervalMs: number
    perSlice: bigint
    total: bigint
    limitPerSlice: bigint
    done: number
    missed: number
    firstMissed?: string
  }
  /** OTC: the order's two sides. */
  otc?: { makerAsset: string; takerAsset: string; makerAmount: bigint; takerAmount: bigint }
  watchKeys: string[]
}

export type SimulatedVenueParameters = {
  book: ReplayBook
  clock: Clock
  journal: Journal
  model: FillModel
  /** Seeded: the same seed gives the same bridge failures. */
  random: () => number
  /**
   * The realistic model's auction outcomes and Market drift, seeded apart from `random` (so that drawing them never
   * changes which bridge fails). The ideal model draws nothing from it.
   */
  auctionRandom: () => number
  /** Starting wallet: `${chainId}:${token lowercase}` → raw amount. */
  balances: ReadonlyMap<string, bigint>
  account: Address
  /** Told when an order of one mode was filled from the other mode's quotes (the recording had none of its own). */
  onFallback?: ((asked: BookPair, used: BookPair['source']) => void) | undefined
}

export type SimulatedVenue = ReturnType<typeof createSimulatedVenue>

/** Why a TWAP slice was not settled when due. */
export type SliceMissCause = 'no quote' | 'limit' | 'balance'

/** The TWAP slices a run missed for one cause: how many, and the first (order, slice, time, figures). */
export type SliceMisses = { count: number; first: string }

const balanceKey = (chainId: number, token: string) => `${chainId}:${token.toLowerCase()}`

const quotedFeeOf = (quote: BookQuote): number | undefined => quote.block.costs(quote.index).partnerPercent

/** The recorded quote's bridge fees in its destination token, scaled to the size priced. */
function bridgeFeeOf(quote: ScaledQuote): bigint {
  const recorded = quote.from.request.request
  const fees = quote.from.block.costs(quote.from.index).bridge ?? []
  const destToken = recorded.destToken.toLowerCase()
  const total = fees.filter((fee) => fee.token.toLowerCase() === destToken).reduce((sum, fee) => sum + fee.amount, 0n)
  return recorded.amount === 0n ? 0n : (total * quote.amount) / recorded.amount
}

/**
 * The venue of a backtest: takes the executor's orders where the live venue would (the OrderPlacement port), keeps
 * the wallet's balances, and fills by the fill model (src/backtest/README.md) against the replay book, which holds
 * nothing after the clock. Everything it decides is journaled as the live reconciler would journal the real venue's
 * answers (orders, status changes, fills, refunds), so the strategies hear of it through the same deliveries.
 * Scheduled work (auctions, TWAP slices, bridges, deadlines) runs in (time, order of scheduling) order from `runDue`.
 */
export function createSimulatedVenue({
  book,
  clock,
  journal,
  model,
  random,
  auctionRandom,
  balances: start,
  account,
  onFallback,
}: SimulatedVenueParameters) {
  const balances = new Map(start)
  /** Source amounts of crosschain orders between their source leg and delivery (or refund): still the wallet's. */
  const inTransit = new Map<string, bigint>()
  function transit(chainId: number, token: string, delta: bigint): void {
    const key = balanceKey(chainId, token)
    const next = (inTransit.get(key) ?? 0n) + delta
    if (next === 0n) inTransit.delete(key)
    else inTransit.set(key, next)
  }
  const resting = new Map<string, RestingOrder>()
  const watchers = new Map<string, Set<string>>()
  /** The ids of the orders watching a pair, sorted (the order they try to settle in), kept until the watchers change. */
  const watcherOrders = new Map<string, readonly string[]>()
  const queue: Schedule[] = []
  const fills: SimulatedFill[] = []
  const sliceMisses = new Map<SliceMissCause, SliceMisses>()
  let seq = 0
  let venueSeq = 0
  let gasUsd = 0
  let changed = false
  const maxAgeMs = model.maxQuoteAgeSeconds * 1000
  const realistic = model.model === 'realistic'
  const normal = createNormalRandom(auctionRandom)
  /** realistic: how far the recorded price must pass a LIMIT's price, in millionths (ideal: touching it is enough). */
  const limitMarginPpm = realistic ? BigInt(Math.round(model.delta.limitMarginBps * 100)) : 0n

  // --- scheduling (a binary heap on (at, seq)) ---
  const before = (a: Schedule, b: Schedule) => a.at < b.at || (a.at === b.at && a.seq < b.seq)
  function schedule(at: number, run: () => void): void {
    const item = { at, seq: seq++, run }
    queue.push(item)
    let index = queue.length - 1
    while (index > 0) {
      const parent = (index - 1) >> 1
      if (!before(queue[index] as Schedule, queue[parent] as Schedule)) break
      ;[queue[index], queue[parent]] = [queue[parent] as Schedule, queue[index] as Schedule]
      index = parent
    }
  }
  function pop(): Schedule | undefined {
    const top = queue[0]
    const last = queue.pop()
    if (queue.length > 0 && last) {
      queue[0] = last
      let index = 0
      for (;;) {
        const left = index * 2 + 1
        const right = left + 1
        let smallest = index
        if (left < queue.length && before(queue[left] as Schedule, queue[smallest] as Schedule)) smallest = left
        if (right < queue.length && before(queue[right] as Schedule, queue[smallest] as Schedule)) smallest = right
        if (smallest === index) break
        ;[queue[index], queue[smallest]] = [queue[smallest] as Schedule, queue[index] as Schedule]
        index = smallest
      }
    }
    return top
  }

  // --- wallet ---
  const balanceOf = (chainId: number, token: string) => balances.get(balanceKey(chainId, token)) ?? 0n
  function move(chainId: number, token: string, delta: bigint): void {
    balances.set(balanceKey(chainId, token), balanceOf(chainId, token) + delta)
  }

  // --- journal ---
  const utf8 = new TextEncoder()
  const txHash = (orderId: string, what: string) => keccak256Hex(utf8.encode(`backtest:${orderId}:${what}`))
  function status(orderId: string, next: JournalOrder['status'], reason: string): void {
    if (journal.recordStatus({ orderId, status: next, reason })) changed = true
  }
  const fillCounts = new Map<string, number>()
  function fill(
    order: RestingOrder,
    spent: bigint,
    gross: bigint,
    options: {
      gas?: number
      destination?: boolean
      planned?: { src: bigint; dest: bigint }
      quotedFeePercent?: number | undefined
      /** A fee the quote charged in the destination token (a bridge's), raw units. */
      quotedFee?: bigint
    } = {},
  ): void {
    const received = afterFees(model, gross)
    // The partner fee the quote priced in (its amounts are net of it), reported with the model's own fees.
    const percent = options.quotedFeePercent ?? 0
    const partnerFee =
      percent > 0 && percent < 100 ? (gross * BigInt(Math.round(percent * 1e6))) / BigInt(Math.round((100 - percent) * 1e6)) : 0n
    const quotedFee = partnerFee + (options.quotedFee ?? 0n)
    const n = fillCounts.get(order.id) ?? 0
    fillCounts.set(order.id, n + 1)
    journal.recordFill({
      orderId: order.id,
      chainId: order.chainId,
      txHash: txHash(order.id, `fill-${n}`),
      spentAmount: spent,
      receivedAmount: received,
      source: 'venue',
      ...(options.destination ? { destinationChainId: order.destChainId, destinationTxHash: txHash(order.id, `delivery-${n}`) } : {}),
    })
    changed = true
    const gas = options.gas ?? 0
    gasUsd += gas
    fills.push({
      at: clock.now(),
      orderId: order.id,
      strategy: order.strategy,
      mode: order.mode,
      chainId: order.chainId,
      destChainId: order.destChainId,
      srcToken: order.srcToken,
      destToken: order.destToken,
      spent,
      received,
      fee: gross - received + quotedFee,
      gasUsd: gas,
      planned: options.planned ?? order.planned,
    })
  }

  function insufficient(endpoint: string, chainId: number, token: string, need: bigint): never {
    throw toApiRequestError({
      endpoint,
      path: endpoint.split(' ')[1] ?? endpoint,
      status: 400,
      message: 'InsufficientBalance',
      extra: { chainId, token, required: need.toString(), balance: balanceOf(chainId, token).toString() },
    })
  }

  function record(order: RestingOrder, payload: unknown, nonce: bigint | undefined): void {
    journal.recordSignedOrder({
      id: order.id,
      intentId: order.intentId,
      mode: order.mode,
      account,
      chainId: order.chainId,
      destChainId: order.destChainId,
      orderHash: txHash(order.id, 'order'),
      ...(nonce === undefined ? {} : { nonce }),
      deadline: order.deadline,
      srcToken: order.srcToken,
      destToken: order.destToken,
      srcAmount: order.maxSrc,
      destAmount: order.minDest,
      side: order.side,
      signedPayload: { backtest: true, ...(payload as object) },
    })
    venueSeq += 1
    journal.markSubmitted(order.id, { venueId: `backtest-${venueSeq}` })
    changed = true
  }

  // --- watching resting orders against quotes ---
  function watch(order: RestingOrder, pairs: BookPair[]): void {
    for (const pair of pairs) {
      const key = pairKeyOf(pair)
      order.watchKeys.push(key)
      const set = watchers.get(key) ?? new Set<string>()
      set.add(order.id)
      watchers.set(key, set)
      watcherOrders.delete(key)
      book.watch(pair)
    }
  }
  function retire(order: RestingOrder): void {
    resting.delete(order.id)
    for (const key of order.watchKeys) {
      watchers.get(key)?.delete(order.id)
      watcherOrders.delete(key)
    }
  }
  function watcherOrder(key: string): readonly string[] | undefined {
    let ids = watcherOrders.get(key)
    if (ids === undefined) {
      const set = watchers.get(key)
      if (set === undefined || set.size === 0) return undefined
      ids = [...set].sort()
      watcherOrders.set(key, ids)
    }
    return ids
  }

  /** The order's pair on the book (made once per order and source: the book keys it by the object). */
  const pairOf = (order: RestingOrder, source: 'delta' | 'market' = 'delta'): BookPair => {
    order.pairs ??= {}
    order.pairs[source] ??= {
      source,
      chainId: order.chainId,
      destChainId: order.destChainId,
      srcToken: order.srcToken,
      destToken: order.destToken,
      side: order.side,
    }
    return order.pairs[source]
  }

  /** The ideal model's fixed improvement: the amount raised by improvementBps (never negative), rounded down. */
  const improve = (amount: bigint) => shiftByBps(amount, model.delta.improvementBps, 'down')

  /**
   * What a Delta settlement at a quote spends and receives. ideal: the quote, a SELL's output improved by
   * improvementBps. realistic: the auction's outcome, drawn around the quote (improvementBps ± auctionStdDevBps, one
   * draw per settlement), moves the output (SELL) or the input (BUY); the caller refuses an outcome beyond the limit.
   */
  function settlementOf(side: 'SELL' | 'BUY', quote: ScaledQuote): { spend: bigint; receive: bigint } {
    if (!realistic) return { spend: quote.srcAmount, receive: side === 'SELL' ? improve(quote.destAmount) : quote.destAmount }
    const outcomeBps = model.delta.improvementBps + model.delta.auctionStdDevBps * normal()
    return side === 'SELL'
      ? { spend: quote.srcAmount, receive: shiftByBps(quote.destAmount, outcomeBps, 'down') }
      : { spend: shiftByBps(quote.srcAmount, -outcomeBps, 'up'), receive: quote.destAmount }
  }

  // --- Delta MARKET-style orders (swap, crosschain): settled once the auction ends and the quote meets the order ---
  function trySettleDelta(order: RestingOrder): boolean {
    if (clock.now() < order.activeAt) return false
    const amount = order.side === 'SELL' ? order.maxSrc : order.minDest
    const quote = priceFromEitherSource(book, pairOf(order), amount, clock.now(), maxAgeMs, onFallback)
    if (!quote) return false
    // No agent settles below the signed limit: an outcome beyond it waits for a later quote (and a new auction).
    const { spend, receive } = settlementOf(order.side, quote)
    if (order.side === 'SELL' ? receive < order.minDest : spend > order.maxSrc) return false
    if (balanceOf(order.chainId, order.srcToken) < spend) return false
    retire(order)
    move(order.chainId, order.srcToken, -spend)
    if (order.destChainId === order.chainId) {
      move(order.destChainId, order.destToken, afterFees(model, receive))
      fill(order, spend, receive, { quotedFeePercent: quotedFeeOf(quote.from) })
      status(order.id, 'COMPLETED', 'backtest: settled by an agent')
      return true
    }
    status(order.id, 'BRIDGING', 'backtest: source leg settled')
    transit(order.chainId, order.srcToken, spend)
    const bridgeFee = bridgeFeeOf(quote)
    schedule(clock.now() + model.crosschain.bridgeSeconds * 1000, () => {
      if (random() < model.crosschain.refundProbability) {
        status(order.id, 'REFUNDING', 'backtest: the bridge failed')
        schedule(clock.now() + model.crosschain.refundSeconds * 1000, () => {
          move(order.chainId, order.srcToken, spend)
          transit(order.chainId, order.srcToken, -spend)
          journal.recordRefund({
            orderId: order.id,
            txHash: txHash(order.id, 'refund'),
            chainId: order.chainId,
            token: order.srcToken,
            amount: spend,
          })
          changed = true
          status(order.id, 'REFUNDED', 'backtest: source amount refunded')
        })
        return
      }
      transit(order.chainId, order.srcToken, -spend)
      move(order.destChainId, order.destToken, afterFees(model, receive))
      fill(order, spend, receive, { destination: true, quotedFeePercent: quotedFeeOf(quote.from), quotedFee: bridgeFee })
      status(order.id, 'COMPLETED', 'backtest: delivered on the destination chain')
    })
    return true
  }

  // --- LIMIT orders: filled at the limit once a quote crosses it (realistic: by limitMarginBps) ---
  /** Whether a quote of `size` now crosses the order's limit (by the margin). */
  function crosses(order: RestingOrder, size: bigint): boolean {
    const pair = pairOf(order)
    const nearest = nearestFromEitherSource(book, pair, size, clock.now(), maxAgeMs, onFallback)
    return nearest !== undefined && limitCrossed(order, size, nearest, pair.side, limitMarginPpm)
  }

  /**
   * Whether no quote the book holds now can cross a SELL order's limit: every quote `crosses` would price it from (its
   * own source's fresh quotes of a size, or the other source's when it has none) pays less per unit than the limit. Resting
   * orders hear most quotes of their pair far from their limit; this spares them the search for the nearest size.
   */
  function outOfReach(order: RestingOrder): boolean {
    if (order.side !== 'SELL') return false
    const now = clock.now()
    const own = pairOf(order)
    order.limitRate ??= limitRateOf(order, limitMarginPpm)
    const reach = freshQuotesReach(own, order.limitRate, now)
    if (reach !== 'no fresh quote' || own.destChainId !== own.chainId) return reach !== 'reaches'
    const other = pairOf(order, 'market')
    // crosses would have priced it from this source: said as it says it.
    return freshQuotesReach(other, order.limitRate, now, () => onFallback?.(own, other.source)) !== 'reaches'
  }

  /**
   * The fresh quotes of each pair (by pair key) as freshQuotesReach last looked at them: whether there was one, and
   * the highest own rate among them, at one clock time and book update. The resting orders of a pair (a ladder's
   * levels) all ask after the same update: the pair's quotes are read once for all of them.
   */
  const reachOfPair = new Map<string, { updates: number; now: number; fresh: boolean; bestRate: number }>()

  /** Whether a fresh quote of `pair` reaches the limit rate; `onFresh` is told, once, when the pair has a fresh quote. */
  function freshQuotesReach(
    pair: BookPair,
    rate: number,
    now: number,
    onFresh?: () => void,
  ): 'reaches' | 'none reaches' | 'no fresh quote' {
    const key = pairKeyOf(pair)
    let reach = reachOfPair.get(key)
    if (reach === undefined) {
      reach = { updates: -1, now: 0, fresh: false, bestRate: Number.NaN }
      reachOfPair.set(key, reach)
    }
    if (reach.updates !== book.updates || reach.now !== now) {
      let fresh = false
      let bestRate = Number.NaN
      for (const quote of book.quotesOf(pair)) {
        if (now - quote.time > maxAgeMs || quote.amountNumber === 0) continue
        fresh = true
        const own = ownRateOf(quote)
        if (!(own <= bestRate)) bestRate = own
      }
      reach.updates = book.updates
      reach.now = now
      reach.fresh = fresh
      reach.bestRate = bestRate
    }
    if (!reach.fresh) return 'no fresh quote'
    onFresh?.()
    return rateBelowLimitRate(rate, reach.bestRate) ? 'none reaches' : 'reaches'
  }

  function trySettleLimit(order: RestingOrder): boolean {
    if (clock.now() < order.activeAt || outOfReach(order)) return false
    // Most resting orders have filled nothing: no bigint made per quote.
    const remaining = order.filledSrc === 0n ? order.maxSrc : order.maxSrc - order.filledSrc
    let size = crosses(order, remaining) ? remaining : 0n
    if (size === 0n && order.partiallyFillable) {
      // The largest recorded size below what remains that crosses: the depth the quotes show at the limit.
      const quotes = book.quotesOf(pairOf(order))
      for (let at = quotes.length - 1; at >= 0; at--) {
        const quote = quotes[at] as BookQuote
        const recorded = quote.request.request.amount
        if (recorded < remaining && clock.now() - quote.time <= maxAgeMs && crosses(order, recorded)) {
          size = recorded
          break
        }
      }
    }
    if (size === 0n || balanceOf(order.chainId, order.srcToken) < size) return false
    const receive = improve((order.minDest * size) / order.maxSrc)
    move(order.chainId, order.srcToken, -size)
    move(order.destChainId, order.destToken, afterFees(model, receive))
    order.filledSrc += size
    fill(order, size, receive)
    if (order.filledSrc >= order.maxSrc) {
      retire(order)
      status(order.id, 'COMPLETED', 'backtest: limit reached')
    }
    return true
  }

  // --- OTC: a taker fills when the order is at least as good as the market for them ---
  function trySettleOtc(order: RestingOrder): boolean {
    const otc = order.otc as NonNullable<RestingOrder['otc']>
    const now = clock.now()
    // What the market gives a taker paying takerAsset for makerAsset: BUY the maker amount, or SELL the taker amount.
    const market = (side: 'BUY' | 'SELL', amount: bigint) =>
      priceFromBook(
        book,
        { source: 'market', chainId: order.chainId, destChainId: order.chainId, srcToken: otc.takerAsset, destToken: otc.makerAsset, side },
        amount,
        now,
        maxAgeMs,
      )
    const buy = market('BUY', otc.makerAmount)
    const sell = market('SELL', otc.takerAmount)
    const takerWins = (buy !== undefined && buy.srcAmount >= otc.takerAmount) || (sell !== undefined && sell.destAmount <= otc.makerAmount)
    if (!takerWins || balanceOf(order.chainId, otc.makerAsset) < otc.makerAmount) return false
    retire(order)
    move(order.chainId, otc.makerAsset, -otc.makerAmount)
    move(order.chainId, otc.takerAsset, afterFees(model, otc.takerAmount))
    fill(order, otc.makerAmount, otc.takerAmount)
    status(order.id, 'FULFILLED', 'backtest: filled by a taker')
    return true
  }

  function expireAt(order: RestingOrder): void {
    schedule(order.deadline * 1000, () => {
      if (!resting.has(order.id)) return
      retire(order)
      const slices = order.slices
      const missed =
        slices && slices.missed > 0 ? `; ${slices.missed} of ${slices.count} slices missed, the first ${slices.firstMissed}` : ''
      status(order.id, 'EXPIRED', `backtest: deadline passed${missed}`)
    })
  }

  function attempt(order: RestingOrder): void {
    if (!resting.has(order.id)) return
    if (order.mode === 'otc') trySettleOtc(order)
    else if (order.kind === 'limit') trySettleLimit(order)
    else if (!order.slices) trySettleDelta(order)
  }

  // --- TWAP: one slice per interval, each at the quote when due, skipped when the quote misses its limit ---
  function scheduleSlice(order: RestingOrder, index: number, at: number): void {
    schedule(at, () => {
      const slices = order.slices
      if (!slices || !resting.has(order.id)) return
      const sell = order.side === 'SELL'
      // floor(total / slices) each, the last slice with the remainder (as the Delta contract slices).
      const size = index + 1 === slices.count ? slices.total - slices.perSlice * BigInt(slices.count - 1) : slices.perSlice
      const quote = priceFromEitherSource(book, pairOf(order), size, clock.now(), maxAgeMs, onFallback)
      // Each slice its own auction at its own quote.
      const settlement = quote ? settlementOf(order.side, quote) : undefined
      const spend = settlement?.spend
      const receive = settlement?.receive
      const meets =
        quote !== undefined &&
        spend !== undefined &&
        receive !== undefined &&
        (sell ? receive >= slices.limitPerSlice : spend <= slices.limitPerSlice) &&
        balanceOf(order.chainId, order.srcToken) >= spend
      if (meets) {
        move(order.chainId, order.srcToken, -spend)
        move(order.chainId, order.destToken, afterFees(model, receive))
        // A slice is planned at its own quote: its slippage is the auction's, not the price's drift since the order.
        fill(order, spend, receive, {
          planned: { src: quote.srcAmount, dest: quote.destAmount },
          quotedFeePercent: quotedFeeOf(quote.from),
        })
        slices.done += 1
      } else {
        const [cause, why]: [SliceMissCause, string] =
          quote === undefined || spend === undefined || receive === undefined
            ? ['no quote', `no quote of the pair in the last ${model.maxQuoteAgeSeconds} s`]
            : !(sell ? receive >= slices.limitPerSlice : spend <= slices.limitPerSlice)
              ? [
                  'limit',
                  sell
                    ? `the quote gives ${receive}, below the signed ${slices.limitPerSlice} per slice`
                    : `the quote costs ${spend}, above the signed ${slices.limitPerSlice} per slice`,
                ]
              : ['balance', `the wallet holds ${balanceOf(order.chainId, order.srcToken)} of the ${spend} it needs`]
        const missed = `slice ${index + 1} of ${slices.count} at ${new Date(clock.now()).toISOString()}: ${why}`
        slices.missed += 1
        slices.firstMissed ??= missed
        const seen = sliceMisses.get(cause)
        if (seen) seen.count += 1
        else sliceMisses.set(cause, { count: 1, first: `order ${order.id}, ${missed}` })
      }
      if (index + 1 < slices.count) {
        scheduleSlice(order, index + 1, at + slices.intervalMs)
      } else if (slices.missed === 0) {
        retire(order)
        status(order.id, 'COMPLETED', 'backtest: every slice settled')
      }
      // With a slice missed the order stays open until its deadline, then expires, as the venue's does.
    })
  }

  // --- the OrderPlacement port ---
  async function placeDelta(context: ExecutorContext, plan: DeltaOrderPlan): Promise<JournalOrder> {
    const id = orderIdOf(plan.intent.id)
    const stored = journal.getOrder({ id })
    if (stored) return stored
    const now = clock.now()
    const route = plan.price.route
    const quotedSrc = route.origin.input.amount
    const quotedDest = route.destination.output.amount
    const slippage = BigInt(plan.build.slippage ?? 0)
    const base: RestingOrder = {
      id,
      intentId: plan.intent.id,
      strategy: plan.intent.strategy,
      mode: 'delta',
      kind: plan.intent.kind,
      chainId: plan.chainId,
      destChainId: plan.destChainId,
      srcToken: plan.srcToken,
      destToken: plan.destToken,
      side: plan.side,
      deadline: plan.deadline,
      planned: { src: quotedSrc, dest: quotedDest },
      maxSrc: plan.side === 'SELL' ? quotedSrc : (plan.build.limitAmount ?? ceilDiv(quotedSrc * (10_000n + slippage), 10_000n)),
      minDest: plan.side === 'SELL' ? (plan.build.limitAmount ?? (quotedDest * (10_000n - slippage)) / 10_000n) : quotedDest,
      activeAt: now + model.delta.auctionSeconds * 1000,
      filledSrc: 0n,
      partiallyFillable: plan.submit.partiallyFillable,
      watchKeys: [],
    }
    const intent = plan.intent
    if (intent.kind === 'limit') {
      base.maxSrc = intent.srcAmount
      base.minDest = intent.destAmount
      base.planned = { src: intent.srcAmount, dest: intent.destAmount }
    } else if (intent.kind === 'twap-sell' || intent.kind === 'twap-buy') {
      const count = intent.numSlices
      const sell = intent.kind === 'twap-sell'
      const perSlice = sell ? intent.totalSrcAmount / BigInt(count) : intent.totalDestAmount / BigInt(count)
      const quotedPerSlice = sell ? quotedDest : quotedSrc
      const limitPerSlice = sell
        ? (plan.build.limitAmount ?? (quotedPerSlice * (10_000n - slippage)) / 10_000n)
        : (plan.build.maxSrcAmount ?? intent.maxSrcAmount) / BigInt(count)
      const total = sell ? intent.totalSrcAmount : intent.totalDestAmount
      base.slices = { count, intervalMs: intent.intervalSeconds * 1000, perSlice, total, limitPerSlice, done: 0, missed: 0 }
      base.maxSrc = sell ? intent.totalSrcAmount : (plan.build.maxSrcAmount ?? intent.maxSrcAmount)
      base.minDest = sell ? limitPerSlice * BigInt(count) : intent.totalDestAmount
      base.planned = sell ? { src: perSlice, dest: quotedPerSlice } : { src: quotedPerSlice, dest: perSlice }
    }
    if (balanceOf(base.chainId, base.srcToken) < (base.slices ? base.slices.perSlice : base.kind === 'limit' ? 0n : base.maxSrc)) {
      insufficient('POST /v2/delta/orders', base.chainId, base.srcToken, base.maxSrc)
    }
    if (base.kind === 'limit' && balanceOf(base.chainId, base.srcToken) < base.maxSrc) {
      insufficient('POST /v2/delta/orders', base.chainId, base.srcToken, base.maxSrc)
    }
    record(base, { kind: base.kind, planned: { src: String(base.planned.src), dest: String(base.planned.dest) } }, undefined)
    resting.set(id, base)
    expireAt(base)
    if (base.slices) {
      status(id, 'ACTIVE', 'backtest: TWAP running')
      scheduleSlice(base, 0, base.activeAt)
    } else if (base.kind === 'limit') {
      status(id, 'ACTIVE', 'backtest: waiting for its price')
      watch(base, [pairOf(base)])
      schedule(base.activeAt, () => attempt(base))
    } else {
      status(id, 'PENDING', 'backtest: in auction')
      watch(base, [pairOf(base)])
      schedule(base.activeAt, () => attempt(base))
    }
    context.logger?.debug({ orderId: id, kind: base.kind }, 'backtest order placed')
    return journal.getOrder({ id }) as JournalOrder
  }

  /**
   * realistic: the block moves the price against the swap by impactShare × its size impact (the recorded price of its
   * size against the smallest recorded size's) plus a drift drawn either way (driftStdDevBps); gas is the recorded
   * Market quote's at the fill's time (else the route's).
   */
  function realisticMarketFill(
    order: RestingOrder,
    routeSrc: bigint,
    routeDest: bigint,
    routeGas: number,
  ): { spend: bigint; receive: bigint; gas: number } {
    const sell = order.side === 'SELL'
    const now = clock.now()
    const trade = priceFromEitherSource(book, pairOf(order, 'market'), sell ? routeSrc : routeDest, now, maxAgeMs)
    const smallest = trade && book.quotesOf(trade.pair).find((quote) => now - quote.time <= maxAgeMs && quote.request.request.amount > 0n)
    const impactBps = trade && smallest ? sizeImpactBps(order.side, smallest, trade) : 0
    const moveBps = model.market.impactShare * impactBps + model.market.driftStdDevBps * normal()
    const recordedGas = trade ? Number(trade.from.block.costs(trade.from.index).gasUsd ?? Number.NaN) : Number.NaN
    return {
      spend: sell ? routeSrc : shiftByBps(routeSrc, moveBps, 'up'),
      receive: sell ? shiftByBps(routeDest, -moveBps, 'down') : routeDest,
      gas: Number.isFinite(recordedGas) ? recordedGas : routeGas,
    }
  }

  async function placeMarket(_context: ExecutorContext, { intent, route }: MarketOrderPlan): Promise<JournalOrder> {
    const id = orderIdOf(intent.id)
    const stored = journal.getOrder({ id })
    if (stored) return stored
    const slippage = BigInt(intent.maxSlippageBps)
    const moveBps = BigInt(Math.round(model.market.slippageBps * 100))
    const sell = intent.side === 'SELL'
    const order: RestingOrder = {
      id,
      intentId: intent.id,
      strategy: intent.strategy,
      mode: 'market',
      kind: intent.kind,
      chainId: intent.chainId,
      destChainId: intent.chainId,
      srcToken: intent.srcToken,
      destToken: intent.destToken,
      side: intent.side,
      deadline: unixSeconds(clock) + 300,
      planned: { src: route.srcAmount, dest: route.destAmount },
      maxSrc: sell ? route.srcAmount : ceilDiv(route.srcAmount * (10_000n + slippage), 10_000n),
      minDest: sell ? (route.destAmount * (10_000n - slippage)) / 10_000n : route.destAmount,
      activeAt: clock.now(),
      filledSrc: 0n,
      partiallyFillable: false,
      watchKeys: [],
    }
    const routeGas = Number(route.gasCostUSD ?? model.market.gasUsd) || model.market.gasUsd
    const { spend, receive, gas } = realistic
      ? realisticMarketFill(order, route.srcAmount, route.destAmount, routeGas)
      : {
          spend: sell ? route.srcAmount : ceilDiv(route.srcAmount * (1_000_000n + moveBps), 1_000_000n),
          receive: sell ? (route.destAmount * (1_000_000n - moveBps)) / 1_000_000n : route.destAmount,
          gas: routeGas,
        }
    if (balanceOf(order.chainId, order.srcToken) < spend) insufficient('POST /transactions/{chainId}', order.chainId, order.srcToken, spend)
    record(order, { route: { srcAmount: String(route.srcAmount), destAmount: String(route.destAmount) } }, 0n)
    status(id, 'sent', 'backtest: broadcast')
    if (spend > order.maxSrc || receive < order.minDest) {
      gasUsd += gas
      status(id, 'reverted', 'backtest: slippage beyond the limit')
      return journal.getOrder({ id }) as JournalOrder
    }
    move(order.chainId, order.srcToken, -spend)
    move(order.chainId, order.destToken, afterFees(model, receive))
    fill(order, spend, receive, { gas, quotedFeePercent: route.partnerFee })
    status(id, 'mined', 'backtest: mined')
    return journal.getOrder({ id }) as JournalOrder
  }

  async function placeOtc(_context: ExecutorContext, intent: Extract<Intent, { kind: 'otc' }>): Promise<JournalOrder> {
    const id = orderIdOf(intent.id)
    const stored = journal.getOrder({ id })
    if (stored) return stored
    const order: RestingOrder = {
      id,
      intentId: intent.id,
      strategy: intent.strategy,
      mode: 'otc',
      kind: 'otc',
      chainId: intent.chainId,
      destChainId: intent.chainId,
      srcToken: intent.makerAsset,
      destToken: intent.takerAsset,
      side: 'SELL',
      deadline: intent.expiry,
      planned: { src: intent.makerAmount, dest: intent.takerAmount },
      maxSrc: intent.makerAmount,
      minDest: intent.takerAmount,
      activeAt: clock.now(),
      filledSrc: 0n,
      partiallyFillable: false,
      otc: {
        makerAsset: intent.makerAsset,
        takerAsset: intent.takerAsset,
        makerAmount: intent.makerAmount,
        takerAmount: intent.takerAmount,
      },
      watchKeys: [],
    }
    if (balanceOf(order.chainId, intent.makerAsset) < intent.makerAmount) {
      insufficient('POST /ft/p2p/{chainId}', order.chainId, intent.makerAsset, intent.makerAmount)
    }
    record(order, { otc: { makerAmount: String(intent.makerAmount), takerAmount: String(intent.takerAmount) } }, 0n)
    status(id, 'PENDING', 'backtest: posted')
    resting.set(id, order)
    expireAt(order)
    const pair = (side: 'SELL' | 'BUY'): BookPair => ({
      source: 'market',
      chainId: order.chainId,
      destChainId: order.chainId,
      srcToken: intent.takerAsset,
      destToken: intent.makerAsset,
      side,
    })
    watch(order, [pair('BUY'), pair('SELL')])
    schedule(clock.now(), () => attempt(order))
    return journal.getOrder({ id }) as JournalOrder
  }

  async function cancel(context: ExecutorContext, ids: readonly string[]): Promise<CancelOutcome[]> {
    const outcomes: CancelOutcome[] = []
    for (const id of ids) {
      const [order] = findOrders(context.journal, id)
      if (!order) {
        outcomes.push({ id, outcome: 'not-found', detail: 'no order in the journal has this local id, intent id, venue id or hash' })
      } else if (isFinalStatus(order.mode, order.status)) {
        outcomes.push({ id, orderId: order.id, outcome: 'final', detail: `already ${order.status}` })
      } else if (order.mode === 'market') {
        outcomes.push({ id, orderId: order.id, outcome: 'not-cancellable', detail: 'a broadcast Market transaction cannot be cancelled' })
      } else {
        const live = resting.get(order.id)
        if (live) retire(live)
        if (order.mode === 'otc') gasUsd += model.otc.cancelGasUsd
        status(order.id, 'CANCELLED', 'backtest: cancelled')
        outcomes.push({ id, orderId: order.id, outcome: 'requested', detail: 'cancelled' })
      }
    }
    return outcomes
  }

  const placement: OrderPlacement = {
    placeDelta,
    placeMarket,
    placeOtc,
    cancel,
    recoverAll: async () => [],
    recoverOne: async (_context, order) => ({ orderId: order.id, mode: order.mode, outcome: 'found', detail: 'backtest' }),
  }

  return {
    placement,
    /** Clock ms of the next scheduled settlement, slice, bridge or deadline. */
    nextEventAt: (): number | undefined => queue[0]?.at,
    /** Runs everything scheduled at or before the clock. */
    runDue(): void {
      const now = clock.now()
      while (queue.length > 0 && (queue[0] as Schedule).at <= now) (pop() as Schedule).run()
    },
    /** A watched request was quoted: resting orders on its pair try to settle. */
    quoted(requestId: number): void {
      const key = book.pairKeyOfRequest(requestId)
      if (key === undefined) return
      const ids = watcherOrder(key)
      if (ids === undefined) return
      for (const id of ids) {
        const order = resting.get(id)
        if (order) attempt(order)
      }
    },
    /** Whether the journal changed since the last takeChanged (without resetting it). */
    hasChanged: (): boolean => changed,
    /** Whether the journal changed since the last call (strategies have something to hear). */
    takeChanged(): boolean {
      const was = changed
      changed = false
      return was
    },
    balances: (): ReadonlyMap<string, bigint> => balances,
    /** Crosschain source amounts on their way (valued as the wallet's: they arrive or are refunded). */
    inTransit: (): ReadonlyMap<string, bigint> => inTransit,
    balanceOf,
    fills: (): readonly SimulatedFill[] => fills,
    gasUsd: (): number => gasUsd,
    openOrders: (): number => resting.size,
    /** TWAP slices missed so far, by cause. */
    sliceMisses: (): ReadonlyMap<SliceMissCause, SliceMisses> => sliceMisses,
  }
}
