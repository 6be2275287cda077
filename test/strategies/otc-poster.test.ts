import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { type Address, erc20Abi, type Hex, parseAbi, parseEventLogs } from 'viem'
import { afterAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { MarketPriceRoute } from '../../src/api/market/price-route-schema.js'
import { parseConfig } from '../../src/config/load-config.js'
import { fetchQuote } from '../../src/feed/fetch-quote.js'
import { type Quote, type QuoteRequest, quoteRequestKey } from '../../src/feed/quote.js'
import { decimalsFromTokenList } from '../../src/feed/token-decimals.js'
import type { FillView, OrderView } from '../../src/index.js'
import { type Journal, openJournal } from '../../src/journal/journal.js'
import type { JournalOrder } from '../../src/journal/orders.js'
import { createLogger } from '../../src/log/logger.js'
import { createBot } from '../../src/runtime/bot.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js'
import { createSafeStrategy, type StrategyRun } from '../../src/strategy/safe-strategy.js'
import { ManualClock } from '../../src/time/clock.js'
import otcPoster from '../../strategies/otc-poster/index.js'
import { otcPosterConfigSchema } from '../../strategies/otc-poster/otc-poster-config.js'
import { priceOtcOrder } from '../../strategies/otc-poster/price-otc-order.js'
import { sandboxExecutorContext } from '../helpers/executor.js'
import { request, sandboxToken, sandboxWallet, useSandbox } from '../helpers/sandbox.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

const logger = createLogger({ level: 'silent' })
const weth: Address = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'
const usdc: Address = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
const posterAccount = 5
const counterparty: Address = '0xa92217CCE9a750E3d5F429cD0c731c9d49CC5aDc'
// Not a sandbox counterparty: nobody fills an order naming it.
const silentTaker = (developmentAccounts[7] as { address: Address }).address
const oneWeth = 10n ** 18n

async function waitFor<T>(read: () => T | undefined | Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`waitFor: no ${what} after ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const baseConfig = {
  chainId: 1,
  makerAsset: weth,
  takerAsset: usdc,
  makerAmount: oneWeth.toString(),
  taker: counterparty,
  premiumBps: 50,
}

describe('otc-poster config', () => {
  it('accepts the example config/otc-poster.yaml, both as a bot config and as the strategy config', () => {
    const config = parseConfig(readFileSync('config/otc-poster.yaml', 'utf8'), 'config/otc-poster.yaml', { env: {} })
    const entry = config.strategies.find((strategy) => strategy.use === 'otc-poster')
    expect(entry).toBeDefined()
    const parsed = otcPosterConfigSchema.parse(entry?.config)
    expect(parsed).toMatchObject({ chainId: 1, makerAsset: weth, takerAsset: usdc, makerAmount: oneWeth, taker: counterparty })
    expect(parsed.minTakerAmount).toBe(1_500_000_000n)
  })

  it('applies the defaults and refuses a zero taker, one token on both sides and a decimal amount, naming each field', () => {
    expect(otcPosterConfigSchema.parse(baseConfig)).toMatchObject({
      quoteSource: 'market',
      expirySeconds: 3_600,
      maxQuoteAgeSeconds: 60,
      cancelOnStop: true,
    })
    const result = otcPosterConfigSchema.safeParse({
      ...baseConfig,
      taker: '0x0000000000000000000000000000000000000000',
      takerAsset: weth,
      makerAmount: '1.5',
      premiumBps: 20_000,
      surprise: true,
    })
    expect(result.success).toBe(false)
    const byField = new Map(result.error?.issues.map((issue) => [issue.path.join('.') || String(issue.code), issue.message]))
    expect(byField.get('makerAmount')).toMatch(/expected a positive raw amount .* received "1.5"/)
    expect(byField.get('premiumBps')).toMatch(/from -5000 to 10000, received 20000/)
    expect([...byField.keys()].join(' ')).toContain('unrecognized_keys')
    // Cross-field rules run once the fields parse.
    const crossed = otcPosterConfigSchema.safeParse({
      ...baseConfig,
      taker: '0x0000000000000000000000000000000000000000',
      takerAsset: weth,
    })
    const crossedFields = new Map(crossed.error?.issues.map((issue) => [issue.path.join('.'), issue.message]))
    expect(crossedFields.get('taker')).toMatch(/zero address/)
    expect(crossedFields.get('takerAsset')).toMatch(/other than makerAsset/)
  })
})

describe('priceOtcOrder', () => {
  it('adds the premium to the quote, rounding up', () => {
    expect(priceOtcOrder({ quotedTakerAmount: 2_000_000_000n, makerAmount: oneWeth, remainingMakerAmount: oneWeth, premiumBps: 50 })).toBe(
      2_010_000_000n,
    )
    expect(priceOtcOrder({ quotedTakerAmount: 3n, makerAmount: 1n, remainingMakerAmount: 1n, premiumBps: 1 })).toBe(4n)
    expect(priceOtcOrder({ quotedTakerAmount: 1_000n, makerAmount: 1n, remainingMakerAmount: 1n, premiumBps: -100 })).toBe(990n)
  })

  it('asks at least the floor, scaled to what is left to sell, and nothing for a worthless quote', () => {
    const floor = { makerAmount: 4n * oneWeth, premiumBps: 0, minTakerAmount: 8_000_000_000n }
    expect(priceOtcOrder({ ...floor, quotedTakerAmount: 7_000_000_000n, remainingMakerAmount: oneWeth })).toBe(2_000_000_000n)
    expect(priceOtcOrder({ ...floor, quotedTakerAmount: 9_000_000_000n, remainingMakerAmount: oneWeth })).toBe(2_250_000_000n)
    expect(priceOtcOrder({ quotedTakerAmount: 0n, makerAmount: 1n, remainingMakerAmount: 1n, premiumBps: 0 })).toBeUndefined()
    expect(priceOtcOrder({ quotedTakerAmount: 5n, makerAmount: 2n, remainingMakerAmount: 0n, premiumBps: 0 })).toBeUndefined()
  })

  it('never asks under the quoted rate plus the premium for the part left', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 30n }),
        fc.bigInt({ min: 1n, max: 10n ** 24n }),
        fc.bigInt({ min: 1n, max: 10n ** 24n }),
        fc.integer({ min: -5_000, max: 10_000 }),
        (quoted, makerAmount, remainingSeed, premiumBps) => {
          const remaining = ((remainingSeed - 1n) % makerAmount) + 1n
          const asked = priceOtcOrder({ quotedTakerAmount: quoted, makerAmount, remainingMakerAmount: remaining, premiumBps })
          // Exact: asked / remaining >= quoted * (1 + premium) / makerAmount, and less than one unit above it.
          const exact = quoted * BigInt(10_000 + premiumBps) * remaining
          const scale = 10_000n * makerAmount
          expect(asked).toBeDefined()
          expect((asked as bigint) * scale).toBeGreaterThanOrEqual(exact)
          expect(((asked as bigint) - 2n) * scale).toBeLessThan(exact)
        },
      ),
    )
  })
})

const unitDirectory = createTempDirectory('deltaflow-otc-poster-unit-')
const unitJournals: Journal[] = []
afterAll(() => {
  for (const journal of unitJournals) journal.close()
  unitDirectory.cleanup()
})

/** The strategy run through createSafeStrategy on a manual clock, its state in a journal of its own. */
function harness(config: Record<string, unknown>) {
  const clock = new ManualClock(1_800_000_000_000)
  const journal = openJournal({ file: unitDirectory.path(`unit-${unitJournals.length}.sqlite`), clock })
  unitJournals.push(journal)
  const strategy = createSafeStrategy(otcPoster, { config: { ...baseConfig, ...config }, clock, journal, logger })
  const [subscription] = strategy.subscriptions
  if (!subscription) throw new Error('otc-poster subscribes to nothing')
  const quote = (destAmount: bigint): Quote => ({
    request: subscription,
    key: quoteRequestKey(subscription),
    srcAmount: subscription.amount,
    destAmount,
    answer: { source: 'market', route: {} as MarketPriceRoute },
    requestedAt: clock.now(),
    receivedAt: clock.now(),
  })
  const posterAddress = (developmentAccounts[posterAccount]?.address.toLowerCase() ?? '0x') as Address
  const order = (intentId: string, status: OrderView['status'], generation = 1): OrderView => ({
    id: `${intentId}/0`,
    intentId,
    mode: 'otc',
    account: posterAddress,
    beneficiary: posterAddress,
    chainId: 1,
    destChainId: 1,
    venueId: `0x${generation.toString(16).padStart(64, '0')}`,
    orderHash: `0x${generation.toString(16).padStart(64, '0')}`,
    deadline: null,
    srcToken: weth.toLowerCase() as Address,
    destToken: usdc.toLowerCase() as Address,
    srcAmount: oneWeth,
    destAmount: 1n,
    side: 'SELL',
    status,
    createdAt: clock.now(),
    updatedAt: clock.now(),
  })
  const fill = (id: number, spentAmount: bigint, receivedAmount: bigint): FillView => ({
    id,
    orderId: 'x',
    chainId: 1,
    txHash: `0x${id.toString(16).padStart(64, '0')}`,
    destinationChainId: null,
    destinationTxHash: null,
    spentAmount,
    receivedAmount,
    recordedAt: clock.now(),
  })
  const state = () => journal.getStrategyState('otc-poster', 'poster') as Record<string, unknown> & { current?: Record<string, unknown> }
  return { clock, strategy, quote, order, fill, state }
}

function intentsOf(run: StrategyRun) {
  if (run.outcome !== 'handled') throw new Error(`expected the event handled, got ${JSON.stringify(run)}`)
  return run.intents
}

describe('otc-poster handlers', () => {
  it('posts generation 1 at the quote plus the premium on the first quote, and nothing more while it is live', async () => {
    const { clock, strategy, quote, order, state } = harness({ expirySeconds: 600 })
    const [posted, ...more] = intentsOf(await strategy.handleQuote(quote(2_000_000_000n)))
    expect(more).toEqual([])
    expect(posted).toMatchObject({
      kind: 'otc',
      makerAsset: weth,
      takerAsset: usdc,
      makerAmount: oneWeth,
      takerAmount: 2_010_000_000n,
      taker: counterparty,
      expiry: Math.floor(clock.now() / 1000) + 600,
    })
    // The id the strategy derived is the one the runtime gave the intent.
    expect(state().current).toMatchObject({ generation: 1, key: 'otc-gen-1', intentId: posted?.id, heard: null })
    expect(intentsOf(await strategy.handleQuote(quote(1_000_000_000n)))).toEqual([])
    intentsOf(await strategy.handleOrderUpdate({ order: order(posted?.id as string, 'PENDING'), reason: 'venue' }))
    clock.advance(3_600_000)
    expect(intentsOf(await strategy.handleQuote(quote(1_000_000_000n)))).toEqual([])
    expect(state().current).toMatchObject({ heard: 'PENDING' })
  })

  it('re-posts under a new key at a fresh price after an expiry, and finishes once maxPosts orders expired', async () => {
    const { clock, strategy, quote, order, state } = harness({ expirySeconds: 60, maxPosts: 2 })
    const [first] = intentsOf(await strategy.handleQuote(quote(2_000_000_000n)))
    clock.advance(61_000)
    intentsOf(await strategy.handleOrderUpdate({ order: order(first?.id as string, 'EXPIRED'), reason: 'venue' }))
    const [second] = intentsOf(await strategy.handleQuote(quote(3_000_000_000n)))
    expect(second?.id).not.toBe(first?.id)
    expect(second).toMatchObject({ kind: 'otc', takerAmount: 3_015_000_000n, expiry: Math.floor(clock.now() / 1000) + 60 })
    expect(state().current).toMatchObject({ generation: 2, key: 'otc-gen-2', intentId: second?.id })
    clock.advance(61_000)
    intentsOf(await strategy.handleOrderUpdate({ order: order(second?.id as string, 'EXPIRED', 2), reason: 'venue' }))
    expect(state()).toMatchObject({ posts: 2, finished: { reason: 'max-posts' } })
    expect(intentsOf(await strategy.handleQuote(quote(3_000_000_000n)))).toEqual([])
    expect(intentsOf(await strategy.stop())).toEqual([])
  })

  it('finishes when its order is filled, counts a fill delivered twice once, and asks no cancel on stop', async () => {
    const { strategy, quote, order, fill, state } = harness({})
    const [posted] = intentsOf(await strategy.handleQuote(quote(2_000_000_000n)))
    const filled = order(posted?.id as string, 'FULFILLED')
    const pending = order(posted?.id as string, 'PENDING')
    await strategy.handleFill({ order: pending, fill: fill(7, oneWeth, 2_010_000_000n) })
    await strategy.handleFill({ order: pending, fill: fill(7, oneWeth, 2_010_000_000n) })
    // Sold out before the venue says FULFILLED: nothing left to cancel.
    expect(intentsOf(await strategy.stop())).toEqual([])
    await strategy.handleOrderUpdate({ order: filled, reason: 'venue' })
    expect(state()).toMatchObject({ sold: oneWeth.toString(), received: '2010000000', countedFills: [7], finished: { reason: 'filled' } })
    expect(state().current).toBeUndefined()
    expect(intentsOf(await strategy.handleQuote(quote(2_000_000_000n)))).toEqual([])
    expect(intentsOf(await strategy.stop())).toEqual([])
  })

  it('re-posts only what a partial fill left, at the same rate', async () => {
    const { clock, strategy, quote, order, fill } = harness({ makerAmount: (4n * oneWeth).toString(), expirySeconds: 60 })
    const [first] = intentsOf(await strategy.handleQuote(quote(8_000_000_000n)))
    await strategy.handleFill({ order: order(first?.id as string, 'PENDING'), fill: fill(1, oneWeth, 2_010_000_000n) })
    clock.advance(61_000)
    await strategy.handleOrderUpdate({ order: order(first?.id as string, 'EXPIRED'), reason: 'venue' })
    const [second] = intentsOf(await strategy.handleQuote(quote(8_000_000_000n)))
    expect(second).toMatchObject({ makerAmount: 3n * oneWeth, takerAmount: 6_030_000_000n })
  })

  it('cancels its live order on stop, and after the CANCELLED that follows (a restart) posts a new generation', async () => {
    const { strategy, quote, order, state } = harness({})
    const [posted] = intentsOf(await strategy.handleQuote(quote(2_000_000_000n)))
    await strategy.handleOrderUpdate({ order: order(posted?.id as string, 'PENDING'), reason: 'venue' })
    const [cancel] = intentsOf(await strategy.stop())
    expect(cancel).toMatchObject({ kind: 'cancel', intentIds: [posted?.id], orderIds: [] })
    expect(state().current).toMatchObject({ cancelRequested: true })
    // Started again: the order is still live until the reconciler says CANCELLED; nothing is posted meanwhile.
    expect(intentsOf(await strategy.start())).toEqual([])
    expect(intentsOf(await strategy.handleQuote(quote(2_000_000_000n)))).toEqual([])
    await strategy.handleOrderUpdate({ order: order(posted?.id as string, 'CANCELLED'), reason: 'venue' })
    const [again] = intentsOf(await strategy.handleQuote(quote(2_000_000_000n)))
    expect(again).toMatchObject({ kind: 'otc' })
    expect(state().current).toMatchObject({ generation: 2, key: 'otc-gen-2' })
  })

  it('posts no more after a cancellation it did not ask for, and keeps the order on stop when cancelOnStop is off', async () => {
    const external = harness({})
    const [posted] = intentsOf(await external.strategy.handleQuote(external.quote(2_000_000_000n)))
    await external.strategy.handleOrderUpdate({ order: external.order(posted?.id as string, 'CANCELLED'), reason: 'kill switch' })
    expect(external.state()).toMatchObject({ finished: { reason: 'cancelled' } })
    expect(intentsOf(await external.strategy.handleQuote(external.quote(2_000_000_000n)))).toEqual([])

    const keep = harness({ cancelOnStop: false })
    intentsOf(await keep.strategy.handleQuote(keep.quote(2_000_000_000n)))
    expect(intentsOf(await keep.strategy.stop())).toEqual([])
  })

  it('emits an unheard generation again at start, and takes it as never placed once well past its expiry', async () => {
    const { clock, strategy, quote, state } = harness({ expirySeconds: 600 })
    const [posted] = intentsOf(await strategy.handleQuote(quote(2_000_000_000n)))
    // A restart before any update: the same key and content, so the same intent id.
    const [resumed] = intentsOf(await strategy.start())
    expect(resumed?.id).toBe(posted?.id)
    clock.advance(600_000 + 60_000)
    expect(intentsOf(await strategy.handleQuote(quote(2_000_000_000n)))).toEqual([])
    expect(intentsOf(await strategy.start())).toEqual([])
    clock.advance(61_000)
    const [next] = intentsOf(await strategy.handleQuote(quote(2_000_000_000n)))
    expect(next?.id).not.toBe(posted?.id)
    expect(state()).toMatchObject({ posts: 2, current: { generation: 2 } })
  })

  it('waits for the expiry of an intent the executor refused, then posts the next generation, and cancels nothing on stop', async () => {
    const { clock, strategy, quote, state } = harness({ expirySeconds: 600 })
    const [refused] = intentsOf(await strategy.handleQuote(quote(2_000_000_000n)))
    const result = {
      intentId: refused?.id as string,
      kind: 'otc' as const,
      status: 'refused' as const,
      reason: 'dailyBudget: ...',
      orderId: null,
    }
    intentsOf(await strategy.handleIntentResult(result))
    expect(state().current).toMatchObject({ generation: 1, placement: 'not-placed' })
    expect(intentsOf(await strategy.start())).toEqual([])
    expect(intentsOf(await strategy.stop())).toEqual([])
    clock.advance(600_000)
    expect(intentsOf(await strategy.handleQuote(quote(2_000_000_000n)))).toEqual([])
    clock.advance(1_000)
    const [next] = intentsOf(await strategy.handleQuote(quote(2_000_000_000n)))
    expect(next).toMatchObject({ kind: 'otc' })
    expect(state().current).toMatchObject({ generation: 2, placement: 'pending' })
    const placed = {
      intentId: next?.id as string,
      kind: 'otc' as const,
      status: 'accepted' as const,
      reason: null,
      orderId: `${next?.id}/0`,
    }
    intentsOf(await strategy.handleIntentResult(placed))
    expect(state().current).toMatchObject({ generation: 2, placement: 'placed' })
    // Placed: never taken for lost, however late its updates are.
    clock.advance(3_600_000)
    expect(intentsOf(await strategy.handleQuote(quote(2_000_000_000n)))).toEqual([])
  })

  it('subscribes to a quote of the whole makerAmount from the configured source', () => {
    expect(harness({}).strategy.subscriptions).toEqual([
      { source: 'market', chainId: 1, srcToken: weth, destToken: usdc, amount: oneWeth, side: 'SELL' },
    ])
    expect(harness({ quoteSource: 'delta' }).strategy.subscriptions[0]?.source).toBe('delta')
  })

  it('skips a stale quote', async () => {
    const { clock, strategy, quote } = harness({ maxQuoteAgeSeconds: 5 })
    const stale = quote(2_000_000_000n)
    clock.advance(6_000)
    expect(intentsOf(await strategy.handleQuote(stale))).toEqual([])
    expect(intentsOf(await strategy.handleQuote(quote(2_000_000_000n)))).toHaveLength(1)
  })
})

const counterpartiesSchema = z.object({ counterparties: z.array(z.string().regex(/^0x[0-9a-fA-F]{40}$/)) })
const rfqAbi = parseAbi([
  'function remaining(address maker, bytes32 orderHash) view returns (uint256)',
  'event OrderCancelled(bytes32 indexed orderHash, address indexed maker)',
])

describe('otc-poster on the sandbox', () => {
  // 60 sandbox seconds per real second: expiries of a minute pass in one real second.
  const sandbox = useSandbox({ chainIds: [1], speed: 60 })
  const directory = createTempDirectory('deltaflow-otc-poster-')
  afterAll(() => directory.cleanup())

  async function startPoster(s: RunningSandbox, journalFile: string, config: Record<string, unknown>) {
    const context = await sandboxExecutorContext(s, { accountIndex: posterAccount, journalFile, clock: s.venue.clock })
    const strategy = createSafeStrategy(otcPoster, {
      config: { ...baseConfig, ...config },
      clock: s.venue.clock,
      journal: context.journal,
      logger,
    })
    const tokens = [
      { chainId: 1, ...sandboxToken(s, 1, 'WETH') },
      { chainId: 1, ...sandboxToken(s, 1, 'USDC') },
    ]
    const decimalsOf = decimalsFromTokenList(tokens)
    const bot = createBot({ context, strategies: [strategy], feedIntervalMs: 100, reconcileIntervalMs: 150, decimalsOf, logger })
    await bot.start()
    const posterState = () => context.journal.getStrategyState('otc-poster', 'poster') as Record<string, unknown> | undefined
    return { bot, context, strategy, decimalsOf, posterState }
  }

  async function balancesOf(s: RunningSandbox, holder: Address) {
    const wallet = sandboxWallet(s, 1, posterAccount)
    const read = (token: Address) => wallet.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [holder] })
    return { weth: await read(weth), usdc: await read(usdc) }
  }

  const fillJournal = () => directory.path('fill.sqlite')

  it('posts a P2P order the sandbox counterparty fills: FULFILLED with its fill in the journal, the tokens moved to the wei', async () => {
    const s = sandbox()
    const listed = counterpartiesSchema.parse((await request(s.url, 'GET', '/_sandbox/otc/counterparties')).json)
    expect(listed.counterparties).toContain(counterparty)
    const maker = (developmentAccounts[posterAccount] as { address: Address }).address
    const before = await balancesOf(s, maker)

    const { bot, context, strategy, decimalsOf, posterState } = await startPoster(s, fillJournal(), { expirySeconds: 600 })
    // The fill (from the chain's logs) may reach the strategy before the venue's FULFILLED: wait for both.
    const fulfilled = () => context.journal.listOrders({ strategy: 'otc-poster', status: 'FULFILLED' })[0]
    await waitFor(() => (posterState()?.finished && fulfilled() ? true : undefined), 15_000, 'finished poster and FULFILLED order')
    await bot.stop()

    const orders = context.journal.listOrders({ strategy: 'otc-poster' })
    expect(orders).toHaveLength(1)
    const order = orders[0] as JournalOrder
    expect(order).toMatchObject({ mode: 'otc', status: 'FULFILLED', srcAmount: oneWeth, account: maker.toLowerCase() })
    const [intent, ...otherIntents] = context.journal.intentsOf('otc-poster')
    expect(otherIntents).toEqual([])
    expect(intent).toMatchObject({ kind: 'otc', status: 'done', intent: { taker: counterparty, makerAmount: oneWeth.toString() } })
    const fills = context.journal.fillsOf(order.id)
    expect(fills).toHaveLength(1)
    expect(fills[0]).toMatchObject({ spentAmount: oneWeth, receivedAmount: order.destAmount })
    // On a loaded machine the sandbox's tracker has been seen to report SUSPENDED for a moment before FULFILLED.
    const history = context.journal.orderHistory(order.id).map((change) => change.status)
    expect(history.slice(0, 2)).toEqual(['SIGNED', 'PENDING'])
    expect(history.at(-1)).toBe('FULFILLED')
    expect(history.filter((status) => !['SIGNED', 'PENDING', 'SUSPENDED', 'FULFILLED'].includes(status))).toEqual([])

    // The asked price is the Market quote of 1 WETH plus 50 bps (the pools stand still in this sandbox).
    const subscription = strategy.subscriptions[0] as QuoteRequest
    const quoted = await fetchQuote(context.api, { request: subscription, decimalsOf, clock: s.venue.clock })
    expect(order.destAmount).toBe((quoted.destAmount * 10_050n + 9_999n) / 10_000n)

    const after = await balancesOf(s, maker)
    expect(before.weth - after.weth).toBe(oneWeth)
    expect(after.usdc - before.usdc).toBe(order.destAmount)
    const venue = z.object({ state: z.string() }).parse((await request(s.url, 'GET', `/ft/order/${order.orderHash}`)).json)
    expect(venue.state).toBe('FULFILLED')
    expect(posterState()).toMatchObject({
      posts: 1,
      sold: oneWeth.toString(),
      received: order.destAmount.toString(),
      finished: { reason: 'filled' },
    })
    expect(strategy.stats().failures).toBe(0)
    context.journal.close()
  }, 25_000)

  it('places nothing twice when a new bot starts over the same journal', async () => {
    const s = sandbox()
    const { bot, context, strategy } = await startPoster(s, fillJournal(), { expirySeconds: 600 })
    const before = context.journal.listOrders()
    await waitFor(() => (strategy.stats().eventsHandled >= 5 && bot.stats().reconcilePasses >= 2 ? true : undefined), 10_000, 'quotes')
    await bot.stop()
    expect(context.journal.listOrders()).toEqual(before)
    expect(context.journal.intentsOf('otc-poster')).toHaveLength(1)
    expect(bot.stats().intentsQueued).toBe(0)
    context.journal.close()
  }, 20_000)

  it('re-posts a new generation after its order expires unfilled, until maxPosts', async () => {
    const s = sandbox()
    const maker = (developmentAccounts[posterAccount] as { address: Address }).address
    const before = await balancesOf(s, maker)
    const { bot, context, posterState } = await startPoster(s, directory.path('expiry.sqlite'), {
      taker: silentTaker,
      expirySeconds: 60,
      maxPosts: 2,
    })
    await waitFor(() => (posterState()?.finished ? true : undefined), 20_000, 'finished poster')
    await bot.stop()

    expect(posterState()).toMatchObject({ posts: 2, sold: '0', finished: { reason: 'max-posts' } })
    const orders = context.journal.listOrders({ strategy: 'otc-poster' }).sort((left, right) => left.createdAt - right.createdAt)
    expect(orders.map((order) => order.status)).toEqual(['EXPIRED', 'EXPIRED'])
    const [first, second] = orders as [JournalOrder, JournalOrder]
    expect(second.intentId).not.toBe(first.intentId)
    expect(second.orderHash).not.toBe(first.orderHash)
    // The second was posted after the first expired, with an expiry of its own.
    expect(second.createdAt).toBeGreaterThan((first.deadline as number) * 1000)
    expect(second.deadline).toBeGreaterThan(first.deadline as number)
    const intents = context.journal.intentsOf('otc-poster')
    expect(intents.map((intent) => [intent.kind, intent.status])).toEqual([
      ['otc', 'done'],
      ['otc', 'done'],
    ])
    expect(orders.flatMap((order) => context.journal.fillsOf(order.id))).toEqual([])
    const after = await balancesOf(s, maker)
    expect(after).toEqual(before)
    context.journal.close()
  }, 25_000)

  it('cancels its live order on chain when the bot stops, and a restarted bot posts a new generation', async () => {
    const s = sandbox()
    const journalFile = directory.path('cancel.sqlite')
    const config = { taker: silentTaker, expirySeconds: 3_600 }
    const first = await startPoster(s, journalFile, config)
    const order = await waitFor(
      () => first.context.journal.listOrders({ strategy: 'otc-poster', status: 'PENDING' })[0],
      10_000,
      'PENDING order',
    )
    await first.bot.stop()

    const cancel = first.context.journal.intentsOf('otc-poster').find((intent) => intent.kind === 'cancel')
    expect(cancel).toMatchObject({ status: 'done', intent: { intentIds: [order.intentId] } })
    const [transaction] = first.context.journal.transactionsOf(order.id).filter((sent) => sent.purpose === 'cancel')
    expect(transaction).toBeDefined()
    const wallet = sandboxWallet(s, 1, posterAccount)
    const receipt = await wallet.getTransactionReceipt({ hash: transaction?.txHash as Hex })
    expect(receipt.status).toBe('success')
    const cancelled = parseEventLogs({ abi: rfqAbi, logs: receipt.logs, eventName: 'OrderCancelled' })
    expect(cancelled.map((log) => log.args.orderHash.toLowerCase())).toEqual([order.orderHash])
    const rfq = s.venue.chains.get(1)?.fixture.contracts.rfq as Address
    const maker = (developmentAccounts[posterAccount] as { address: Address }).address
    // 1: filled or cancelled, for good.
    expect(await wallet.readContract({ address: rfq, abi: rfqAbi, functionName: 'remaining', args: [maker, order.orderHash as Hex] })).toBe(
      1n,
    )
    first.context.journal.close()

    const second = await startPoster(s, journalFile, config)
    const reposted = await waitFor(
      () => second.context.journal.listOrders({ strategy: 'otc-poster', status: 'PENDING' }).find((open) => open.id !== order.id),
      10_000,
      'a second PENDING order',
    )
    await second.bot.stop()
    expect(second.context.journal.getOrder({ id: order.id })?.status).toBe('CANCELLED')
    const kinds = second.context.journal.intentsOf('otc-poster').map((intent) => [intent.kind, intent.status])
    expect(kinds).toEqual([
      ['otc', 'done'],
      ['cancel', 'done'],
      // done when the bot's last reconciliation at stop already saw the cancellation
      ['otc', expect.stringMatching(/^(accepted|done)$/)],
      ['cancel', 'done'],
    ])
    expect(
      await wallet.readContract({ address: rfq, abi: rfqAbi, functionName: 'remaining', args: [maker, reposted.orderHash as Hex] }),
    ).toBe(1n)
    second.context.journal.close()
  }, 25_000)
})
