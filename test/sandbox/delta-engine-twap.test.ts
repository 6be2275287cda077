import type { Address, Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { zeroBridge } from '../../src/protocol/delta-order.js'
import { getTwapSliceAmount } from '../../src/protocol/twap.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js'
import { useSandbox } from '../helpers/sandbox.js'
import {
  addSignedOrder,
  approveDelta,
  balanceOf,
  poolQuote,
  sandboxSeconds,
  type TwapBuyOrder,
  type TwapOrder,
  token,
  waitForStatus,
} from './delta-engine-fixture.js'

const chainId = 1
const address = (index: number) => developmentAccounts[index]?.address as Address
const interval = 60n
const numSlices = 3
/** Real ms to wait for an order's final status: bounds a starved machine, not a schedule (deadlines are sandbox time). */
const statusTimeoutMs = 45_000

/** Block timestamps of the order's fills, in order. */
async function fillTimestamps(sandbox: RunningSandbox, hashes: readonly Hex[]): Promise<bigint[]> {
  const client = sandbox.venue.chains.get(chainId)?.clients.publicClient
  if (!client) throw new Error('no chain')
  const receipts = await Promise.all(hashes.map((hash) => client.getTransactionReceipt({ hash })))
  const blocks = await Promise.all(receipts.map((receipt) => client.getBlock({ blockNumber: receipt.blockNumber })))
  return blocks.map((block) => block.timestamp)
}

function gapsBetween(times: readonly bigint[]): bigint[] {
  return times.slice(1).map((time, index) => time - (times[index] as bigint))
}

function twapCommon(sandbox: RunningSandbox, ownerIndex: number, srcToken: Address, destToken: Address, deadlineIn: bigint) {
  return {
    owner: address(ownerIndex),
    beneficiary: address(ownerIndex),
    srcToken,
    destToken,
    nonce: BigInt(ownerIndex) * 1_000_003n + sandboxSeconds(sandbox),
    partnerAndFee: 0n,
    deadline: sandboxSeconds(sandbox) + deadlineIn,
    interval,
    numSlices,
    permit: '0x' as Hex,
    metadata: '0x' as Hex,
    bridge: zeroBridge,
  }
}

describe('Delta engine: TWAP orders', () => {
  const sandbox = useSandbox({ chainIds: [chainId], speed: 120, market: 'still' })

  it('settles a sell TWAP one slice per interval until it is COMPLETED', async () => {
    const s = sandbox()
    const [weth, usdc] = [token(s, chainId, 'WETH'), token(s, chainId, 'USDC')]
    await approveDelta(s, chainId, 1, weth)
    const totalSrcAmount = 3n * 10n ** 18n + 2n
    const perSlice = await poolQuote(s, chainId, weth, usdc, totalSrcAmount / 3n, 'SELL')
    const order: TwapOrder = {
      ...twapCommon(s, 1, weth, usdc, 3_600n),
      destAmountPerSlice: (perSlice * 98n) / 100n,
      totalSrcAmount,
    }
    const [wethBefore, usdcBefore] = await Promise.all([balanceOf(s, chainId, weth, address(1)), balanceOf(s, chainId, usdc, address(1))])

    const stored = await addSignedOrder(s, { kind: 'TWAPOrder', order }, { chainId, ownerIndex: 1 })
    await waitForStatus(stored, 'COMPLETED', statusTimeoutMs)

    const [wethAfter, usdcAfter] = await Promise.all([balanceOf(s, chainId, weth, address(1)), balanceOf(s, chainId, usdc, address(1))])
    expect(stored.transactions.map((fill) => fill.spentAmount)).toEqual(
      [0, 1, 2].map((index) => getTwapSliceAmount(totalSrcAmount, numSlices, index)),
    )
    for (const fill of stored.transactions) expect(fill.receivedAmount).toBeGreaterThanOrEqual(order.destAmountPerSlice)
    expect(wethBefore - wethAfter).toBe(totalSrcAmount)
    expect(usdcAfter - usdcBefore).toBe(stored.filledDestAmount)
    const times = await fillTimestamps(
      s,
      stored.transactions.map((fill) => fill.originTx),
    )
    expect(gapsBetween(times)).toHaveLength(2)
    for (const gap of gapsBetween(times)) expect(gap).toBeGreaterThanOrEqual(interval)
    expect(stored.history.map((entry) => entry.status)).toEqual(['PENDING', 'ACTIVE', 'COMPLETED'])
  })

  it('settles a buy TWAP one slice per interval, each within its share of the maximum', async () => {
    const s = sandbox()
    const [weth, usdc] = [token(s, chainId, 'WETH'), token(s, chainId, 'USDC')]
    await approveDelta(s, chainId, 2, weth)
    const totalDestAmount = 3_000n * 10n ** 6n
    const perSlice = await poolQuote(s, chainId, weth, usdc, totalDestAmount / 3n, 'BUY')
    const order: TwapBuyOrder = {
      ...twapCommon(s, 2, weth, usdc, 3_600n),
      totalDestAmount,
      maxSrcAmount: (perSlice * 3n * 102n) / 100n,
    }
    const [wethBefore, usdcBefore] = await Promise.all([balanceOf(s, chainId, weth, address(2)), balanceOf(s, chainId, usdc, address(2))])

    const stored = await addSignedOrder(s, { kind: 'TWAPBuyOrder', order }, { chainId, ownerIndex: 2 })
    await waitForStatus(stored, 'COMPLETED', statusTimeoutMs)

    const [wethAfter, usdcAfter] = await Promise.all([balanceOf(s, chainId, weth, address(2)), balanceOf(s, chainId, usdc, address(2))])
    expect(stored.transactions.map((fill) => fill.receivedAmount)).toEqual([1_000n, 1_000n, 1_000n].map((units) => units * 10n ** 6n))
    stored.transactions.forEach((fill, index) => {
      expect(fill.spentAmount).toBeLessThanOrEqual(getTwapSliceAmount(order.maxSrcAmount, numSlices, index))
    })
    expect(usdcAfter - usdcBefore).toBe(totalDestAmount)
    expect(wethBefore - wethAfter).toBe(stored.filledSrcAmount)
    const times = await fillTimestamps(
      s,
      stored.transactions.map((fill) => fill.originTx),
    )
    expect(gapsBetween(times)).toHaveLength(2)
    for (const gap of gapsBetween(times)) expect(gap).toBeGreaterThanOrEqual(interval)
  })

  it('expires a TWAP whose remaining slices find no bid within their limit before the deadline', async () => {
    const s = sandbox()
    // USDC → PUSD has a single pool, so moving it moves every route. A slice is 5 % of the pool's USDC: the agent that
    // fills the first one sells the USDC it received back into the pool before the engine moves on, which makes PUSD
    // some 10 % dearer, so no later slice meets its limit. The engine itself orders that move before the next slice,
    // where the test's own swap used to race it.
    const [usdc, pusd] = [token(s, chainId, 'USDC'), token(s, chainId, 'PUSD')]
    await approveDelta(s, chainId, 3, usdc)
    const slice = 100_000n * 10n ** 6n
    const perSlice = await poolQuote(s, chainId, usdc, pusd, slice, 'SELL')
    const order: TwapOrder = {
      // Ten intervals (five real seconds) for the first slice to settle and the next ones to find no bid.
      ...twapCommon(s, 3, usdc, pusd, 10n * interval),
      destAmountPerSlice: (perSlice * 995n) / 1000n,
      totalSrcAmount: 3n * slice,
    }

    const pusdBefore = await balanceOf(s, chainId, pusd, address(3))
    const stored = await addSignedOrder(s, { kind: 'TWAPOrder', order }, { chainId, ownerIndex: 3 })
    await waitForStatus(stored, 'EXPIRED', statusTimeoutMs)

    expect(stored.transactions).toHaveLength(1)
    expect(stored.filledSrcAmount).toBe(slice)
    expect(await poolQuote(s, chainId, usdc, pusd, slice, 'SELL')).toBeLessThan(order.destAmountPerSlice)
    expect((await balanceOf(s, chainId, pusd, address(3))) - pusdBefore).toBe(stored.transactions[0]?.receivedAmount)
    expect(stored.history.map((entry) => entry.status)).toEqual(['PENDING', 'ACTIVE', 'EXPIRED'])
  })
})
