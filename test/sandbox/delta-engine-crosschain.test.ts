import type { Address, Hex } from 'viem'
import { afterEach, describe, expect, it } from 'vitest'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { bridgeProfiles } from '../../src/sandbox/delta/bridges.js'
import { request, useSandbox } from '../helpers/sandbox.js'
import { addSignedOrder, approveDelta, balanceOf, poolQuote, standardOrder, token, waitForStatus } from './delta-engine-fixture.js'

const [source, destination] = [1, 8453]
const address = (index: number) => developmentAccounts[index]?.address as Address
const fast = bridgeProfiles[0] as (typeof bridgeProfiles)[number]

describe('Delta engine: crosschain orders', () => {
  const sandbox = useSandbox({ chainIds: [source, destination], speed: 120, market: 'still' })
  afterEach(async () => {
    await request(sandbox().url, 'POST', '/_sandbox/bridge', { failures: 'random' })
  })

  /** A 1 WETH sell on chain 1 for USDC delivered on Base through the fast bridge, 2 % under the pools' price. */
  async function bridgedSell(ownerIndex: number) {
    const s = sandbox()
    const [weth, usdc] = [token(s, source, 'WETH'), token(s, source, 'USDC')]
    await approveDelta(s, source, ownerIndex, weth)
    const srcAmount = 10n ** 18n
    const quote = await poolQuote(s, source, weth, usdc, srcAmount, 'SELL')
    const order = standardOrder(s, {
      chainId: source,
      ownerIndex,
      srcToken: weth,
      destToken: usdc,
      srcAmount,
      destAmount: (quote * 98n) / 100n,
      kind: 0,
      bridge: {
        protocolSelector: fast.protocolSelector,
        destinationChainId: BigInt(destination),
        outputToken: token(s, destination, 'USDC'),
        scalingFactor: 0,
        protocolData: '0x',
      },
    })
    return { order, weth, baseUsdc: token(s, destination, 'USDC') }
  }

  it('settles the source leg, bridges, and completes once the destination leg lands on the other chain', async () => {
    const s = sandbox()
    await request(s.url, 'POST', '/_sandbox/bridge', { failures: 'never' })
    const { order, weth, baseUsdc } = await bridgedSell(1)
    const [wethBefore, usdcBefore] = await Promise.all([
      balanceOf(s, source, weth, address(1)),
      balanceOf(s, destination, baseUsdc, address(1)),
    ])

    const stored = await addSignedOrder(s, { kind: 'Order', order }, { chainId: source, ownerIndex: 1 })
    await waitForStatus(stored, 'BRIDGING')
    expect(stored.transactions[0]?.destinationTx).toBeNull()
    await waitForStatus(stored, 'COMPLETED')

    const [fill] = stored.transactions
    const [wethAfter, usdcAfter] = await Promise.all([
      balanceOf(s, source, weth, address(1)),
      balanceOf(s, destination, baseUsdc, address(1)),
    ])
    expect(wethBefore - wethAfter).toBe(fill?.spentAmount)
    expect(usdcAfter - usdcBefore).toBe(fill?.receivedAmount)
    expect(fill?.receivedAmount).toBeGreaterThanOrEqual(order.destAmount)
    const delivery = await s.venue.chains.get(destination)?.clients.publicClient.getTransactionReceipt({ hash: fill?.destinationTx as Hex })
    expect(delivery?.status).toBe('success')
    expect(stored.history.map((entry) => entry.status)).toEqual(['PENDING', 'BRIDGING', 'COMPLETED'])
    expect((stored.history.at(-1)?.at ?? 0) - (fill?.at ?? 0)).toBeGreaterThanOrEqual(fast.estimatedTimeMs)
    expect(stored.refunds).toEqual([])
  })

  it('refunds the source on the source chain when the bridge fails', async () => {
    const s = sandbox()
    expect((await request(s.url, 'POST', '/_sandbox/bridge', { failures: 'always' })).json).toEqual({ failures: 'always' })
    const { order, weth, baseUsdc } = await bridgedSell(2)
    const [wethBefore, usdcBefore] = await Promise.all([
      balanceOf(s, source, weth, address(2)),
      balanceOf(s, destination, baseUsdc, address(2)),
    ])

    const stored = await addSignedOrder(s, { kind: 'Order', order }, { chainId: source, ownerIndex: 2 })
    await waitForStatus(stored, 'REFUNDING')
    expect(stored.refunds).toEqual([])
    await waitForStatus(stored, 'REFUNDED')

    const [fill] = stored.transactions
    const [refund] = stored.refunds
    expect(refund).toEqual({ tx: refund?.tx, chainId: source, token: weth, amount: fill?.spentAmount })
    const [wethAfter, usdcAfter] = await Promise.all([
      balanceOf(s, source, weth, address(2)),
      balanceOf(s, destination, baseUsdc, address(2)),
    ])
    expect(wethAfter).toBe(wethBefore)
    expect(usdcAfter).toBe(usdcBefore)
    expect(fill?.destinationTx).toBeNull()
    const receipt = await s.venue.chains.get(source)?.clients.publicClient.getTransactionReceipt({ hash: refund?.tx as Hex })
    expect(receipt?.status).toBe('success')
    expect(stored.history.map((entry) => entry.status)).toEqual(['PENDING', 'BRIDGING', 'REFUNDING', 'REFUNDED'])
  })

  it('answers the bridge control with its mode and rejects an unknown one', async () => {
    const s = sandbox()
    expect((await request(s.url, 'GET', '/_sandbox/bridge')).json).toEqual({ failures: 'random' })
    const refused = await request(s.url, 'POST', '/_sandbox/bridge', { failures: 'sometimes' })
    expect(refused.status).toBe(400)
    expect((refused.json as { error: string }).error).toMatch(/body\.failures/)
  })
})
