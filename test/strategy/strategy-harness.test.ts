import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createStrategyHarness, defineStrategy, intentId, parseIntentContent, StrategyConfigError, StrategyError } from '../../src/index.js'
import example from '../../strategies/example/index.js'
import rebalancer from '../../strategies/rebalancer/index.js'

const usdc = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
const weth = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'
const usdcBase = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
const exampleConfig = { chainId: 1, srcToken: usdc, destToken: weth, amount: '1000000000', minDestAmount: '500000000000000000' }

describe('createStrategyHarness', () => {
  it('turns a quote into the validated intent the executor would get, with its deterministic id, and keeps the state', async () => {
    const harness = createStrategyHarness(example, { config: exampleConfig, name: 'take-profit', now: 1_800_000_000_000 })
    expect(await harness.quote({ destAmount: 400_000_000_000_000_000n })).toEqual([])
    const [sell, ...more] = await harness.quote({ destAmount: 600_000_000_000_000_000n })
    expect(more).toEqual([])
    expect(sell).toMatchObject({
      strategy: 'take-profit',
      kind: 'swap',
      amount: 1_000_000_000n,
      side: 'SELL',
      createdAt: 1_800_000_000_000,
    })
    const content = parseIntentContent({
      strategy: 'take-profit',
      kind: 'swap',
      chainId: 1,
      srcToken: usdc,
      destToken: weth,
      amount: '1000000000',
      side: 'SELL',
      maxSlippageBps: 50,
      maxPriceImpactPercent: 2,
    })
    expect(sell?.id).toBe(intentId({ content, key: 'take-profit' }))
    expect(harness.state('soldAt')).toBe(1_800_000_000_000)
    harness.clock.advance(60_000)
    expect(await harness.quote({ destAmount: 700_000_000_000_000_000n })).toEqual([])
  })

  it('reports an order of an intent and its fills as the runtime would, and the strategy plans from them', async () => {
    const harness = createStrategyHarness(rebalancer, {
      config: {
        chains: [
          { chainId: 1, token: usdc, weight: 50 },
          { chainId: 8453, token: usdcBase, weight: 50 },
        ],
        bandBps: 500,
        minTradeAmount: '1000000',
      },
    })
    const [transfer] = await harness.balances({
      now: harness.clock.now(),
      balances: [
        { chainId: 1, token: usdc, amount: 900_000_000n },
        { chainId: 8453, token: usdcBase, amount: 100_000_000n },
      ],
    })
    expect(transfer).toMatchObject({ kind: 'crosschain', chainId: 1, destChainId: 8453, amount: 400_000_000n })
    if (!transfer) throw new Error('expected a transfer')
    const order = harness.orderOf(transfer, { status: 'COMPLETED' })
    expect(order).toMatchObject({ id: `${transfer.id}/0`, intentId: transfer.id, mode: 'delta', chainId: 1, destChainId: 8453 })
    const fill = harness.fillOf(order, { spentAmount: 400_000_000n, receivedAmount: 399_000_000n })
    expect(fill).toMatchObject({ id: 1, orderId: order.id, destinationChainId: 8453 })
    await harness.fill({ order, fill })
    expect(await harness.orderUpdate({ order, reason: null })).toEqual([])
  })

  it('rejects with the StrategyError the bot would log when a handler throws or asks for a bad intent', async () => {
    const broken = defineStrategy({
      apiVersion: 1,
      name: 'broken',
      configSchema: z.object({}),
      subscriptions: () => [],
      timers: () => [1_000],
      onTimer: () => ({
        key: 'bad',
        intent: {
          kind: 'swap',
          chainId: 1,
          srcToken: usdc,
          destToken: usdc,
          amount: '1',
          side: 'SELL',
          maxSlippageBps: 50,
          maxPriceImpactPercent: 1,
        },
      }),
      onStop: () => {
        throw new Error('stop failed')
      },
    })
    const harness = createStrategyHarness(broken, { config: {} })
    await expect(harness.timer()).rejects.toThrow(/destToken: expected a token other than srcToken/)
    await expect(harness.stop()).rejects.toBeInstanceOf(StrategyError)
    await expect(harness.quote({ destAmount: 1n })).rejects.toThrow('subscribes to no quotes')
  })

  it('refuses a config its schema refuses, naming the field', () => {
    expect(() => createStrategyHarness(example, { config: { ...exampleConfig, srcToken: 'usdc' } })).toThrow(StrategyConfigError)
    expect(() => createStrategyHarness(example, { config: { ...exampleConfig, srcToken: 'usdc' } })).toThrow(/srcToken/)
  })
})
