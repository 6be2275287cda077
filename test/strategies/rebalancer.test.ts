import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import { type Address, erc20Abi } from 'viem'
import { afterAll, describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/config/load-config.js'
import type { IntentResult } from '../../src/domain/order-views.js'
import { decimalsFromTokenList } from '../../src/feed/token-decimals.js'
import type { OrderView } from '../../src/index.js'
import { type Journal, openJournal } from '../../src/journal/journal.js'
import { createLogger } from '../../src/log/logger.js'
import { createBot } from '../../src/runtime/bot.js'
import { waitForLocalReceipt } from '../../src/sandbox/chains/receipt.js'
import { loadStrategy } from '../../src/strategy/load-strategy.js'
import { createSafeStrategy, type StrategyRun } from '../../src/strategy/safe-strategy.js'
import { ManualClock } from '../../src/time/clock.js'
import rebalancer from '../../strategies/rebalancer/index.js'
import { planRebalance } from '../../strategies/rebalancer/plan-rebalance.js'
import { retryDelayMs } from '../../strategies/rebalancer/transfer-state.js'
import { sandboxExecutorContext } from '../helpers/executor.js'
import { request, sandboxToken, sandboxWallet, useSandbox } from '../helpers/sandbox.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

const directory = createTempDirectory('deltaflow-rebalancer-')
afterAll(() => directory.cleanup())

const logger = createLogger({ level: 'silent' })
const usdcMainnet: Address = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
const usdcBase: Address = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
const usdc = (whole: bigint) => whole * 1_000_000n

async function waitFor<T>(read: () => T | undefined | Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`waitFor: no ${what} after ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

function intentsOf(run: StrategyRun) {
  if (run.outcome !== 'handled') throw new Error(`expected the handler to succeed, it ${run.outcome}`)
  return run.intents
}

describe('planRebalance', () => {
  const halves = [
    { chainId: 1, weight: 1 },
    { chainId: 8453, weight: 1 },
  ]

  it('moves the surplus from the chain above its target to the one below', () => {
    const plan = planRebalance({
      targets: halves,
      balances: new Map([
        [1, usdc(1_000_000n)],
        [8453, usdc(100_000n)],
      ]),
      bandBps: 200,
      minTradeAmount: usdc(1_000n),
    })
    expect(plan).toMatchObject({ action: 'transfer', fromChainId: 1, toChainId: 8453, amount: usdc(450_000n) })
    expect(plan.shares.map((share) => [share.shareBps, share.targetBps])).toEqual([
      [9090, 5000],
      [909, 5000],
    ])
  })

  it('does nothing while every share is within the band, exactly at its edge included', () => {
    // 52 / 48 of 100: 200 bps off each target, the band's edge.
    const balances = new Map([
      [1, 52n],
      [8453, 48n],
    ])
    expect(planRebalance({ targets: halves, balances, bandBps: 200, minTradeAmount: 1n })).toMatchObject({
      action: 'none',
      reason: 'within-band',
    })
    expect(planRebalance({ targets: halves, balances, bandBps: 199, minTradeAmount: 1n })).toMatchObject({
      action: 'transfer',
      fromChainId: 1,
      amount: 2n,
    })
  })

  it('does nothing when the transfer would be below the minimum, or nothing is held', () => {
    const balances = new Map([
      [1, usdc(600n)],
      [8453, usdc(400n)],
    ])
    expect(planRebalance({ targets: halves, balances, bandBps: 100, minTradeAmount: usdc(101n) })).toMatchObject({
      action: 'none',
      reason: 'below-minimum',
    })
    expect(planRebalance({ targets: halves, balances: new Map(), bandBps: 100, minTradeAmount: 1n })).toMatchObject({
      action: 'none',
      reason: 'empty',
    })
  })

  it('fills the chain furthest below its target first among three, from the one furthest above', () => {
    const plan = planRebalance({
      targets: [
        { chainId: 1, weight: 50 },
        { chainId: 10, weight: 30 },
        { chainId: 8453, weight: 20 },
      ],
      // Targets 500 / 300 / 200: chain 1 is 400 above, chain 10 300 below, chain 8453 100 below.
      balances: new Map([
        [1, 900n],
        [10, 0n],
        [8453, 100n],
      ]),
      bandBps: 100,
      minTradeAmount: 1n,
    })
    expect(plan).toMatchObject({ action: 'transfer', fromChainId: 1, toChainId: 10, amount: 300n })
  })

  it('reaches the band in at most N-1 fee-less transfers, each within what the source holds', () => {
    const chainIds = [1, 10, 137, 8453]
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 2, maxLength: 4 }),
        fc.array(fc.bigInt({ min: 0n, max: 10n ** 15n }), { minLength: 4, maxLength: 4 }),
        fc.integer({ min: 1, max: 1_000 }),
        (weights, amounts, bandBps) => {
          const targets = weights.map((weight, index) => ({ chainId: chainIds[index] ?? 0, weight }))
          const balances = new Map(targets.map((target, index) => [target.chainId, amounts[index] ?? 0n]))
          const total = [...balances.values()].reduce((sum, amount) => sum + amount, 0n)
          for (let transfer = 0; transfer < targets.length - 1; transfer += 1) {
            const plan = planRebalance({ targets, balances, bandBps, minTradeAmount: 1n })
            if (plan.action === 'none') {
              // Targets are rounded down to raw units: a gap under one raw unit per chain can stay out of a band only
              // when the band is under a few raw units of the total.
              if (plan.reason === 'below-minimum') expect(total * BigInt(bandBps)).toBeLessThan(10_000n * BigInt(targets.length))
              return
            }
            const held = balances.get(plan.fromChainId) ?? 0n
            expect(plan.amount).toBeGreaterThan(0n)
            expect(plan.amount).toBeLessThanOrEqual(held)
            balances.set(plan.fromChainId, held - plan.amount)
            balances.set(plan.toChainId, (balances.get(plan.toChainId) ?? 0n) + plan.amount)
            expect([...balances.values()].reduce((sum, amount) => sum + amount, 0n)).toBe(total)
          }
          expect(planRebalance({ targets, balances, bandBps, minTradeAmount: 1n }).action).toBe('none')
        },
      ),
      { numRuns: 300 },
    )
  })
})

describe('rebalancer handlers', () => {
  const config = {
    chains: [
      { chainId: 1, token: usdcMainnet, weight: 1 },
      { chainId: 8453, token: usdcBase, weight: 1 },
    ],
    bandBps: 200,
    minTradeAmount: '1000000000',
    placementTimeoutMs: 60_000,
  }
  const balancesOf = (mainnet: bigint, base: bigint, now: number) => ({
    now,
    balances: [
      { chainId: 1, token: usdcMainnet, amount: mainnet },
      { chainId: 8453, token: usdcBase, amount: base },
    ],
  })

  function createHarness(file: string, overrides: Record<string, unknown> = {}) {
    const clock = new ManualClock(1_700_000_000_000)
    const journal = openJournal({ file: directory.path(file), clock })
    const strategy = createSafeStrategy(rebalancer, { config: { ...config, ...overrides }, clock, journal, logger })
    return { clock, journal, strategy }
  }

  /** What the executor did with the transfer's intent, as the runtime tells it. */
  const resultOf = (intentId: string, status: IntentResult['status'], reason: string | null, orderId: string | null = null) => ({
    intentId,
    kind: 'crosschain' as const,
    status,
    reason,
    orderId,
  })

  function orderOf(intentId: string, status: OrderView['status']): OrderView {
    return {
      id: `${intentId}/0`,
      intentId,
      mode: 'delta',
      account: '0x0000000000000000000000000000000000000001',
      beneficiary: '0x0000000000000000000000000000000000000001',
      chainId: 1,
      destChainId: 8453,
      venueId: 'venue-order',
      orderHash: null,
      deadline: null,
      srcToken: usdcMainnet.toLowerCase() as Address,
      destToken: usdcBase.toLowerCase() as Address,
      srcAmount: usdc(450_000n),
      destAmount: usdc(449_000n),
      side: 'SELL',
      status,
      createdAt: 0,
      updatedAt: 0,
    }
  }

  it('watches the configured token on each chain', () => {
    const { strategy, journal } = createHarness('watch.sqlite')
    expect(strategy.balances).toEqual([
      { chainId: 1, token: usdcMainnet },
      { chainId: 8453, token: usdcBase },
    ])
    expect(strategy.subscriptions).toEqual([])
    journal.close()
  })

  it('plans one transfer, plans nothing while it is in flight, and re-plans under a new key after a refund', async () => {
    const { clock, journal, strategy } = createHarness('refund.sqlite')
    const [first, ...others] = intentsOf(await strategy.handleBalances(balancesOf(usdc(1_000_000n), usdc(100_000n), clock.now())))
    expect(others).toEqual([])
    expect(first).toMatchObject({
      kind: 'crosschain',
      chainId: 1,
      destChainId: 8453,
      srcToken: usdcMainnet,
      destToken: usdcBase,
      amount: usdc(450_000n),
      side: 'SELL',
      maxSlippageBps: 50,
      maxPriceImpactPercent: 1,
    })
    if (!first) throw new Error('no intent')
    // In flight: the source is debited and the destination not yet credited, which looks unbalanced, yet nothing is planned.
    expect(intentsOf(await strategy.handleBalances(balancesOf(usdc(550_000n), usdc(100_000n), clock.now())))).toEqual([])
    intentsOf(await strategy.handleOrderUpdate({ order: orderOf(first.id, 'BRIDGING'), reason: null }))
    clock.advance(3_600_000)
    expect(intentsOf(await strategy.handleBalances(balancesOf(usdc(550_000n), usdc(100_000n), clock.now())))).toEqual([])

    intentsOf(await strategy.handleOrderUpdate({ order: orderOf(first.id, 'REFUNDED'), reason: 'bridge failed' }))
    expect(journal.getStrategyState('rebalancer', 'transfer')).toBeUndefined()
    expect(journal.getStrategyState('rebalancer', 'lastTransfer')).toMatchObject({ key: 'transfer-1', status: 'REFUNDED' })
    const [second] = intentsOf(await strategy.handleBalances(balancesOf(usdc(1_000_000n), usdc(100_000n), clock.now())))
    expect(second).toMatchObject({ kind: 'crosschain', chainId: 1, destChainId: 8453, amount: usdc(450_000n) })
    expect(second?.id).not.toBe(first.id)
    expect(journal.getStrategyState('rebalancer', 'transfer')).toMatchObject({ key: 'transfer-2', intentId: second?.id })
    journal.close()
  })

  it('ignores updates of other orders and ends the transfer only at a final status', async () => {
    const { clock, journal, strategy } = createHarness('updates.sqlite')
    const [first] = intentsOf(await strategy.handleBalances(balancesOf(usdc(100_000n), usdc(1_000_000n), clock.now())))
    expect(first).toMatchObject({ chainId: 8453, destChainId: 1, srcToken: usdcBase, destToken: usdcMainnet, amount: usdc(450_000n) })
    if (!first) throw new Error('no intent')
    intentsOf(await strategy.handleOrderUpdate({ order: orderOf('someone-else', 'COMPLETED'), reason: null }))
    intentsOf(await strategy.handleOrderUpdate({ order: orderOf(first.id, 'PENDING'), reason: null }))
    expect(journal.getStrategyState('rebalancer', 'transfer')).toMatchObject({ orderId: `${first.id}/0`, status: 'PENDING' })
    intentsOf(await strategy.handleOrderUpdate({ order: orderOf(first.id, 'COMPLETED'), reason: null }))
    expect(journal.getStrategyState('rebalancer', 'transfer')).toBeUndefined()
    // Balanced now (less the bridge fee): nothing to do.
    expect(intentsOf(await strategy.handleBalances(balancesOf(usdc(549_640n), usdc(550_000n), clock.now())))).toEqual([])
    journal.close()
  })

  it('asks again for an unplaced transfer at start with the same id, and gives it up after placementTimeoutMs', async () => {
    const { clock, journal, strategy } = createHarness('timeout.sqlite')
    const [first] = intentsOf(await strategy.handleBalances(balancesOf(usdc(1_000_000n), usdc(100_000n), clock.now())))
    const restarted = createSafeStrategy(rebalancer, { config, clock, journal, logger })
    expect(intentsOf(await restarted.start()).map((intent) => intent.id)).toEqual([first?.id])

    clock.advance(59_999)
    expect(intentsOf(await restarted.handleBalances(balancesOf(usdc(1_000_000n), usdc(100_000n), clock.now())))).toEqual([])
    clock.advance(1)
    const [second] = intentsOf(await restarted.handleBalances(balancesOf(usdc(1_000_000n), usdc(100_000n), clock.now())))
    expect(second?.id).not.toBe(first?.id)
    expect(journal.getStrategyState('rebalancer', 'generation')).toBe(2)
    journal.close()
  })

  it('forgets a transfer whose intent failed without an order and plans anew retryMs later, well before the timeout', async () => {
    const { clock, journal, strategy } = createHarness('failed.sqlite', { retryMs: 5_000 })
    const [first] = intentsOf(await strategy.handleBalances(balancesOf(usdc(1_000_000n), usdc(100_000n), clock.now())))
    if (!first) throw new Error('no intent')
    const reason = 'ApiServerError (retryable): GET /v2/delta/prices failed on the service side (500)'
    expect(intentsOf(await strategy.handleIntentResult(resultOf(first.id, 'failed', reason)))).toEqual([])
    expect(journal.getStrategyState('rebalancer', 'transfer')).toBeUndefined()
    expect(journal.getStrategyState('rebalancer', 'lastFailure')).toEqual({
      key: 'transfer-1',
      intentId: first.id,
      status: 'failed',
      reason,
      failedAt: clock.now(),
      inARow: 1,
    })
    // Not at once: a lasting fault costs one intent per retryMs.
    expect(intentsOf(await strategy.handleBalances(balancesOf(usdc(1_000_000n), usdc(100_000n), clock.now())))).toEqual([])
    clock.advance(4_999)
    expect(intentsOf(await strategy.handleBalances(balancesOf(usdc(1_000_000n), usdc(100_000n), clock.now())))).toEqual([])
    clock.advance(1)
    const [second] = intentsOf(await strategy.handleBalances(balancesOf(usdc(1_000_000n), usdc(100_000n), clock.now())))
    expect(second).toMatchObject({ kind: 'crosschain', chainId: 1, destChainId: 8453, amount: usdc(450_000n) })
    expect(second?.id).not.toBe(first.id)
    expect(journal.getStrategyState('rebalancer', 'transfer')).toMatchObject({ key: 'transfer-2', intentId: second?.id })

    // A second failure in a row waits twice as long, the third four times (at most placementTimeoutMs).
    intentsOf(await strategy.handleIntentResult(resultOf(second?.id ?? '', 'failed', reason)))
    clock.advance(9_999)
    expect(intentsOf(await strategy.handleBalances(balancesOf(usdc(1_000_000n), usdc(100_000n), clock.now())))).toEqual([])
    clock.advance(1)
    const [third] = intentsOf(await strategy.handleBalances(balancesOf(usdc(1_000_000n), usdc(100_000n), clock.now())))
    expect(third).toMatchObject({ kind: 'crosschain', amount: usdc(450_000n) })
    expect(journal.getStrategyState('rebalancer', 'lastFailure')).toMatchObject({ key: 'transfer-2', inARow: 2 })
    // Its order appears: the row is broken, and the next failure waits retryMs again.
    intentsOf(await strategy.handleOrderUpdate({ order: orderOf(third?.id ?? '', 'PENDING'), reason: null }))
    expect(journal.getStrategyState('rebalancer', 'lastFailure')).toBeUndefined()
    journal.close()
  })

  it('doubles the wait with each failure in a row, up to placementTimeoutMs', () => {
    const settings = { retryMs: 60_000, placementTimeoutMs: 600_000 }
    expect([1, 2, 3, 4, 5, 6, 100].map((inARow) => retryDelayMs(settings, inARow))).toEqual([
      60_000, 120_000, 240_000, 480_000, 600_000, 600_000, 600_000,
    ])
    expect(retryDelayMs({ retryMs: 0, placementTimeoutMs: 600_000 }, 7)).toBe(0)
    expect(retryDelayMs({ retryMs: 900_000, placementTimeoutMs: 600_000 }, 3)).toBe(900_000)
  })

  it('plans anew at the next balances after a refusal when retryMs is 0, and ignores results of other intents', async () => {
    const { clock, journal, strategy } = createHarness('refused.sqlite', { retryMs: 0 })
    const [first] = intentsOf(await strategy.handleBalances(balancesOf(usdc(100_000n), usdc(1_000_000n), clock.now())))
    if (!first) throw new Error('no intent')
    intentsOf(await strategy.handleIntentResult(resultOf('someone-else', 'refused', 'kill switch')))
    intentsOf(await strategy.handleIntentResult(resultOf(first.id, 'accepted', null)))
    expect(journal.getStrategyState('rebalancer', 'transfer')).toMatchObject({ intentId: first.id, orderId: null })
    intentsOf(await strategy.handleIntentResult(resultOf(first.id, 'refused', 'dailyBudget: above the daily budget')))
    const [second] = intentsOf(await strategy.handleBalances(balancesOf(usdc(100_000n), usdc(1_000_000n), clock.now())))
    expect(second).toMatchObject({ chainId: 8453, destChainId: 1, amount: usdc(450_000n) })
    expect(second?.id).not.toBe(first.id)
    journal.close()
  })

  it('keeps a transfer whose failed intent names an order in flight past the timeout, until that order is final', async () => {
    const { clock, journal, strategy } = createHarness('failed-with-order.sqlite', { retryMs: 0 })
    const [first] = intentsOf(await strategy.handleBalances(balancesOf(usdc(1_000_000n), usdc(100_000n), clock.now())))
    if (!first) throw new Error('no intent')
    const orderId = `${first.id}/0`
    intentsOf(await strategy.handleIntentResult(resultOf(first.id, 'failed', 'the answer to the submission was lost', orderId)))
    expect(journal.getStrategyState('rebalancer', 'transfer')).toMatchObject({ intentId: first.id, orderId })
    clock.advance(3_600_000)
    expect(intentsOf(await strategy.handleBalances(balancesOf(usdc(550_000n), usdc(100_000n), clock.now())))).toEqual([])
    // Not found at the venue: closed unsent, and only then is the transfer over.
    intentsOf(await strategy.handleOrderUpdate({ order: orderOf(first.id, 'EXPIRED'), reason: 'never reached the venue' }))
    const [second] = intentsOf(await strategy.handleBalances(balancesOf(usdc(1_000_000n), usdc(100_000n), clock.now())))
    expect(second?.id).not.toBe(first.id)
    journal.close()
  })

  it('refuses a config with one chain, a repeated chain, or a weight that is not a positive integer', () => {
    const refuse = (chains: unknown) => rebalancer.configSchema.safeParse({ ...config, chains })
    const [mainnet, base] = config.chains
    expect(refuse([mainnet]).error?.issues[0]?.message).toBe('expected at least 2 chains to balance between')
    expect(refuse([mainnet, mainnet]).error?.issues[0]?.message).toBe('expected each chain once, received chain 1 again')
    expect(refuse([mainnet, { ...base, weight: 0.5 }]).error?.issues[0]?.message).toMatch(/^expected a weight \(a positive integer/)
    expect(rebalancer.configSchema.safeParse({ ...config, minTradeAmount: '1.5' }).error?.issues[0]?.message).toMatch(
      /^expected a positive raw amount/,
    )
  })
})

describe('config/rebalancer.yaml', () => {
  it('passes parseConfig and the config schema of the built-in strategy it names', async () => {
    const file = new URL('../../config/rebalancer.yaml', import.meta.url)
    const config = parseConfig(readFileSync(file, 'utf8'), 'config/rebalancer.yaml')
    const [entry, ...others] = config.strategies
    expect(others).toEqual([])
    expect(entry).toMatchObject({ use: 'rebalancer', enabled: true })
    const { definition, source } = await loadStrategy(entry?.use ?? '', { baseDirectory: fileURLToPath(new URL('../..', file)) })
    expect(source.kind).toBe('built-in')
    expect(definition.name).toBe('rebalancer')
    const parsed = rebalancer.configSchema.parse(entry?.config)
    expect(parsed.chains.map((chain) => chain.chainId)).toEqual([1, 8453])
    expect(parsed.minTradeAmount).toBe(usdc(1_000n))
  })
})

describe('rebalancer on the sandbox', () => {
  const sandbox = useSandbox({ chainIds: [1, 8453], speed: 60 })
  const strategyConfig = (bandBps: number) => ({
    chains: [
      { chainId: 1, token: usdcMainnet, weight: 1 },
      { chainId: 8453, token: usdcBase, weight: 1 },
    ],
    bandBps,
    minTradeAmount: '1000000000',
  })
  const bandBps = 200

  async function createTestBot(accountIndex: number, journalFile: string, overrides: Record<string, unknown> = {}) {
    const s = sandbox()
    const context = await sandboxExecutorContext(s, {
      accountIndex,
      journalFile,
      clock: s.venue.clock,
      // Ten sandbox minutes are ten real seconds at speed 60: give agents and bridges room.
      settings: { deltaValiditySeconds: 6 * 3600 },
    })
    const strategy = createSafeStrategy(rebalancer, {
      config: { ...strategyConfig(bandBps), ...overrides },
      clock: s.venue.clock,
      journal: context.journal,
      logger,
    })
    const bot = createBot({
      context,
      strategies: [strategy],
      feedIntervalMs: 200,
      reconcileIntervalMs: 200,
      decimalsOf: decimalsFromTokenList([
        { chainId: 1, ...sandboxToken(s, 1, 'USDC') },
        { chainId: 8453, ...sandboxToken(s, 8453, 'USDC') },
      ]),
      logger,
    })
    return { bot, context, strategy }
  }

  async function balancesOf(accountIndex: number): Promise<{ mainnet: bigint; base: bigint }> {
    const s = sandbox()
    const read = (chainId: number, token: Address) => {
      const wallet = sandboxWallet(s, chainId, accountIndex)
      return wallet.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [wallet.account.address] })
    }
    const [mainnet, base] = await Promise.all([read(1, usdcMainnet), read(8453, usdcBase)])
    return { mainnet, base }
  }

  /** Sends `amount` of the chain's USDC away from the development account, so the weights start far off. */
  async function sendAway(accountIndex: number, chainId: number, token: Address, amount: bigint): Promise<void> {
    const wallet = sandboxWallet(sandbox(), chainId, accountIndex)
    const hash = await wallet.writeContract({
      address: token,
      abi: erc20Abi,
      functionName: 'transfer',
      args: ['0x000000000000000000000000000000000000dEaD', amount],
    })
    expect((await waitForLocalReceipt(wallet, hash)).status).toBe('success')
  }

  const withinBand = ({ mainnet, base }: { mainnet: bigint; base: bigint }) => {
    const total = mainnet + base
    // Share of chain 1 within ±bandBps of 50 %: |2·mainnet − total|·10000 ≤ bandBps·2·total.
    const gap = 2n * mainnet - total
    return (gap < 0n ? -gap : gap) * 10_000n <= BigInt(bandBps) * 2n * total
  }

  const setBridge = async (failures: 'always' | 'never') => {
    const answer = await request(sandbox().url, 'POST', '/_sandbox/bridge', { failures })
    expect(answer.status).toBe(200)
  }

  const finalOrders = (journal: Journal) =>
    journal.listOrders({ strategy: 'rebalancer' }).filter((order) => ['COMPLETED', 'REFUNDED'].includes(order.status))

  it('bridges the surplus from chain 1 to 8453 once, across a restart in flight, until both shares are in the band', async () => {
    await setBridge('never')
    const account = 8
    await sendAway(account, 8453, usdcBase, usdc(900_000n))
    const before = await balancesOf(account)
    expect(withinBand(before)).toBe(false)
    const expected = before.mainnet - (before.mainnet + before.base) / 2n
    const journalFile = directory.path('sandbox-complete.sqlite')

    // First run: stopped as soon as the transfer's order is journaled, before it finishes.
    const first = await createTestBot(account, journalFile)
    await first.bot.start()
    await waitFor(() => first.context.journal.listOrders({ strategy: 'rebalancer' })[0], 15_000, 'order')
    await first.bot.stop()
    first.context.journal.close()

    const second = await createTestBot(account, journalFile)
    await second.bot.start()
    const after = await waitFor(
      async () => {
        if (second.context.journal.getStrategyState('rebalancer', 'transfer') !== undefined) return undefined
        if (finalOrders(second.context.journal).length === 0) return undefined
        const balances = await balancesOf(account)
        return withinBand(balances) ? balances : undefined
      },
      15_000,
      'transfer finished with the shares in the band',
    )
    // A few more passes: nothing new is planned once in the band.
    const passes = second.bot.stats().reconcilePasses
    await waitFor(() => (second.bot.stats().reconcilePasses >= passes + 3 ? true : undefined), 5_000, 'three more passes')
    await second.bot.stop()

    const { journal } = second.context
    const orders = journal.listOrders({ strategy: 'rebalancer' })
    expect(orders).toHaveLength(1)
    const [order] = orders
    if (!order) throw new Error('no order')
    expect(order).toMatchObject({ mode: 'delta', status: 'COMPLETED', chainId: 1, destChainId: 8453, srcAmount: expected })
    expect(journal.intentsOf('rebalancer')).toHaveLength(1)
    const received = journal.fillsOf(order.id).reduce((sum, fill) => sum + fill.receivedAmount, 0n)
    expect(received).toBeGreaterThan((expected * 99n) / 100n)
    // To the wei: the source paid exactly the planned amount and the destination got exactly what the fills say.
    expect(after).toEqual({ mainnet: before.mainnet - expected, base: before.base + received })
    expect(await balancesOf(account)).toEqual(after)
    expect(journal.getStrategyState('rebalancer', 'generation')).toBe(1)
    expect(journal.getStrategyState('rebalancer', 'lastTransfer')).toMatchObject({
      key: 'transfer-1',
      status: 'COMPLETED',
      amount: expected.toString(),
    })
    expect(second.bot.stats().strategies.rebalancer?.failures).toBe(0)
    expect(second.bot.stats().delivered.balances).toBeGreaterThan(3)
    journal.close()
  }, 40_000)

  it('plans anew retryMs after a transfer whose pricing failed, without waiting for the placement timeout', async () => {
    await setBridge('never')
    const account = 7
    await sendAway(account, 8453, usdcBase, usdc(700_000n))
    const before = await balancesOf(account)
    const expected = before.mainnet - (before.mainnet + before.base) / 2n
    // An hour of venue time (a real minute) would be the wait without the intent result; a venue minute is a real second.
    const overrides = { placementTimeoutMs: 3_600_000, retryMs: 60_000 }
    const fault = await request(sandbox().url, 'POST', '/_sandbox/faults', { route: 'GET /v2/delta/prices', status: 500 })
    expect(fault.status).toBe(200)
    const { bot, context } = await createTestBot(account, directory.path('sandbox-failed.sqlite'), overrides)
    const { journal } = context
    try {
      await bot.start()
      await waitFor(() => journal.intentsOf('rebalancer').find((intent) => intent.status === 'failed'), 15_000, 'failed intent')
      expect((await request(sandbox().url, 'DELETE', '/_sandbox/faults')).status).toBe(200)
      const after = await waitFor(
        async () => {
          if (finalOrders(journal).length === 0 || journal.getStrategyState('rebalancer', 'transfer') !== undefined) return undefined
          const balances = await balancesOf(account)
          return withinBand(balances) ? balances : undefined
        },
        15_000,
        'completed transfer with the shares in the band',
      )
      await bot.stop()

      const intents = journal.intentsOf('rebalancer')
      const failed = intents.filter((intent) => intent.status === 'failed')
      expect(failed.length).toBeGreaterThanOrEqual(1)
      expect(intents).toHaveLength(failed.length + 1)
      const orders = journal.listOrders({ strategy: 'rebalancer' })
      expect(orders.map((order) => [order.status, order.srcAmount])).toEqual([['COMPLETED', expected]])
      const [done] = orders
      if (!done) throw new Error('no order')
      expect(failed.map((intent) => intent.id)).not.toContain(done.intentId)
      const received = journal.fillsOf(done.id).reduce((sum, fill) => sum + fill.receivedAmount, 0n)
      expect(after).toEqual({ mainnet: before.mainnet - expected, base: before.base + received })
      // The transfer that got an order ended the failures in a row.
      expect(journal.getStrategyState('rebalancer', 'lastFailure')).toBeUndefined()
      expect(journal.getStrategyState('rebalancer', 'generation')).toBe(intents.length)
    } finally {
      await request(sandbox().url, 'DELETE', '/_sandbox/faults')
      if (bot.stats().running) await bot.stop()
      journal.close()
    }
  }, 40_000)

  it('re-plans after the bridge refunds a transfer and still reaches the band', async () => {
    await setBridge('always')
    const account = 9
    await sendAway(account, 1, usdcMainnet, usdc(800_000n))
    const before = await balancesOf(account)
    const expected = before.base - (before.mainnet + before.base) / 2n
    const { bot, context } = await createTestBot(account, directory.path('sandbox-refund.sqlite'))
    const { journal } = context
    try {
      await bot.start()
      await waitFor(
        () => journal.listOrders({ strategy: 'rebalancer' }).find((order) => journal.refundsOf(order.id).length > 0),
        15_000,
        'refund in the journal',
      )
      await setBridge('never')
      const after = await waitFor(
        async () => {
          if (!finalOrders(journal).some((order) => order.status === 'COMPLETED')) return undefined
          if (journal.getStrategyState('rebalancer', 'transfer') !== undefined) return undefined
          const balances = await balancesOf(account)
          return withinBand(balances) ? balances : undefined
        },
        15_000,
        'completed transfer with the shares in the band',
      )
      await bot.stop()

      const orders = journal.listOrders({ strategy: 'rebalancer' })
      const refunded = orders.filter((order) => order.status === 'REFUNDED')
      const completed = orders.filter((order) => order.status === 'COMPLETED')
      expect(refunded.length).toBeGreaterThanOrEqual(1)
      expect(completed).toHaveLength(1)
      expect(orders).toHaveLength(refunded.length + 1)
      // Every transfer was planned from the same balances (a refund returns the source to the wei), each as a new intent.
      for (const order of orders) expect(order).toMatchObject({ chainId: 8453, destChainId: 1, srcAmount: expected })
      expect(new Set(orders.map((order) => order.intentId)).size).toBe(orders.length)
      for (const order of refunded) {
        expect(journal.refundsOf(order.id).map((refund) => [refund.chainId, refund.token, refund.amount])).toEqual([
          [8453, usdcBase.toLowerCase(), expected],
        ])
      }
      const [done] = completed
      if (!done) throw new Error('no completed order')
      const received = journal.fillsOf(done.id).reduce((sum, fill) => sum + fill.receivedAmount, 0n)
      expect(after).toEqual({ mainnet: before.mainnet + received, base: before.base - expected })
      expect(journal.getStrategyState('rebalancer', 'generation')).toBe(orders.length)
      expect(journal.getStrategyState('rebalancer', 'refunds')).toBe(refunded.length)
      expect(journal.getStrategyState('rebalancer', 'lastTransfer')).toMatchObject({ status: 'COMPLETED', orderId: done.id })
    } finally {
      if (bot.stats().running) await bot.stop()
      await setBridge('never')
      journal.close()
    }
  }, 40_000)
})
