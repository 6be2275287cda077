import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { type Address, erc20Abi, type Hex, maxUint256, parseAbi, parseEther } from 'viem'
import { afterAll, describe, expect, it } from 'vitest'
import { getDeltaOrders } from '../../src/api/delta/get-delta-orders.js'
import { parseConfig } from '../../src/config/load-config.js'
import { orderIdOf } from '../../src/domain/order-id.js'
import type { ExecutorContext } from '../../src/exec/executor/executor-context.js'
import { decimalsFromTokenList } from '../../src/feed/token-decimals.js'
import type { OrderView } from '../../src/index.js'
import { openJournal } from '../../src/journal/journal.js'
import type { JournalOrder } from '../../src/journal/orders.js'
import { createLogger } from '../../src/log/logger.js'
import { marketRouterAddress } from '../../src/protocol/addresses.js'
import { type Bot, createBot } from '../../src/runtime/bot.js'
import type { DeployedPool } from '../../src/sandbox/chains/fixture.js'
import { waitForLocalReceipt } from '../../src/sandbox/chains/receipt.js'
import { getContractArtifact } from '../../src/sandbox/contracts/compile.js'
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js'
import { createSafeStrategy, type StrategyRun } from '../../src/strategy/safe-strategy.js'
import { ManualClock } from '../../src/time/clock.js'
import ladder from '../../strategies/ladder/index.js'
import { ladderConfigSchema } from '../../strategies/ladder/ladder-config.js'
import { levelOrder } from '../../strategies/ladder/ladder-orders.js'
import {
  formatPrice,
  gridPrice,
  integerRoot,
  type LadderGrid,
  parseDecimalPrice,
  priceScale,
  quoteAmountAt,
} from '../../strategies/ladder/ladder-prices.js'
import { type LadderState, ladderStateSchema, retryDueKey } from '../../strategies/ladder/ladder-state.js'
import { sandboxExecutorContext } from '../helpers/executor.js'
import { sandboxToken, sandboxWallet, useSandbox } from '../helpers/sandbox.js'
import { createTempDirectory } from '../helpers/temp-directory.js'
import { waitFor as waitUntil } from '../helpers/wait-for.js'

/** waitFor with this file's bounds. */
const waitFor = <T>(what: string, read: () => T | undefined | Promise<T | undefined>, timeoutMs = 15_000) =>
  waitUntil(what, read, timeoutMs)

const directory = createTempDirectory('deltaflow-ladder-')
afterAll(() => directory.cleanup())

const logger = createLogger({ level: 'silent' })
const wethAddress: Address = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'
const usdcAddress: Address = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
const weth = { address: wethAddress, decimals: 18 } as const
const usdc = { address: usdcAddress, decimals: 6 } as const
const tenthWeth = parseEther('0.1')

/** A sell ladder of 0.1 WETH per level at 2000 / 2050 / 2100 / 2150 USDC per WETH. */
const sellLadder = {
  chainId: 1,
  side: 'sell',
  base: weth,
  quote: usdc,
  lowerPrice: '2000',
  upperPrice: '2150',
  levels: 4,
  sizePerLevel: tenthWeth.toString(),
  cancelOnStop: true,
}

const scaled = (price: string) => parseDecimalPrice(price) as bigint

describe('ladder prices', () => {
  it('parses decimal prices exactly, scaled by 10^18, and refuses anything else', () => {
    expect(parseDecimalPrice('2450.5')).toBe(2_450_500_000_000_000_000_000n)
    expect(parseDecimalPrice('0.000000000000000001')).toBe(1n)
    expect(parseDecimalPrice('7')).toBe(7n * priceScale)
    for (const bad of ['', '1.', '.5', '-1', '1e3', '1.0000000000000000001', ' 1', '1,5']) expect(parseDecimalPrice(bad)).toBeUndefined()
  })

  it('spaces a linear ladder in exact equal steps, with one step beyond each end', () => {
    const grid: LadderGrid = { lowerPrice: scaled('1'), upperPrice: scaled('2'), levels: 4, spacing: 'linear' }
    const steps = [-1, 0, 1, 2, 3, 4].map((index) => gridPrice(grid, index))
    expect(steps.map((price) => price && formatPrice(price, 4))).toEqual(['0.6666', '1', '1.3333', '1.6666', '2', '2.3333'])
    // 4/3 is not a decimal: the fraction keeps it exact.
    const one = gridPrice(grid, 1)
    expect(one && one.numerator * 3n).toBe(4n * (one?.denominator ?? 0n))
    expect(gridPrice({ ...grid, lowerPrice: scaled('1'), upperPrice: scaled('3'), levels: 2 }, -1)).toBeUndefined()
  })

  it('spaces a geometric ladder in equal ratios, its ends exact', () => {
    const grid: LadderGrid = { lowerPrice: scaled('1000'), upperPrice: scaled('2000'), levels: 5, spacing: 'geometric' }
    const prices = [-1, 0, 1, 2, 3, 4, 5].map((index) =>
      formatPrice(gridPrice(grid, index) as { numerator: bigint; denominator: bigint }, 10),
    )
    // 1000 · 2^(i/4): 2^(1/4) = 1.189207115002721…
    expect(prices).toEqual(['840.8964152537', '1000', '1189.2071150027', '1414.213562373', '1681.7928305074', '2000', '2378.4142300054'])
    expect(gridPrice(grid, 0)).toEqual({ numerator: scaled('1000'), denominator: priceScale })
    expect(gridPrice(grid, 4)).toEqual({ numerator: scaled('2000'), denominator: priceScale })
  })

  it('takes integer roots exactly: r^k ≤ value < (r + 1)^k', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 1n << 600n }), fc.integer({ min: 1, max: 40 }), (value, k) => {
        const root = integerRoot(value, BigInt(k))
        expect(root ** BigInt(k) <= value && value < (root + 1n) ** BigInt(k)).toBe(true)
      }),
      { numRuns: 300 },
    )
  })

  it('keeps geometric levels increasing by a constant ratio within 10^-18 for any grid', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 24n }),
        fc.bigInt({ min: 1n, max: 10n ** 24n }),
        fc.integer({ min: 2, max: 30 }),
        (lower, extra, levels) => {
          const grid: LadderGrid = { lowerPrice: lower, upperPrice: lower + extra, levels, spacing: 'geometric' }
          const prices = Array.from({ length: levels }, (_, index) => gridPrice(grid, index)?.numerator ?? 0n)
          expect(prices[0]).toBe(lower)
          expect(prices.at(-1)).toBe(lower + extra)
          for (const [index, price] of prices.entries()) {
            if (index > 0) expect(price).toBeGreaterThanOrEqual(prices[index - 1] as bigint)
            // p_i^(n-1) = lower^(n-1-i) · upper^i, floored: p^(n-1) ≤ exact < (p + 1)^(n-1).
            const exact = lower ** BigInt(levels - 1 - index) * (lower + extra) ** BigInt(index)
            expect(price ** BigInt(levels - 1) <= exact && exact < (price + 1n) ** BigInt(levels - 1)).toBe(true)
          }
        },
      ),
      { numRuns: 200 },
    )
  })

  it('converts base to quote rounding in the trader’s favour, never worse than the price', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 30n }),
        fc.bigInt({ min: 1n, max: 10n ** 30n }),
        fc.bigInt({ min: 1n, max: 10n ** 20n }),
        fc.integer({ min: 0, max: 24 }),
        fc.integer({ min: 0, max: 24 }),
        (baseAmount, numerator, denominator, baseDecimals, quoteDecimals) => {
          const parameters = { baseAmount, price: { numerator, denominator }, baseDecimals, quoteDecimals }
          const up = quoteAmountAt({ ...parameters, rounding: 'up' })
          const down = quoteAmountAt({ ...parameters, rounding: 'down' })
          // Exact value v = base · num · 10^qd / (den · 10^bd): down ≤ v ≤ up, and they differ by at most one unit.
          const exactTimesDenominator = baseAmount * numerator * 10n ** BigInt(quoteDecimals)
          const denominatorTotal = denominator * 10n ** BigInt(baseDecimals)
          expect(down * denominatorTotal <= exactTimesDenominator).toBe(true)
          expect(up * denominatorTotal >= exactTimesDenominator).toBe(true)
          expect(up - down === 0n || up - down === 1n).toBe(true)
        },
      ),
    )
  })

  it('builds each level’s LIMIT order: a sell asks size × price in quote, a flipped buy spends one step lower', () => {
    const config = ladderConfigSchema.parse({ ...sellLadder, lowerPrice: '2000.123457', upperPrice: '2150' })
    expect(levelOrder(config, 0, 'sell')).toEqual({
      srcToken: wethAddress,
      destToken: usdcAddress,
      srcAmount: tenthWeth,
      // 0.1 × 2000.123457 = 200.0123457 USDC: at least 200.012346 (rounded up).
      destAmount: 200_012_346n,
      gridIndex: 0,
    })
    // Level 1 (2050.082304…) flipped buys at level 0's price: spends at most 200.012345 USDC (rounded down).
    expect(levelOrder(config, 1, 'buy')).toEqual({
      srcToken: usdcAddress,
      destToken: wethAddress,
      srcAmount: 200_012_345n,
      destAmount: tenthWeth,
      gridIndex: 0,
    })
    const buyLadder = ladderConfigSchema.parse({ ...sellLadder, side: 'buy', lowerPrice: '1800', upperPrice: '1900', levels: 3 })
    expect(levelOrder(buyLadder, 0, 'buy')).toMatchObject({ srcToken: usdcAddress, srcAmount: 180_000_000n, destAmount: tenthWeth })
    // A buy level flips to a sell one step above: level 2 (1900) sells at 1950.
    expect(levelOrder(buyLadder, 2, 'sell')).toMatchObject({ srcToken: wethAddress, srcAmount: tenthWeth, destAmount: 195_000_000n })
  })
})

describe('ladder config', () => {
  it('accepts config/ladder.yaml as a bot config, and its strategy section by the ladder’s schema', () => {
    const file = new URL('../../config/ladder.yaml', import.meta.url)
    const config = parseConfig(readFileSync(file, 'utf8'), 'config/ladder.yaml', { env: {} })
    const [entry] = config.strategies
    expect(entry?.use).toBe('ladder')
    const parsed = ladderConfigSchema.parse(entry?.config)
    expect(parsed).toMatchObject({ chainId: 1, side: 'sell', levels: 5, spacing: 'linear', onFill: 'flip', cancelOnStop: true })
    expect(parsed.lowerPrice).toBe(scaled('2100'))
    expect(config.risk.maxOpenOrdersPerStrategy).toBeGreaterThanOrEqual(parsed.levels)
  })

  it('applies defaults: linear spacing, one-day validity, flip, no cancel on stop', () => {
    const { cancelOnStop: _, ...minimal } = sellLadder
    expect(ladderConfigSchema.parse(minimal)).toMatchObject({
      spacing: 'linear',
      validitySeconds: 86_400,
      onFill: 'flip',
      cancelOnStop: false,
    })
  })

  it.each([
    [{ lowerPrice: 2000 }, 'lowerPrice: expected a positive price as a decimal string such as "2450.5"'],
    [{ lowerPrice: '0' }, 'lowerPrice: expected a positive price'],
    [{ upperPrice: '1999.5' }, 'upperPrice: expected upperPrice above lowerPrice (2000), received 1999.5'],
    [{ levels: 1 }, 'levels: expected an integer number of levels from 2 to 100, received 1'],
    [{ sizePerLevel: '0.1' }, 'sizePerLevel: expected a positive raw amount'],
    [{ quote: weth }, 'quote: expected a quote token other than the base token'],
    [{ lowerPrice: '100', upperPrice: '400', levels: 2 }, 'lowerPrice: expected a positive price one grid step beyond lowerPrice'],
    [{ sizePerLevel: '1000' }, 'sizePerLevel: expected a size worth at least 1 raw unit of the quote token at every level'],
    [{ spacing: 'log' }, 'spacing: expected linear or geometric, received "log"'],
    [{ validitySeconds: 30 }, 'validitySeconds: expected an integer number of seconds from 60'],
    [{ extra: true }, 'Unrecognized key'],
  ])('refuses %o, saying what was expected', (change, message) => {
    const result = ladderConfigSchema.safeParse({ ...sellLadder, ...change })
    expect(result.success).toBe(false)
    const messages = result.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`) ?? []
    expect(messages.join('\n')).toContain(message)
  })

  it('accepts a ladder whose flipped end would have no positive price when onFill is retire', () => {
    expect(ladderConfigSchema.safeParse({ ...sellLadder, lowerPrice: '100', upperPrice: '400', levels: 2, onFill: 'retire' }).success).toBe(
      true,
    )
  })
})

const stateJournals: ReturnType<typeof openJournal>[] = []
afterAll(() => {
  for (const journal of stateJournals) journal.close()
})

/** A fresh journal file holding the strategy state, as the bot gives it. */
function stateStore() {
  const journal = openJournal({ file: directory.path(`state-${stateJournals.length}.sqlite`), clock: new ManualClock(1_000) })
  stateJournals.push(journal)
  return journal
}

function orderEvent(intentId: string, status: OrderView['status']) {
  const order: OrderView = {
    id: orderIdOf(intentId),
    intentId,
    mode: 'delta',
    account: '0x0000000000000000000000000000000000000004',
    beneficiary: '0x0000000000000000000000000000000000000004',
    chainId: 1,
    destChainId: 1,
    venueId: 'venue-order',
    orderHash: null,
    deadline: 1,
    srcToken: wethAddress.toLowerCase() as Address,
    destToken: usdcAddress.toLowerCase() as Address,
    srcAmount: 1n,
    destAmount: 1n,
    side: 'SELL',
    status,
    createdAt: 1,
    updatedAt: 1,
  }
  return { order, reason: null }
}

function intentsOf(run: StrategyRun) {
  if (run.outcome !== 'handled') throw new Error(`expected the handler to succeed, got ${run.outcome}: ${JSON.stringify(run)}`)
  return run.intents
}

describe('ladder handlers', () => {
  function createLadder(config: Record<string, unknown>, store = stateStore()) {
    const strategy = createSafeStrategy(ladder, { config, clock: new ManualClock(1_000), journal: store, logger })
    const state = () => ladderStateSchema.parse(store.getStrategyState('ladder', 'ladder'))
    return { strategy, store, state }
  }

  it('places every level on start as a LIMIT order, keyed by level and generation', async () => {
    const { strategy, state } = createLadder(sellLadder)
    const intents = intentsOf(await strategy.start())
    expect(intents.map((intent) => intent.kind === 'limit' && [intent.srcAmount, intent.destAmount, intent.partiallyFillable])).toEqual([
      [tenthWeth, 200_000_000n, false],
      [tenthWeth, 205_000_000n, false],
      [tenthWeth, 210_000_000n, false],
      [tenthWeth, 215_000_000n, false],
    ])
    expect(state().levels.map((level) => [level.generation, level.side, level.phase, level.intentId])).toEqual(
      intents.map((intent) => [0, 'sell', 'open', intent.id]),
    )
  })

  it('flips a filled sell level to a buy one step lower, and back to its sell when that fills', async () => {
    const { strategy, state } = createLadder(sellLadder)
    const [first] = intentsOf(await strategy.start())
    const flipped = intentsOf(await strategy.handleOrderUpdate(orderEvent(first?.id as string, 'COMPLETED')))
    expect(flipped).toHaveLength(1)
    expect(flipped[0]).toMatchObject({
      kind: 'limit',
      srcToken: usdcAddress,
      destToken: wethAddress,
      srcAmount: 195_000_000n,
      destAmount: tenthWeth,
    })
    expect(state().levels[0]).toMatchObject({ generation: 1, side: 'buy', fills: 1, phase: 'open', intentId: flipped[0]?.id })
    const back = intentsOf(await strategy.handleOrderUpdate(orderEvent(flipped[0]?.id as string, 'COMPLETED')))
    expect(back[0]).toMatchObject({ srcToken: wethAddress, srcAmount: tenthWeth, destAmount: 200_000_000n })
    // Same order content as generation 0, but a new generation: a fresh intent.
    expect(back[0]?.id).not.toBe(first?.id)
    expect(state().levels[0]).toMatchObject({ generation: 2, side: 'sell', fills: 2 })
  })

  it('places an expired level again at the same price as a new generation, and ignores statuses that are not final', async () => {
    const { strategy, state } = createLadder(sellLadder)
    const intents = intentsOf(await strategy.start())
    const second = intents[1]
    expect(intentsOf(await strategy.handleOrderUpdate(orderEvent(second?.id as string, 'ACTIVE')))).toEqual([])
    expect(state().levels[1]).toMatchObject({ status: 'ACTIVE', generation: 0 })
    const again = intentsOf(await strategy.handleOrderUpdate(orderEvent(second?.id as string, 'EXPIRED')))
    expect(again[0]).toMatchObject({ srcAmount: tenthWeth, destAmount: 205_000_000n })
    expect(again[0]?.id).not.toBe(second?.id)
    expect(state().levels[1]).toMatchObject({ generation: 1, side: 'sell', fills: 0, status: 'PLACED' })
  })

  it('halts a level cancelled outside the strategy, and ignores updates of orders no level holds', async () => {
    const { strategy, state } = createLadder(sellLadder)
    const intents = intentsOf(await strategy.start())
    expect(intentsOf(await strategy.handleOrderUpdate(orderEvent(intents[2]?.id as string, 'CANCELLED')))).toEqual([])
    expect(state().levels[2]).toMatchObject({ phase: 'halted', status: 'CANCELLED' })
    const before = state()
    expect(intentsOf(await strategy.handleOrderUpdate(orderEvent('someone-else', 'COMPLETED')))).toEqual([])
    expect(intentsOf(await strategy.handleOrderUpdate(orderEvent(intents[2]?.id as string, 'COMPLETED')))).toEqual([])
    expect(state()).toEqual(before)
  })

  it('retires a filled level with onFill retire', async () => {
    const { strategy, state } = createLadder({ ...sellLadder, onFill: 'retire' })
    const [first] = intentsOf(await strategy.start())
    expect(intentsOf(await strategy.handleOrderUpdate(orderEvent(first?.id as string, 'COMPLETED')))).toEqual([])
    expect(state().levels[0]).toMatchObject({ phase: 'retired', fills: 1 })
  })

  it('cancels the open levels on stop, then places them again on start once their cancellation is heard', async () => {
    const store = stateStore()
    const { strategy, state } = createLadder(sellLadder, store)
    const placed = intentsOf(await strategy.start())
    await strategy.handleOrderUpdate(orderEvent(placed[3]?.id as string, 'CANCELLED'))
    const [cancel, ...rest] = intentsOf(await strategy.stop())
    expect(rest).toEqual([])
    expect(cancel).toMatchObject({ kind: 'cancel', intentIds: placed.slice(0, 3).map((intent) => intent.id), orderIds: [] })
    expect(state()).toMatchObject({ running: false, stops: 1 })

    // A new run over the same state: the open levels' intents again (the same ids: the executor places nothing twice).
    const restarted = createLadder(sellLadder, store).strategy
    expect(intentsOf(await restarted.start()).map((intent) => intent.id)).toEqual(placed.slice(0, 3).map((intent) => intent.id))
    const replaced = intentsOf(await restarted.handleOrderUpdate(orderEvent(placed[0]?.id as string, 'CANCELLED')))
    expect(replaced[0]).toMatchObject({ srcAmount: tenthWeth, destAmount: 200_000_000n })
    expect(state().levels[0]).toMatchObject({ generation: 1, phase: 'open', cancelRequested: false })
    // The level cancelled from outside before the stop stays halted.
    expect(state().levels[3]).toMatchObject({ phase: 'halted' })
  })

  it('does not place a level again while stopped: it waits for the next start', async () => {
    const store = stateStore()
    const { strategy, state } = createLadder(sellLadder, store)
    const placed = intentsOf(await strategy.start())
    await strategy.stop()
    expect(intentsOf(await strategy.handleOrderUpdate(orderEvent(placed[0]?.id as string, 'COMPLETED')))).toEqual([])
    const flipped = state().levels[0]
    expect(flipped).toMatchObject({ generation: 1, side: 'buy', fills: 1 })
    const restarted = intentsOf(await createLadder(sellLadder, store).strategy.start())
    expect(restarted.map((intent) => intent.id)).toContain(flipped?.intentId)
  })

  it('keeps the retry flag beside the ladder: set while a level failed, cleared once the timer placed it again; a state without the flag still retries', async () => {
    const store = stateStore()
    const { strategy, state } = createLadder(sellLadder, store)
    const placed = intentsOf(await strategy.start())
    const timer = () => strategy.handleTimer(strategy.timers[0] ?? 0).then(intentsOf)
    expect(store.getStrategyState('ladder', retryDueKey)).toBe(false)
    expect(await timer()).toEqual([])
    const failed = placed[1] as (typeof placed)[number]
    await strategy.handleIntentResult({ intentId: failed.id, kind: failed.kind, status: 'failed', reason: 'venue down', orderId: null })
    expect(state().levels[1]?.phase).toBe('failed')
    expect(store.getStrategyState('ladder', retryDueKey)).toBe(true)
    // A state written before the flag existed: the timer reads the ladder itself.
    store.deleteStrategyState('ladder', retryDueKey)
    const retried = await timer()
    expect(retried).toHaveLength(1)
    expect(state().levels[1]).toMatchObject({ phase: 'open', generation: 1, intentId: retried[0]?.id })
    expect(store.getStrategyState('ladder', retryDueKey)).toBe(false)
    expect(await timer()).toEqual([])
  })

  it('replaces the ladder when its config changes: the old open orders are cancelled, the new levels placed under a new epoch', async () => {
    const store = stateStore()
    const old = intentsOf(await createLadder(sellLadder, store).strategy.start())
    const { strategy, state } = createLadder({ ...sellLadder, upperPrice: '2300' }, store)
    const [cancel, ...placed] = intentsOf(await strategy.start())
    expect(cancel).toMatchObject({ kind: 'cancel', intentIds: old.map((intent) => intent.id) })
    expect(placed.map((intent) => intent.kind === 'limit' && intent.destAmount)).toEqual([
      200_000_000n,
      210_000_000n,
      220_000_000n,
      230_000_000n,
    ])
    // Level 0 has the same order as before, but a new key: a new intent, not the old (finished or cancelled) one.
    expect(placed[0]?.id).not.toBe(old[0]?.id)
    expect(state().epoch).toBe(1)
    // onFill and cancelOnStop do not change the orders: the ladder is kept.
    const kept = intentsOf(
      await createLadder({ ...sellLadder, upperPrice: '2300', onFill: 'retire', cancelOnStop: false }, store).strategy.start(),
    )
    expect(kept.map((intent) => intent.id)).toEqual(placed.map((intent) => intent.id))
  })
})

const poolAbi = parseAbi(['function getReserves() view returns (uint256 reserve0, uint256 reserve1)'])

/** A pool's reserves of WETH and of its other token (raw units). */
async function wethReserves(sandbox: RunningSandbox, pool: DeployedPool) {
  const [reserve0, reserve1] = await sandboxWallet(sandbox, 1, 0).readContract({
    address: pool.address,
    abi: poolAbi,
    functionName: 'getReserves',
  })
  const wethFirst = pool.token0.toLowerCase() === wethAddress.toLowerCase()
  return {
    weth: Number(wethFirst ? reserve0 : reserve1),
    other: Number(wethFirst ? reserve1 : reserve0),
    otherToken: wethFirst ? pool.token1 : pool.token0,
  }
}

function wethPools(sandbox: RunningSandbox) {
  const chain = sandbox.venue.chains.get(1)
  if (!chain) throw new Error('no chain 1')
  return { chain, pools: chain.fixture.pools.filter((pool) => pool.symbols.includes('WETH')) }
}

/** The WETH/USDC pool's mid price, USDC per WETH. */
async function wethMid(sandbox: RunningSandbox): Promise<number> {
  const pool = wethPools(sandbox).pools.find((candidate) => candidate.symbols.includes('USDC'))
  if (!pool) throw new Error('no WETH/USDC pool')
  const { weth, other } = await wethReserves(sandbox, pool)
  return other / 1e6 / (weth / 1e18)
}

/**
 * Trades every WETH pool of chain 1 from development account `accountIndex` so that WETH's price moves by the same
 * ratio in each, to `target` USDC per WETH in the WETH/USDC pool. The sandbox runs `market: 'still'` (no arbitrageur):
 * moving one pool only would let agents route around it through the others. For a 0.30 % constant-product pool, the
 * input Δ that moves the price by `ratio` solves (r + Δ)(r + 0.997·Δ) = ratio · r², r the reserve of the input token.
 */
async function moveWethPrice(sandbox: RunningSandbox, accountIndex: number, target: number): Promise<number> {
  const { chain, pools } = wethPools(sandbox)
  const change = target / (await wethMid(sandbox))
  const wallet = sandboxWallet(sandbox, 1, accountIndex)
  for (const pool of pools) {
    const { weth, other, otherToken } = await wethReserves(sandbox, pool)
    const up = change > 1
    const reserve = up ? other : weth
    const ratio = up ? change : 1 / change
    const a = 0.997
    const amount = BigInt(
      Math.floor((-(1 + a) * reserve + Math.sqrt((1 + a) ** 2 * reserve ** 2 + 4 * a * reserve ** 2 * (ratio - 1))) / (2 * a)),
    )
    const [tokenIn, tokenOut] = up ? [otherToken, wethAddress] : [wethAddress, otherToken]
    await waitForLocalReceipt(
      wallet,
      await wallet.writeContract({ address: tokenIn, abi: erc20Abi, functionName: 'approve', args: [marketRouterAddress, maxUint256] }),
    )
    const hash = await wallet.writeContract({
      address: marketRouterAddress,
      abi: getContractArtifact('MarketRouter').abi,
      functionName: 'swapExactAmountIn',
      args: [tokenIn, tokenOut, amount, 0n, [pool.address], wallet.account.address, 0n],
    })
    expect((await waitForLocalReceipt(wallet, hash)).status).toBe('success')
  }
  await chain.refresh()
  return wethMid(sandbox)
}

type RunningLadder = { bot: Bot; context: ExecutorContext }

async function startLadder(sandbox: RunningSandbox, journalFile: string, config: Record<string, unknown>): Promise<RunningLadder> {
  const clock = sandbox.venue.clock
  const context = await sandboxExecutorContext(sandbox, { accountIndex: 4, journalFile, clock })
  const strategy = createSafeStrategy(ladder, { config, clock, journal: context.journal, logger })
  const bot = createBot({
    context,
    strategies: [strategy],
    feedIntervalMs: 1_000,
    reconcileIntervalMs: 250,
    decimalsOf: decimalsFromTokenList([
      { chainId: 1, ...sandboxToken(sandbox, 1, 'WETH') },
      { chainId: 1, ...sandboxToken(sandbox, 1, 'USDC') },
    ]),
    logger,
  })
  await bot.start()
  return { bot, context }
}

function ladderState(context: ExecutorContext): LadderState {
  return ladderStateSchema.parse(context.journal.getStrategyState('ladder', 'ladder'))
}

/** The journal's order of each level's current intent, once every level's matches `accept`. */
function levelOrders(context: ExecutorContext, accept: (order: JournalOrder, index: number) => boolean): JournalOrder[] | undefined {
  const orders = ladderState(context).levels.map((level) => context.journal.getOrder({ id: orderIdOf(level.intentId) }))
  return orders.every((order, index) => order !== undefined && accept(order, index)) ? (orders as JournalOrder[]) : undefined
}

async function balances(sandbox: RunningSandbox): Promise<Record<string, bigint>> {
  const wallet = sandboxWallet(sandbox, 1, 4)
  const read = (token: Address) =>
    wallet.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [wallet.account.address] })
  return { [wethAddress.toLowerCase()]: await read(wethAddress), [usdcAddress.toLowerCase()]: await read(usdcAddress) }
}

/** Every order of the ladder's wallet at the venue (the public API), by status. */
async function venueStatuses(context: ExecutorContext): Promise<string[]> {
  const list = await getDeltaOrders(context.api, { userAddress: context.account.address, limit: 1000 })
  return list.data.map((order) => order.status)
}

describe('ladder on the sandbox', () => {
  const sandbox = useSandbox({ chainIds: [1], speed: 10 })
  const journalFile = directory.path('ladder.sqlite')
  let running: RunningLadder | undefined
  let before: Record<string, bigint> = {}
  let stopped: LadderState | undefined
  const current = () => {
    if (!running) throw new Error('the ladder is not running (an earlier test failed)')
    return running
  }

  it('places every level as an ACTIVE LIMIT order at its price', async () => {
    expect(await wethMid(sandbox())).toBeLessThan(1_990)
    before = await balances(sandbox())
    running = await startLadder(sandbox(), journalFile, sellLadder)
    const { context } = running
    const orders = await waitFor('four ACTIVE levels', () => levelOrders(context, (order) => order.status === 'ACTIVE'))
    expect(orders.map((order) => [order.srcToken, order.srcAmount, order.destToken, order.destAmount])).toEqual(
      [200_000_000n, 205_000_000n, 210_000_000n, 215_000_000n].map((limit) => [
        wethAddress.toLowerCase(),
        tenthWeth,
        usdcAddress.toLowerCase(),
        limit,
      ]),
    )
    expect(context.journal.listOrders({ strategy: 'ladder' })).toHaveLength(4)
    expect(await venueStatuses(context)).toEqual(['ACTIVE', 'ACTIVE', 'ACTIVE', 'ACTIVE'])
  })

  it('fills the levels the market crosses, leaves the others ACTIVE and flips the filled ones to buys one step lower', async () => {
    const { context } = current()
    const initial = ladderState(context).levels.map((level) => level.intentId)
    // Agents pay the pool's price less the 0.30 % fee and their edge: a mid of 2080 meets 2000 and 2050, not 2100.
    const mid = await moveWethPrice(sandbox(), 5, 2_080)
    expect(mid).toBeGreaterThan(2_070)
    expect(mid).toBeLessThan(2_090)
    const orders = await waitFor('levels 0 and 1 flipped to ACTIVE buys', () =>
      levelOrders(context, (order, index) => (index < 2 ? order.intentId !== initial[index] && order.status === 'ACTIVE' : true)),
    )
    const journal = context.journal
    const crossed = initial.slice(0, 2).map((intentId) => journal.getOrder({ id: orderIdOf(intentId) }) as JournalOrder)
    expect(crossed.map((order) => order.status)).toEqual(['COMPLETED', 'COMPLETED'])
    for (const order of crossed) {
      const [fill, ...more] = journal.fillsOf(order.id)
      expect(more).toEqual([])
      expect(fill?.spentAmount).toBe(tenthWeth)
      expect(fill?.receivedAmount).toBeGreaterThanOrEqual(order.destAmount)
      const receipt = await sandboxWallet(sandbox(), 1, 0).getTransactionReceipt({ hash: fill?.txHash as Hex })
      expect(receipt.status).toBe('success')
    }
    // The flipped levels buy 0.1 WETH at 1950 and 2000; the levels above the market have not moved.
    expect(orders.map((order) => [order.srcToken, order.srcAmount, order.destAmount, order.status])).toEqual([
      [usdcAddress.toLowerCase(), 195_000_000n, tenthWeth, 'ACTIVE'],
      [usdcAddress.toLowerCase(), 200_000_000n, tenthWeth, 'ACTIVE'],
      [wethAddress.toLowerCase(), tenthWeth, 210_000_000n, 'ACTIVE'],
      [wethAddress.toLowerCase(), tenthWeth, 215_000_000n, 'ACTIVE'],
    ])
    expect(orders.slice(2).map((order) => order.intentId)).toEqual(initial.slice(2))
    expect((await venueStatuses(context)).sort()).toEqual(['ACTIVE', 'ACTIVE', 'ACTIVE', 'ACTIVE', 'COMPLETED', 'COMPLETED'])
    expect(ladderState(context).levels.map((level) => [level.generation, level.side, level.fills])).toEqual([
      [1, 'buy', 1],
      [1, 'buy', 1],
      [0, 'sell', 0],
      [0, 'sell', 0],
    ])
  })

  it('fills a flipped buy when the market comes back down and flips that level to its sell again', async () => {
    const { context } = current()
    const flippedBuy = ladderState(context).levels[1]?.intentId as string
    const mid = await moveWethPrice(sandbox(), 5, 1_975)
    expect(mid).toBeGreaterThan(1_965)
    expect(mid).toBeLessThan(1_985)
    const orders = await waitFor('level 1 back to an ACTIVE sell', () =>
      levelOrders(context, (order, index) => (index === 1 ? order.intentId !== flippedBuy && order.status === 'ACTIVE' : true)),
    )
    const bought = context.journal.getOrder({ id: orderIdOf(flippedBuy) }) as JournalOrder
    expect(bought.status).toBe('COMPLETED')
    const [fill] = context.journal.fillsOf(bought.id)
    expect(fill?.spentAmount).toBe(200_000_000n)
    expect(fill?.receivedAmount).toBeGreaterThanOrEqual(tenthWeth)
    expect(orders.map((order) => [order.srcToken, order.destAmount, order.status])).toEqual([
      [usdcAddress.toLowerCase(), tenthWeth, 'ACTIVE'],
      [wethAddress.toLowerCase(), 205_000_000n, 'ACTIVE'],
      [wethAddress.toLowerCase(), 210_000_000n, 'ACTIVE'],
      [wethAddress.toLowerCase(), 215_000_000n, 'ACTIVE'],
    ])
    expect(ladderState(context).levels.map((level) => [level.generation, level.side, level.fills])).toEqual([
      [1, 'buy', 1],
      [2, 'sell', 2],
      [0, 'sell', 0],
      [0, 'sell', 0],
    ])

    // The wallet moved exactly what the journal's fills say, to the wei, token by token.
    const expected = { ...before }
    for (const order of context.journal.listOrders({ strategy: 'ladder' })) {
      for (const each of context.journal.fillsOf(order.id)) {
        expected[order.srcToken] = (expected[order.srcToken] ?? 0n) - each.spentAmount
        expected[order.destToken] = (expected[order.destToken] ?? 0n) + each.receivedAmount
      }
    }
    expect(await balances(sandbox())).toEqual(expected)
    expect(context.journal.listOrders({ strategy: 'ladder' }).filter((order) => order.status === 'COMPLETED')).toHaveLength(3)
  })

  it('cancels every open level when it stops: nothing stays open at the venue', async () => {
    const { bot, context } = current()
    const open = ladderState(context).levels.map((level) => level.intentId)
    await bot.stop()
    expect(ladderState(context)).toMatchObject({ running: false, stops: 1 })
    expect(ladderState(context).levels.every((level) => level.cancelRequested)).toBe(true)
    const [cancel] = context.journal.intentsOf('ladder').filter((intent) => intent.kind === 'cancel')
    expect(cancel).toMatchObject({ status: 'done', intent: expect.objectContaining({ intentIds: open }) })
    const statuses = await waitFor('no open order at the venue', async () => {
      const all = await venueStatuses(context)
      return all.every((status) => status === 'CANCELLED' || status === 'COMPLETED') ? all : undefined
    })
    expect(statuses.filter((status) => status === 'CANCELLED')).toHaveLength(4)
    expect(statuses.filter((status) => status === 'COMPLETED')).toHaveLength(3)
    stopped = ladderState(context)
    context.journal.close()
  })

  it('places the cancelled levels again after a restart, as new orders, and nothing twice', async () => {
    const previous = stopped
    if (!previous) throw new Error('the ladder did not stop (an earlier test failed)')
    running = await startLadder(sandbox(), journalFile, sellLadder)
    const { context } = running
    const orders = await waitFor('four ACTIVE levels of the next generation', () =>
      levelOrders(context, (order, index) => order.intentId !== previous.levels[index]?.intentId && order.status === 'ACTIVE'),
    )
    expect(ladderState(context).levels.map((level) => [level.generation, level.side])).toEqual(
      previous.levels.map((level) => [level.generation + 1, level.side]),
    )
    expect(orders.map((order) => order.destAmount)).toEqual([tenthWeth, 205_000_000n, 210_000_000n, 215_000_000n])
    // 7 orders before the restart, one more per level: no level was placed twice.
    const all = context.journal.listOrders({ strategy: 'ladder' })
    expect(all).toHaveLength(11)
    expect(new Set(all.map((order) => order.intentId)).size).toBe(11)
    expect((await venueStatuses(context)).filter((status) => status === 'ACTIVE')).toHaveLength(4)
    await running.bot.stop()
    await waitFor('no open order at the venue', async () => {
      const all = await venueStatuses(context)
      return all.every((status) => status === 'CANCELLED' || status === 'COMPLETED') ? all : undefined
    })
    context.journal.close()
  })
})

describe('ladder on a fast sandbox', () => {
  const sandbox = useSandbox({ chainIds: [1], speed: 60 })

  it('places a level again when its order expires, as a new generation at the same price', async () => {
    const config = { ...sellLadder, lowerPrice: '5000', upperPrice: '5100', levels: 2, validitySeconds: 60 }
    const { bot, context } = await startLadder(sandbox(), directory.path('ladder-expiry.sqlite'), config)
    // 60 sandbox seconds pass in one real second: each level expires and is placed again, twice.
    const levels = await waitFor(
      'two expiries per level',
      () => {
        const state = ladderState(context)
        return state.levels.every((level) => level.generation >= 2) ? state.levels : undefined
      },
      20_000,
    )
    await bot.stop()
    const orders = context.journal.listOrders({ strategy: 'ladder' })
    for (const [index, level] of levels.entries()) {
      expect(level).toMatchObject({ side: 'sell', fills: 0 })
      const limit = index === 0 ? 500_000_000n : 510_000_000n
      const mine = orders.filter((order) => order.destAmount === limit)
      expect(mine.length).toBeGreaterThanOrEqual(3)
      expect(mine.slice(0, 2).map((order) => order.status)).toEqual(['EXPIRED', 'EXPIRED'])
      expect(mine.every((order) => order.srcAmount === tenthWeth)).toBe(true)
    }
    await waitFor('no open order at the venue', async () => {
      const all = await venueStatuses(context)
      return all.every((status) => status === 'CANCELLED' || status === 'EXPIRED') ? all : undefined
    })
    context.journal.close()
  }, 30_000)
})
