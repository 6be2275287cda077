import { defineStrategy, type IntentRequest, quoteAgeMs, type StrategyContext } from '../../src/index.js'
import { otcIntentRequest } from './otc-intent.js'
import { type OtcPosterConfig, otcPosterConfigSchema } from './otc-poster-config.js'
import { type Generation, type PosterState, readPosterState, writePosterState } from './poster-state.js'
import { priceOtcOrder } from './price-otc-order.js'

type Context = StrategyContext<OtcPosterConfig>

/**
 * A generation neither its intent's result nor any order update was heard of (the execution threw, the bot died) is
 * taken as never placed once its expiry is this far behind: the RFQ contract refuses fills after expiry, so a re-post
 * cannot double the sale.
 */
const unheardGraceSeconds = 120

/** At a restart, an unheard generation is handed to the executor again only if it stays fillable this long. */
const resumeMarginSeconds = 30

/**
 * OTC P2P poster: sells `makerAmount` of `makerAsset` for `takerAsset` to one named counterparty (`taker`) with
 * maker-signed RFQ orders. The price is a live quote of the whole size (`quoteSource`: market or delta) plus
 * `premiumBps`, never under `minTakerAmount`. One order is live at a time; when it expires unfilled the next quote posts
 * a new generation (new intent key `otc-gen-N`, fresh price, fresh expiry of `expirySeconds`) for what is left to sell
 * (partial fills count), up to `maxPosts` posts. An intent the executor refuses (a risk limit) places nothing; the next
 * generation follows once its expiry has passed. It finishes when everything is sold, when `maxPosts` orders are over,
 * or when someone else cancelled its order. With `cancelOnStop` (default) onStop asks the executor to cancel the live
 * order on chain.
 *
 * Config: chainId, makerAsset, takerAsset, makerAmount (raw), taker, quoteSource (market), premiumBps (0),
 * minTakerAmount?, expirySeconds (3600), maxPosts?, maxQuoteAgeSeconds (60), cancelOnStop (true).
 *
 * Restart: everything lives in the journal state `poster` (posts, the live generation and its intent id, what was sold
 * and received, whether it finished). A generation not yet heard of is emitted again with the same key and content (same
 * intent id: the executor finishes an interrupted post, or does nothing); a live order is waited on, never re-posted;
 * an order cancelled at the last stop is followed by a new generation.
 */
export default defineStrategy({
  apiVersion: 1,
  name: 'otc-poster',
  configSchema: otcPosterConfigSchema,
  subscriptions: (config) => [
    {
      source: config.quoteSource,
      chainId: config.chainId,
      srcToken: config.makerAsset,
      destToken: config.takerAsset,
      amount: config.makerAmount,
      side: 'SELL',
    },
  ],

  onStart: ({ config, state, now, logger, intentIdOf }) => {
    const poster = readPosterState(state)
    if (poster.finished) {
      logger.info({ reason: poster.finished.reason, sold: String(poster.sold) }, 'OTC poster finished earlier; posting nothing')
      return
    }
    const current = poster.current
    if (!current || current.heard !== null || current.placement === 'not-placed' || current.cancelRequested) return
    if (current.expiry - resumeMarginSeconds <= nowSeconds(now)) return
    const request = otcIntentRequest(config, current)
    if (intentIdOf(request) !== current.intentId) {
      logger.warn({ generation: current.generation }, 'the config changed since this generation was posted; not emitting it again')
      return
    }
    return request
  },

  onQuote: (quote, context) => {
    const { config, state, now, logger } = context
    const poster = readPosterState(state)
    if (poster.finished) return
    if (poster.current) {
      if (!isOver(poster.current, nowSeconds(now))) return
      if (poster.current.placement !== 'not-placed') {
        logger.warn(
          { generation: poster.current.generation, expiry: poster.current.expiry },
          'nothing was heard of this OTC order until well past its expiry: taking it as never placed',
        )
      }
      poster.current = undefined
    }
    if (finishIfDone(poster, context)) {
      writePosterState(state, poster)
      return
    }
    if (quoteAgeMs(quote, now()) > config.maxQuoteAgeSeconds * 1000) {
      logger.debug({ ageMs: quoteAgeMs(quote, now()) }, 'quote too old to price an OTC order')
      return
    }
    const remainingMakerAmount = config.makerAmount - poster.sold
    const takerAmount = priceOtcOrder({
      quotedTakerAmount: quote.destAmount,
      makerAmount: config.makerAmount,
      remainingMakerAmount,
      premiumBps: config.premiumBps,
      minTakerAmount: config.minTakerAmount,
    })
    if (takerAmount === undefined) {
      logger.warn({ quotedTakerAmount: String(quote.destAmount) }, 'the quote prices the order at nothing; not posting')
      return
    }
    return post(poster, { makerAmount: remainingMakerAmount, takerAmount }, context)
  },

  onOrderUpdate: (event, context) => {
    const { order, reason } = event
    if (order.mode !== 'otc') return
    const { state, now, logger } = context
    const poster = readPosterState(state)
    const current = poster.current
    if (current?.intentId !== order.intentId) {
      // An earlier generation can fill only if it was taken for never placed: the sale is done, the live order must go.
      if (order.status !== 'FULFILLED' || poster.finished) return
      logger.warn({ orderId: order.id }, 'an earlier OTC order was filled; cancelling the live one')
      poster.finished = { reason: 'filled', at: now() }
      poster.current = undefined
      writePosterState(state, poster)
      return current ? cancelRequest(current) : undefined
    }
    switch (order.status) {
      case 'FULFILLED':
        poster.current = undefined
        poster.finished ??= { reason: 'filled', at: now() }
        logger.info({ generation: current.generation, orderHash: order.orderHash }, 'OTC order filled')
        break
      case 'EXPIRED':
        poster.current = undefined
        logger.info({ generation: current.generation, orderHash: order.orderHash }, 'OTC order expired; the next quote re-posts')
        finishIfDone(poster, context)
        break
      case 'CANCELLED':
        poster.current = undefined
        if (!current.cancelRequested) {
          // Cancelled by someone else (the kill switch, a user) or refused by the venue: never trade against that.
          poster.finished ??= { reason: 'cancelled', at: now() }
          logger.warn({ generation: current.generation, reason }, 'OTC order cancelled without the strategy asking; posting no more')
        } else {
          finishIfDone(poster, context)
        }
        break
      default:
        if (order.status === 'SUSPENDED' && current.heard !== 'SUSPENDED') {
          logger.warn({ generation: current.generation, reason }, 'OTC order suspended: the wallet lacks makerAsset or RFQ allowance')
        }
        poster.current = { ...current, heard: order.status }
    }
    writePosterState(state, poster)
  },

  onIntentResult: (result, { state, logger }) => {
    if (result.kind === 'cancel') {
      if (result.status === 'failed') logger.warn({ intentId: result.intentId, reason: result.reason }, 'cancelling the OTC order failed')
      return
    }
    const poster = readPosterState(state)
    const current = poster.current
    if (result.kind !== 'otc' || current?.intentId !== result.intentId || current.placement !== 'pending') return
    const placed = result.orderId !== null && (result.status === 'accepted' || result.status === 'done')
    const notPlaced = result.orderId === null && (result.status === 'refused' || result.status === 'failed')
    if (!placed && !notPlaced) return
    if (notPlaced) {
      // Refused by a risk limit, say: tried again with the next generation once this one's expiry has passed.
      logger.warn({ generation: current.generation, reason: result.reason }, 'OTC order not placed; the next post waits for its expiry')
    }
    poster.current = { ...current, placement: placed ? 'placed' : 'not-placed' }
    writePosterState(state, poster)
  },

  onFill: ({ order, fill }, context) => {
    if (order.mode !== 'otc') return
    const { state } = context
    const poster = readPosterState(state)
    if (poster.countedFills.includes(fill.id)) return
    poster.sold += fill.spentAmount
    poster.received += fill.receivedAmount
    poster.countedFills.push(fill.id)
    finishIfDone(poster, context)
    writePosterState(state, poster)
  },

  onStop: ({ config, state, now }) => {
    if (!config.cancelOnStop) return
    const poster = readPosterState(state)
    const current = poster.current
    // No order, or one past its expiry (the contract refuses any fill then): a cancel would only cost gas.
    if (!current || current.placement === 'not-placed' || current.expiry < nowSeconds(now)) return
    poster.current = { ...current, cancelRequested: true }
    writePosterState(state, poster)
    return cancelRequest(current)
  },
})

function post(poster: PosterState, terms: { makerAmount: bigint; takerAmount: bigint }, context: Context): IntentRequest {
  const { config, state, now, logger, intentIdOf } = context
  const generation = poster.posts + 1
  const expiry = nowSeconds(now) + config.expirySeconds
  const request = otcIntentRequest(config, { generation, expiry, ...terms })
  poster.posts = generation
  poster.current = {
    generation,
    key: request.key,
    intentId: intentIdOf(request),
    expiry,
    ...terms,
    heard: null,
    placement: 'pending',
    cancelRequested: false,
  }
  writePosterState(state, poster)
  logger.info(
    { generation, makerAmount: String(terms.makerAmount), takerAmount: String(terms.takerAmount), expiry, taker: config.taker },
    'posting OTC order',
  )
  return request
}

/** Marks the poster finished when everything is sold or no post is left; says whether it is finished. */
function finishIfDone(poster: PosterState, { config, now }: Context): boolean {
  if (poster.finished) return true
  if (poster.sold >= config.makerAmount) {
    // Everything is sold (the venue may not say FULFILLED yet): nothing is left to post or to cancel.
    poster.finished = { reason: 'filled', at: now() }
    poster.current = undefined
  } else if (!poster.current && config.maxPosts !== undefined && poster.posts >= config.maxPosts) {
    poster.finished = { reason: 'max-posts', at: now() }
  }
  return poster.finished !== undefined
}

function cancelRequest(generation: { key: string; intentId: string }): IntentRequest {
  return { key: `cancel-${generation.key}`, intent: { kind: 'cancel', intentIds: [generation.intentId] } }
}

/** Whether a generation no order is known of is over: at its expiry when none was placed, later when nothing was heard. */
function isOver(generation: Pick<Generation, 'heard' | 'placement' | 'expiry'>, now: number): boolean {
  if (generation.placement === 'not-placed') return now > generation.expiry
  return generation.heard === null && generation.placement === 'pending' && now > generation.expiry + unheardGraceSeconds
}

function nowSeconds(now: () => number): number {
  return Math.floor(now() / 1000)
}
