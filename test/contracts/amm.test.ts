import fc from 'fast-check'
import { type Address, getAddress, maxUint256, parseEther, parseUnits, type TransactionReceipt, zeroAddress } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { placeContract } from '../../src/sandbox/chains/place-contract.js'
import { labelAddress, useTestChain } from '../helpers/chain.js'
import { bindContract } from '../helpers/contract.js'
import { useSnapshotPerTest } from '../helpers/snapshot.js'

const ROUTER = getAddress('0x6a000f20005980200259b80c5102003040001068')
const NATIVE: Address = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE'
const [operatorAccount, aliceAccount, , strangerAccount] = developmentAccounts
if (!operatorAccount || !aliceAccount || !strangerAccount) throw new Error('anvil development accounts missing')
/** Mints the tokens and owns the pool liquidity. */
const operator = operatorAccount.address
/** Trades; has approved the router for every token. */
const alice = aliceAccount.address
/** Holds tokens but approved nothing. */
const stranger = strangerAccount.address
/** A beneficiary that never sends, so its native balance changes only by what it receives. */
const bob = labelAddress('amm.bob')

const FEE_BPS = 30n

/** x·y=k output with the fee taken from the input, rounded down (mirrors ConstantProductPool.getAmountOut). */
function expectedAmountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint): bigint {
  const inAfterFee = amountIn * (10_000n - FEE_BPS)
  return (inAfterFee * reserveOut) / (reserveIn * 10_000n + inAfterFee)
}

describe('AMM', () => {
  const chain = useTestChain()
  const tokenA = bindContract(chain, 'SandboxToken', labelAddress('amm.a'))
  const tokenB = bindContract(chain, 'SandboxToken', labelAddress('amm.b'))
  const usdt = bindContract(chain, 'UsdtStyleToken', labelAddress('amm.usdt'))
  const weth = bindContract(chain, 'WrappedNative', labelAddress('amm.weth'))
  const poolAB = bindContract(chain, 'ConstantProductPool', labelAddress('amm.pool-ab'))
  const poolBW = bindContract(chain, 'ConstantProductPool', labelAddress('amm.pool-bw'))
  const poolUA = bindContract(chain, 'ConstantProductPool', labelAddress('amm.pool-ua'))
  const freshPool = bindContract(chain, 'ConstantProductPool', labelAddress('amm.pool-fresh'))
  const router = bindContract(chain, 'MarketRouter', ROUTER)

  const latestTimestamp = async () => (await chain().publicClient.getBlock()).timestamp
  const nativeBalance = (address: Address) => chain().publicClient.getBalance({ address })
  const gasCost = (receipt: TransactionReceipt) => receipt.gasUsed * receipt.effectiveGasPrice
  const reserves = async (pool: typeof poolAB) => (await pool.read('getReserves')) as readonly [bigint, bigint]
  const balanceOf = async (token: typeof tokenA, holder: Address) => (await token.read('balanceOf', [holder])) as bigint

  beforeAll(async () => {
    await chain().place('SandboxToken', 'amm.a')
    await chain().place('SandboxToken', 'amm.b')
    await chain().place('UsdtStyleToken', 'amm.usdt')
    await chain().place('WrappedNative', 'amm.weth')
    for (const label of ['amm.pool-ab', 'amm.pool-bw', 'amm.pool-ua', 'amm.pool-fresh']) await chain().place('ConstantProductPool', label)
    await placeContract(chain(), { name: 'MarketRouter', address: ROUTER })

    await tokenA.send(operator, 'initialize', ['Token A', 'A', 18, '1', operator])
    await tokenB.send(operator, 'initialize', ['Token B', 'B', 18, '1', operator])
    await usdt.send(operator, 'initialize', ['Tether USD', 'USDT', 6, operator])
    await weth.send(operator, 'initialize', ['Wrapped Ether', 'WETH'])
    await poolAB.send(operator, 'initialize', [tokenA.address, tokenB.address, Number(FEE_BPS)])
    await poolBW.send(operator, 'initialize', [tokenB.address, weth.address, Number(FEE_BPS)])
    await poolUA.send(operator, 'initialize', [usdt.address, tokenA.address, Number(FEE_BPS)])
    await router.send(operator, 'initialize', [weth.address])

    // Liquidity: 1 A = 2 B, 1 WETH = 2000 B, 1 USDT = 1 A.
    await tokenA.send(operator, 'mint', [poolAB.address, parseEther('1000000')])
    await tokenB.send(operator, 'mint', [poolAB.address, parseEther('2000000')])
    await tokenB.send(operator, 'mint', [poolBW.address, parseEther('2000000')])
    await weth.send(operator, 'deposit', [], parseEther('1000'))
    await weth.send(operator, 'transfer', [poolBW.address, parseEther('1000')])
    await usdt.send(operator, 'mint', [poolUA.address, parseUnits('1000000', 6)])
    await tokenA.send(operator, 'mint', [poolUA.address, parseEther('1000000')])
    for (const pool of [poolAB, poolBW, poolUA]) await pool.send(operator, 'sync')

    for (const holder of [alice, stranger]) {
      await tokenA.send(operator, 'mint', [holder, parseEther('10000')])
      await tokenB.send(operator, 'mint', [holder, parseEther('10000')])
      await usdt.send(operator, 'mint', [holder, parseUnits('10000', 6)])
    }
    for (const token of [tokenA, tokenB, usdt]) await token.send(alice, 'approve', [ROUTER, maxUint256])
  })
  useSnapshotPerTest(chain)

  describe('ConstantProductPool', () => {
    it('reports its tokens, fee and reserves', async () => {
      expect(await poolAB.read('token0')).toBe(tokenA.address)
      expect(await poolAB.read('token1')).toBe(tokenB.address)
      expect(await poolAB.read('feeBps')).toBe(30)
      expect(await reserves(poolAB)).toEqual([parseEther('1000000'), parseEther('2000000')])
    })

    it('quotes x·y=k with the fee on the input in both directions', async () => {
      const [reserveA, reserveB] = await reserves(poolAB)
      const amountIn = parseEther('1234.5')
      expect(await poolAB.read('getAmountOut', [tokenA.address, amountIn])).toBe(expectedAmountOut(amountIn, reserveA, reserveB))
      expect(await poolAB.read('getAmountOut', [tokenB.address, amountIn])).toBe(expectedAmountOut(amountIn, reserveB, reserveA))
    })

    it('quotes in getAmountIn the smallest input whose output reaches the requested amount', async () => {
      await fc.assert(
        fc.asyncProperty(fc.bigInt({ min: 1n, max: parseEther('1999999') }), async (amountOut) => {
          const amountIn = (await poolAB.read('getAmountIn', [tokenB.address, amountOut])) as bigint
          expect(await poolAB.read('getAmountOut', [tokenA.address, amountIn])).toBeGreaterThanOrEqual(amountOut)
          if (amountIn > 1n) expect(await poolAB.read('getAmountOut', [tokenA.address, amountIn - 1n])).toBeLessThan(amountOut)
        }),
        { numRuns: 25 },
      )
    })

    it('pays the quoted output to the recipient, updates the reserves and emits Swap and Sync', async () => {
      const amountIn = parseEther('100')
      const quoted = (await poolAB.read('getAmountOut', [tokenA.address, amountIn])) as bigint
      await tokenA.send(alice, 'transfer', [poolAB.address, amountIn])
      const receipt = await poolAB.send(alice, 'swap', [tokenA.address, quoted, bob])
      expect(await balanceOf(tokenB, bob)).toBe(quoted)
      expect(await reserves(poolAB)).toEqual([parseEther('1000100'), parseEther('2000000') - quoted])
      expect(poolAB.events(receipt, 'Swap')[0]?.args).toEqual({
        sender: alice,
        tokenIn: tokenA.address,
        tokenOut: tokenB.address,
        amountIn,
        amountOut: quoted,
        to: bob,
      })
      expect(poolAB.events(receipt, 'Sync')[0]?.args).toEqual({ reserve0: parseEther('1000100'), reserve1: parseEther('2000000') - quoted })
    })

    it('pays out a USDT-style token that returns no data', async () => {
      const amountIn = parseEther('50')
      const quoted = (await poolUA.read('getAmountOut', [tokenA.address, amountIn])) as bigint
      await tokenA.send(alice, 'transfer', [poolUA.address, amountIn])
      await poolUA.send(alice, 'swap', [tokenA.address, 0n, bob])
      expect(await usdt.read('balanceOf', [bob])).toBe(quoted)
      expect(quoted).toBeGreaterThan(0n)
    })

    it('sets the reserves to the balances on sync', async () => {
      await tokenB.send(alice, 'transfer', [poolAB.address, 7n])
      const receipt = await poolAB.send(stranger, 'sync')
      expect(await reserves(poolAB)).toEqual([parseEther('1000000'), parseEther('2000000') + 7n])
      expect(poolAB.events(receipt, 'Sync')).toHaveLength(1)
    })

    it('reverts "POOL: INVALID_TOKEN" when swapping a token the pool does not hold', async () => {
      expect((await poolAB.revert(alice, 'swap', [usdt.address, 0n, bob])).reason).toBe('POOL: INVALID_TOKEN')
    })

    it('reverts "POOL: INSUFFICIENT_INPUT" when nothing was sent in', async () => {
      expect((await poolAB.revert(alice, 'swap', [tokenA.address, 0n, bob])).reason).toBe('POOL: INSUFFICIENT_INPUT')
    })

    it('reverts "POOL: INSUFFICIENT_INPUT" when quoting a zero input', async () => {
      expect((await poolAB.revert(alice, 'getAmountOut', [tokenA.address, 0n])).reason).toBe('POOL: INSUFFICIENT_INPUT')
    })

    it('reverts "POOL: INSUFFICIENT_LIQUIDITY" when swapping in a pool without reserves', async () => {
      await freshPool.send(operator, 'initialize', [tokenA.address, tokenB.address, 30])
      await tokenA.send(alice, 'transfer', [freshPool.address, parseEther('1')])
      expect((await freshPool.revert(alice, 'swap', [tokenA.address, 0n, bob])).reason).toBe('POOL: INSUFFICIENT_LIQUIDITY')
    })

    it('reverts "POOL: INSUFFICIENT_LIQUIDITY" when asking getAmountIn for the whole reserve', async () => {
      const revert = await poolAB.revert(alice, 'getAmountIn', [tokenB.address, parseEther('2000000')])
      expect(revert.reason).toBe('POOL: INSUFFICIENT_LIQUIDITY')
    })

    it('reverts "POOL: INSUFFICIENT_OUTPUT" when the output is below minAmountOut', async () => {
      const amountIn = parseEther('100')
      const quoted = (await poolAB.read('getAmountOut', [tokenA.address, amountIn])) as bigint
      await tokenA.send(alice, 'transfer', [poolAB.address, amountIn])
      expect((await poolAB.revert(alice, 'swap', [tokenA.address, quoted + 1n, bob])).reason).toBe('POOL: INSUFFICIENT_OUTPUT')
    })

    it('reverts "POOL: INSUFFICIENT_OUTPUT" when the input is too small to buy one unit', async () => {
      // 1 wei of B is worth half a wei of A.
      await tokenB.send(alice, 'transfer', [poolAB.address, 1n])
      expect((await poolAB.revert(alice, 'swap', [tokenB.address, 0n, bob])).reason).toBe('POOL: INSUFFICIENT_OUTPUT')
    })

    it('reverts "POOL: INSUFFICIENT_OUTPUT" when getAmountIn is asked for nothing', async () => {
      expect((await poolAB.revert(alice, 'getAmountIn', [tokenB.address, 0n])).reason).toBe('POOL: INSUFFICIENT_OUTPUT')
    })

    it('reverts AlreadyInitialized when initialised twice', async () => {
      expect((await poolAB.revert(operator, 'initialize', [tokenA.address, tokenB.address, 30])).errorName).toBe('AlreadyInitialized')
    })

    it('reverts "POOL: INVALID_TOKEN" when initialised with the same token twice', async () => {
      expect((await freshPool.revert(operator, 'initialize', [tokenA.address, tokenA.address, 30])).reason).toBe('POOL: INVALID_TOKEN')
    })

    it('reverts "POOL: INVALID_FEE" when the fee is 100% or more', async () => {
      expect((await freshPool.revert(operator, 'initialize', [tokenA.address, tokenB.address, 10_000])).reason).toBe('POOL: INVALID_FEE')
    })

    it('reverts "POOL: INVALID_TOKEN" on sync before initialisation', async () => {
      expect((await freshPool.revert(operator, 'sync')).reason).toBe('POOL: INVALID_TOKEN')
    })
  })

  describe('MarketRouter.swapExactAmountIn', () => {
    it('swaps an ERC-20 along two pools and pays the quote to the beneficiary', async () => {
      const srcAmount = parseUnits('500', 6)
      const pools = [poolUA.address, poolAB.address]
      const [reserveU, reserveA] = await reserves(poolUA)
      const [reserveA2, reserveB] = await reserves(poolAB)
      const expected = expectedAmountOut(expectedAmountOut(srcAmount, reserveU, reserveA), reserveA2, reserveB)
      expect(await router.read('quoteExactAmountIn', [srcAmount, usdt.address, pools])).toBe(expected)
      const args = [usdt.address, tokenB.address, srcAmount, expected, pools, bob, 0n]
      expect(await router.simulate(alice, 'swapExactAmountIn', args)).toBe(expected)

      const receipt = await router.send(alice, 'swapExactAmountIn', args)
      expect(await balanceOf(tokenB, bob)).toBe(expected)
      expect(await usdt.read('balanceOf', [alice])).toBe(parseUnits('9500', 6))
      expect(router.events(receipt, 'Swapped')[0]?.args).toEqual({
        user: alice,
        srcToken: usdt.address,
        destToken: tokenB.address,
        srcAmount,
        destAmount: expected,
        beneficiary: bob,
      })
    })

    it('wraps a native source and pays the caller when the beneficiary is zero', async () => {
      const srcAmount = parseEther('1')
      const pools = [poolBW.address, poolAB.address]
      const expected = (await router.read('quoteExactAmountIn', [srcAmount, NATIVE, pools])) as bigint
      expect(await router.read('quoteExactAmountIn', [srcAmount, weth.address, pools])).toBe(expected)
      const before = await balanceOf(tokenA, alice)
      await router.send(alice, 'swapExactAmountIn', [NATIVE, tokenA.address, srcAmount, 0n, pools, zeroAddress, 0n], srcAmount)
      expect(await balanceOf(tokenA, alice)).toBe(before + expected)
      expect(await weth.read('balanceOf', [poolBW.address])).toBe(parseEther('1001'))
    })

    it('unwraps to a native destination and sends the coin to the beneficiary', async () => {
      const srcAmount = parseEther('1000')
      const pools = [poolAB.address, poolBW.address]
      const expected = (await router.read('quoteExactAmountIn', [srcAmount, tokenA.address, pools])) as bigint
      await router.send(alice, 'swapExactAmountIn', [tokenA.address, NATIVE, srcAmount, expected, pools, bob, 0n])
      expect(await nativeBalance(bob)).toBe(expected)
      expect(await nativeBalance(ROUTER)).toBe(0n)
      expect(await weth.read('balanceOf', [ROUTER])).toBe(0n)
    })

    it('accepts a deadline that has not passed', async () => {
      const deadline = (await latestTimestamp()) + 60n
      await router.send(alice, 'swapExactAmountIn', [tokenA.address, tokenB.address, 1_000n, 1n, [poolAB.address], bob, deadline])
      expect(await balanceOf(tokenB, bob)).toBeGreaterThan(0n)
    })

    it('reverts "TransferHelper: TRANSFER_FROM_FAILED" when the caller has not approved the router', async () => {
      const revert = await router.revert(stranger, 'swapExactAmountIn', [
        tokenA.address,
        tokenB.address,
        1_000n,
        0n,
        [poolAB.address],
        bob,
        0n,
      ])
      expect(revert.reason).toBe('TransferHelper: TRANSFER_FROM_FAILED')
    })

    it('reverts "INSUFFICIENT_OUTPUT" when the output is below minDestAmount', async () => {
      const pools = [poolAB.address, poolBW.address]
      const expected = (await router.read('quoteExactAmountIn', [parseEther('10'), tokenA.address, pools])) as bigint
      const args = [tokenA.address, weth.address, parseEther('10'), expected + 1n, pools, bob, 0n]
      expect((await router.revert(alice, 'swapExactAmountIn', args)).reason).toBe('INSUFFICIENT_OUTPUT')
    })

    it('reverts "EXPIRED" when the deadline has passed', async () => {
      const deadline = (await latestTimestamp()) - 1n
      const args = [tokenA.address, tokenB.address, 1_000n, 0n, [poolAB.address], bob, deadline]
      expect((await router.revert(alice, 'swapExactAmountIn', args)).reason).toBe('EXPIRED')
    })

    it('reverts "INVALID_MSG_VALUE" when msg.value differs from a native srcAmount', async () => {
      const args = [NATIVE, tokenB.address, parseEther('1'), 0n, [poolBW.address], bob, 0n]
      expect((await router.revert(alice, 'swapExactAmountIn', args, parseEther('0.5'))).reason).toBe('INVALID_MSG_VALUE')
    })

    it('reverts "INVALID_MSG_VALUE" when a coin is sent with an ERC-20 source', async () => {
      const args = [tokenA.address, tokenB.address, 1_000n, 0n, [poolAB.address], bob, 0n]
      expect((await router.revert(alice, 'swapExactAmountIn', args, 1n)).reason).toBe('INVALID_MSG_VALUE')
    })

    it('reverts "INVALID_PATH" when the pools do not lead to destToken', async () => {
      const args = [tokenA.address, usdt.address, 1_000n, 0n, [poolAB.address], bob, 0n]
      expect((await router.revert(alice, 'swapExactAmountIn', args)).reason).toBe('INVALID_PATH')
    })

    it('reverts "INVALID_PATH" when a pool does not hold the hop token', async () => {
      const args = [tokenB.address, tokenA.address, 1_000n, 0n, [poolUA.address], bob, 0n]
      expect((await router.revert(alice, 'swapExactAmountIn', args)).reason).toBe('INVALID_PATH')
    })

    it('reverts "INVALID_PATH" when a pool has no code', async () => {
      const args = [tokenA.address, tokenB.address, 1_000n, 0n, [bob], bob, 0n]
      expect((await router.revert(alice, 'swapExactAmountIn', args)).reason).toBe('INVALID_PATH')
    })

    it('reverts "INVALID_PATH" when no pool is given', async () => {
      const args = [tokenA.address, tokenB.address, 1_000n, 0n, [], bob, 0n]
      expect((await router.revert(alice, 'swapExactAmountIn', args)).reason).toBe('INVALID_PATH')
    })
  })

  describe('MarketRouter.swapExactAmountOut', () => {
    it('takes the backwards-computed input of an ERC-20 along two pools, delivers exactly destAmount and keeps the rounding surplus', async () => {
      const destAmount = parseEther('300')
      const pools = [poolUA.address, poolAB.address]
      const needed = (await router.read('quoteExactAmountOut', [destAmount, tokenB.address, pools])) as bigint
      const neededForA = (await poolAB.read('getAmountIn', [tokenB.address, destAmount])) as bigint
      expect(needed).toBe(await poolUA.read('getAmountIn', [tokenA.address, neededForA]))
      const args = [usdt.address, tokenB.address, needed, destAmount, pools, bob, 0n]
      expect(await router.simulate(alice, 'swapExactAmountOut', args)).toBe(needed)

      const receipt = await router.send(alice, 'swapExactAmountOut', args)
      expect(await usdt.read('balanceOf', [alice])).toBe(parseUnits('10000', 6) - needed)
      expect(await balanceOf(tokenB, bob)).toBe(destAmount)
      expect(await balanceOf(tokenB, ROUTER)).toBeLessThan(parseEther('0.001'))
      expect(router.events(receipt, 'Swapped')[0]?.args).toMatchObject({ srcAmount: needed, destAmount })
    })

    it('refunds the unused part of a native msg.value', async () => {
      const destAmount = parseEther('1000')
      const pools = [poolBW.address, poolAB.address]
      const needed = (await router.read('quoteExactAmountOut', [destAmount, tokenA.address, pools])) as bigint
      const before = await nativeBalance(alice)
      const receipt = await router.send(
        alice,
        'swapExactAmountOut',
        [NATIVE, tokenA.address, parseEther('5'), destAmount, pools, bob, 0n],
        parseEther('5'),
      )
      expect(before - (await nativeBalance(alice)) - gasCost(receipt)).toBe(needed)
      expect(await balanceOf(tokenA, bob)).toBe(destAmount)
      expect(await nativeBalance(ROUTER)).toBe(0n)
    })

    it('unwraps to a native destination for the beneficiary', async () => {
      const destAmount = parseEther('0.25')
      const pools = [poolAB.address, poolBW.address]
      const needed = (await router.read('quoteExactAmountOut', [destAmount, NATIVE, pools])) as bigint
      const before = await balanceOf(tokenA, alice)
      await router.send(alice, 'swapExactAmountOut', [tokenA.address, NATIVE, needed, destAmount, pools, bob, 0n])
      expect(await balanceOf(tokenA, alice)).toBe(before - needed)
      expect(await nativeBalance(bob)).toBe(destAmount)
      expect(await weth.read('balanceOf', [ROUTER])).toBeLessThan(parseEther('0.000001'))
    })

    it('reverts "INSUFFICIENT_OUTPUT" when the needed input exceeds maxSrcAmount', async () => {
      const pools = [poolAB.address]
      const needed = (await router.read('quoteExactAmountOut', [parseEther('10'), tokenB.address, pools])) as bigint
      const args = [tokenA.address, tokenB.address, needed - 1n, parseEther('10'), pools, bob, 0n]
      expect((await router.revert(alice, 'swapExactAmountOut', args)).reason).toBe('INSUFFICIENT_OUTPUT')
    })

    it('reverts "TransferHelper: TRANSFER_FROM_FAILED" when the caller has not approved the router', async () => {
      const args = [tokenA.address, tokenB.address, parseEther('100'), parseEther('10'), [poolAB.address], bob, 0n]
      expect((await router.revert(stranger, 'swapExactAmountOut', args)).reason).toBe('TransferHelper: TRANSFER_FROM_FAILED')
    })

    it('reverts "EXPIRED" when the deadline has passed', async () => {
      const deadline = (await latestTimestamp()) - 1n
      const args = [tokenA.address, tokenB.address, parseEther('100'), parseEther('10'), [poolAB.address], bob, deadline]
      expect((await router.revert(alice, 'swapExactAmountOut', args)).reason).toBe('EXPIRED')
    })

    it('reverts "INVALID_MSG_VALUE" when msg.value is below the needed native input', async () => {
      const args = [NATIVE, tokenB.address, parseEther('1'), parseEther('100'), [poolBW.address], bob, 0n]
      expect((await router.revert(alice, 'swapExactAmountOut', args, parseEther('0.01'))).reason).toBe('INVALID_MSG_VALUE')
    })

    it('reverts "INVALID_MSG_VALUE" when a coin is sent with an ERC-20 source', async () => {
      const args = [tokenA.address, tokenB.address, parseEther('100'), parseEther('10'), [poolAB.address], bob, 0n]
      expect((await router.revert(alice, 'swapExactAmountOut', args, 1n)).reason).toBe('INVALID_MSG_VALUE')
    })

    it('reverts "POOL: INSUFFICIENT_LIQUIDITY" when destAmount is not below the reserve', async () => {
      const args = [tokenA.address, tokenB.address, maxUint256, parseEther('2000000'), [poolAB.address], bob, 0n]
      expect((await router.revert(alice, 'swapExactAmountOut', args)).reason).toBe('POOL: INSUFFICIENT_LIQUIDITY')
    })
  })

  describe('MarketRouter', () => {
    it('reverts AlreadyInitialized when initialised twice', async () => {
      expect((await router.revert(operator, 'initialize', [weth.address])).errorName).toBe('AlreadyInitialized')
    })

    it('reports the wrapped native token', async () => {
      expect(await router.read('wrappedNative')).toBe(weth.address)
    })

    it('refuses a plain coin transfer from anyone but the wrapped native contract', async () => {
      await expect(chain().publicClient.call({ account: alice, to: ROUTER, value: 1n })).rejects.toThrow(/ONLY_WRAPPED_NATIVE/)
    })
  })
})
