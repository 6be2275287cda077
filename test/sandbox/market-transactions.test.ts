import { decodeFunctionData, maxUint256, parseEther, parseUnits } from 'viem'
import { describe, expect, it } from 'vitest'
import { marketRouterAddress, nativeTokenPlaceholder } from '../../src/protocol/addresses.js'
import { encodeDeltaPermit } from '../../src/protocol/delta-permit.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { getContractArtifact } from '../../src/sandbox/contracts/compile.js'
import { buildPriceRoute } from '../../src/sandbox/market/build-price-route.js'
import {
  approveToken,
  broadcast,
  buildMarketTransaction,
  type Envelope,
  marketWallet,
  quoteMarket,
  syncPools,
  tokenAddress,
} from '../helpers/market.js'
import { useSandbox } from '../helpers/sandbox.js'

const chainId = 1
const routerAbi = getContractArtifact('MarketRouter').abi

describe('POST /transactions/{chainId}', () => {
  const sandbox = useSandbox({ chainIds: [chainId, 8453], market: 'still' })
  const user = () => marketWallet(sandbox(), chainId, 1).account.address
  const sellEthForUsdc = () =>
    quoteMarket(sandbox(), { srcToken: 'ETH', destToken: 'USDC', amount: parseEther('1').toString(), version: '6.2' })
  const body = (priceRoute: unknown, extra: Record<string, unknown> = {}) => ({
    priceRoute,
    srcToken: 'ETH',
    destToken: 'USDC',
    srcAmount: parseEther('1').toString(),
    slippage: 100,
    userAddress: user(),
    ...extra,
  })

  it('answers the envelope of section 2.5 with calldata for swapExactAmountIn and a gas estimate', async () => {
    const route = await sellEthForUsdc()
    const answer = await buildMarketTransaction(sandbox(), chainId, body(route))
    expect(answer.status, answer.text).toBe(200)
    const envelope = answer.json as Envelope
    expect(Object.keys(envelope)).toEqual(['from', 'to', 'value', 'data', 'gasPrice', 'gas', 'chainId'])
    expect(envelope).toMatchObject({ from: user(), to: marketRouterAddress, value: route.srcAmount, chainId })
    const call = decodeFunctionData({ abi: routerAbi, data: envelope.data })
    expect(call.functionName).toBe('swapExactAmountIn')
    expect(call.args?.slice(0, 4)).toEqual([
      nativeTokenPlaceholder,
      tokenAddress(sandbox(), chainId, 'USDC'),
      BigInt(route.srcAmount),
      (BigInt(route.destAmount) * 9_900n) / 10_000n,
    ])
    expect(BigInt(envelope.gas ?? 0)).toBeGreaterThan(21_000n)
  })

  it('sends the output to receiver and sets the given deadline', async () => {
    const route = await sellEthForUsdc()
    const receiver = developmentAccounts[7]?.address
    const deadline = Math.floor(sandbox().venue.clock.now() / 1000) + 600
    const answer = await buildMarketTransaction(sandbox(), chainId, body(route, { receiver, deadline }), 'ignoreChecks=true')
    expect(answer.status, answer.text).toBe(200)
    const call = decodeFunctionData({ abi: routerAbi, data: (answer.json as Envelope).data })
    expect(call.args?.slice(5)).toEqual([receiver, BigInt(deadline)])
  })

  it('builds swapExactAmountOut with the maximum input from slippage on a BUY', async () => {
    const route = await quoteMarket(sandbox(), {
      srcToken: 'USDC',
      destToken: 'WETH',
      amount: parseEther('0.5').toString(),
      side: 'BUY',
      version: '6.2',
    })
    const answer = await buildMarketTransaction(
      sandbox(),
      chainId,
      { priceRoute: route, srcToken: 'USDC', destToken: 'WETH', destAmount: route.destAmount, slippage: 250, userAddress: user() },
      'ignoreChecks=true',
    )
    expect(answer.status, answer.text).toBe(200)
    const call = decodeFunctionData({ abi: routerAbi, data: (answer.json as Envelope).data })
    expect(call.functionName).toBe('swapExactAmountOut')
    expect(call.args?.[2]).toBe((BigInt(route.srcAmount) * 10_250n) / 10_000n)
    expect(call.args?.[3]).toBe(BigInt(route.destAmount))
  })

  it('returns the router call parameters with onlyParams', async () => {
    const route = await sellEthForUsdc()
    const answer = await buildMarketTransaction(
      sandbox(),
      chainId,
      body(route, { destAmount: '1', slippage: undefined }),
      'onlyParams=true&ignoreChecks=true',
    )
    expect(answer.status, answer.text).toBe(200)
    expect(answer.json).toMatchObject({ srcAmount: route.srcAmount, minDestAmount: '1', beneficiary: user(), deadline: '0' })
  })

  it('sends maxFeePerGas and maxPriorityFeePerGas instead of gasPrice with eip1559, and no gas with ignoreGasEstimate', async () => {
    const route = await sellEthForUsdc()
    const answer = await buildMarketTransaction(sandbox(), chainId, body(route), 'eip1559=true&ignoreGasEstimate=true')
    expect(answer.status, answer.text).toBe(200)
    expect(Object.keys(answer.json as object)).toEqual(['from', 'to', 'value', 'data', 'maxFeePerGas', 'maxPriorityFeePerGas', 'chainId'])
  })

  it('omits gas and uses the given gasPrice with ignoreChecks', async () => {
    const route = await sellEthForUsdc()
    const answer = await buildMarketTransaction(sandbox(), chainId, body(route), 'ignoreChecks=true&gasPrice=7000000000')
    expect(answer.status, answer.text).toBe(200)
    expect(answer.json).toMatchObject({ gasPrice: '7000000000' })
    expect(answer.json).not.toHaveProperty('gas')
  })

  it('accepts a route from buildPriceRoute, the function the unified quote embeds', async () => {
    const route = await buildPriceRoute(sandbox().venue, {
      srcToken: 'ETH',
      destToken: 'USDC',
      amount: parseEther('1').toString(),
      version: '6.2',
    })
    const answer = await buildMarketTransaction(sandbox(), chainId, body(JSON.parse(JSON.stringify(route))), 'ignoreChecks=true')
    expect(answer.status, answer.text).toBe(200)
  })

  it.each([
    ['a changed amount', (route: Record<string, unknown>) => ({ ...route, destAmount: `${BigInt(route.destAmount as string) + 1n}` })],
    ['re-ordered keys', (route: Record<string, unknown>) => Object.fromEntries(Object.entries(route).reverse())],
    ['a number cast from its string', (route: Record<string, unknown>) => ({ ...route, srcAmount: Number(route.srcAmount) })],
    ['a removed hmac', ({ hmac: _hmac, ...route }: Record<string, unknown>) => route],
  ])('rejects a priceRoute with %s as Invalid priceRoute', async (_name, mutate) => {
    const route = await sellEthForUsdc()
    const answer = await buildMarketTransaction(sandbox(), chainId, body(mutate(route)), 'ignoreChecks=true')
    expect(answer.status).toBe(400)
    expect((answer.json as { error: string }).error).toMatch(/^Invalid priceRoute/)
  })

  it('rejects a path chainId different from priceRoute.network', async () => {
    const route = await sellEthForUsdc()
    const answer = await buildMarketTransaction(sandbox(), 8453, body(route), 'ignoreChecks=true')
    expect(answer.status).toBe(400)
    expect((answer.json as { error: string }).error).toBe(
      "Invalid chainId: the path says 8453 but priceRoute.network is 1; build on the route's network",
    )
  })

  it('refuses a version-5 route, explaining the sandbox executes only v6.2 routes', async () => {
    const route = await quoteMarket(sandbox(), { srcToken: 'ETH', destToken: 'USDC', amount: parseEther('1').toString() })
    expect(route.contractAddress).toBe('0xDEF171Fe48CF0115B1d80b88dc8eAB59176FEe57')
    const answer = await buildMarketTransaction(sandbox(), chainId, body(route), 'ignoreChecks=true')
    expect(answer.status).toBe(400)
    expect((answer.json as { error: string }).error).toMatch(/^Unsupported priceRoute version: .*legacy v5 router.*version=6\.2/)
  })

  it.each([
    { partnerAddress: developmentAccounts[2]?.address },
    { partnerFeeBps: '50' },
    { takeSurplus: true },
    { isSurplusToUser: true },
    { isDirectFeeTransfer: true },
    { isCapSurplus: false },
  ])('answers 422 Partner not allowed for %o with the anonymous partner', async (options) => {
    const route = await sellEthForUsdc()
    const answer = await buildMarketTransaction(sandbox(), chainId, body(route, options), 'ignoreChecks=true')
    expect(answer.status).toBe(422)
    expect((answer.json as { error: string }).error).toMatch(/^Partner not allowed/)
  })

  it('accepts partner fee options with a named partner', async () => {
    const route = await sellEthForUsdc()
    const options = { partner: 'my-app', partnerAddress: user(), partnerFeeBps: '20', takeSurplus: true }
    const answer = await buildMarketTransaction(sandbox(), chainId, body(route, options), 'ignoreChecks=true')
    expect(answer.status, answer.text).toBe(200)
  })

  it.each([
    ['srcAmount differing from the route', { srcAmount: '5' }, /^Invalid amounts: srcAmount 5 differs/],
    ['neither destAmount nor slippage', { slippage: undefined }, /^Invalid amounts: SELL needs destAmount/],
    ['both destAmount and slippage', { destAmount: '1' }, /^Invalid amounts: send either destAmount or slippage/],
    ['slippage above 10000', { slippage: 10_001 }, /^Validation failed: body\.slippage/],
    ['a token other than the route', { destToken: 'DAI' }, /^Invalid token: destToken DAI/],
    ['a past deadline', { deadline: 1_000 }, /^Invalid deadline/],
  ])('answers 400 for %s', async (_name, extra, message) => {
    const route = await sellEthForUsdc()
    const answer = await buildMarketTransaction(sandbox(), chainId, body(route, extra), 'ignoreChecks=true')
    expect(answer.status).toBe(400)
    expect((answer.json as { error: string }).error).toMatch(message)
  })

  it.each([
    [
      'a Permit2 signature transfer without its deadline',
      `0x${'11'.repeat(96)}`,
      /^Invalid permit: a Permit2 signature transfer \(96 bytes\) signs a deadline/,
    ],
    ['a payload of no known length', '0x1234', /^Permit not supported: a permit of 2 bytes/],
    ['a permit to another spender', undefined, /^Invalid permit: its spender is 0x0000000000bbf5c5fd284e657f01bd000933c96d/i],
  ])('rejects %s', async (_name, payload, message) => {
    const route = await quoteMarket(sandbox(), {
      srcToken: 'USDC',
      destToken: 'DAI',
      amount: parseUnits('10', 6).toString(),
      version: '6.2',
    })
    const wallet = marketWallet(sandbox(), chainId, 8)
    const permit =
      payload ??
      encodeDeltaPermit({
        type: 'eip2612',
        owner: wallet.account.address,
        spender: '0x0000000000bbf5c5fd284e657f01bd000933c96d',
        value: 1n,
        deadline: 0n,
        v: 27,
        r: `0x${'22'.repeat(32)}`,
        s: `0x${'33'.repeat(32)}`,
      })
    const answer = await buildMarketTransaction(sandbox(), chainId, {
      priceRoute: route,
      srcToken: 'USDC',
      destToken: 'DAI',
      srcAmount: route.srcAmount,
      slippage: 100,
      userAddress: wallet.account.address,
      permit,
    })
    expect(answer.status).toBe(400)
    expect((answer.json as { error: string }).error).toMatch(message)
  })

  it('answers Invalid permit when the token rejects the signature', async () => {
    const route = await quoteMarket(sandbox(), {
      srcToken: 'USDC',
      destToken: 'DAI',
      amount: parseUnits('10', 6).toString(),
      version: '6.2',
    })
    const wallet = marketWallet(sandbox(), chainId, 8)
    const permit = encodeDeltaPermit({
      type: 'eip2612',
      owner: wallet.account.address,
      spender: marketRouterAddress,
      value: BigInt(route.srcAmount),
      deadline: 0n,
      v: 27,
      r: `0x${'22'.repeat(32)}`,
      s: `0x${'33'.repeat(32)}`,
    })
    const answer = await buildMarketTransaction(sandbox(), chainId, {
      priceRoute: route,
      srcToken: 'USDC',
      destToken: 'DAI',
      srcAmount: route.srcAmount,
      slippage: 100,
      userAddress: wallet.account.address,
      permit,
    })
    expect(answer.status).toBe(400)
    expect((answer.json as { error: string }).error).toMatch(/^Invalid permit: USDC rejected it \(PermitExpired\(0\)\)$/)
  })

  it('names the token, the amount and the spender when the allowance is missing', async () => {
    await syncPools(sandbox(), chainId)
    const route = await quoteMarket(sandbox(), {
      srcToken: 'USDC',
      destToken: 'ETH',
      amount: parseUnits('100', 6).toString(),
      version: '6.2',
    })
    const answer = await buildMarketTransaction(sandbox(), chainId, {
      priceRoute: route,
      srcToken: 'USDC',
      destToken: 'ETH',
      srcAmount: route.srcAmount,
      slippage: 100,
      userAddress: marketWallet(sandbox(), chainId, 9).account.address,
    })
    expect(answer.status).toBe(400)
    const { error } = answer.json as { error: string }
    expect(error).toMatch(/^Not enough allowance/)
    expect(error).toContain('USDC')
    expect(error).toContain(tokenAddress(sandbox(), chainId, 'USDC'))
    expect(error).toContain('100000000')
    expect(error).toContain(marketRouterAddress)
  })

  it('checks the ETH balance for a native source', async () => {
    const route = await quoteMarket(sandbox(), {
      srcToken: 'ETH',
      destToken: 'USDC',
      amount: parseEther('50000').toString(),
      version: '6.2',
    })
    const answer = await buildMarketTransaction(sandbox(), chainId, body(route, { srcAmount: route.srcAmount }))
    expect(answer.status).toBe(400)
    expect((answer.json as { error: string }).error).toMatch(
      /^Not enough balance: .* wei of ETH; the swap sends 50000000000000000000000 wei/,
    )
  })
})

describe('Market calldata on-chain', () => {
  const sandbox = useSandbox({ chainIds: [chainId], market: 'still' })

  it('reverts with INSUFFICIENT_OUTPUT when the price moved beyond the slippage', async () => {
    const wallet = marketWallet(sandbox(), chainId, 2)
    const mover = marketWallet(sandbox(), chainId, 3)
    const quote = { srcToken: 'ETH', destToken: 'USDC', amount: parseEther('2').toString(), version: '6.2' }
    const route = await quoteMarket(sandbox(), quote)
    const built = await buildMarketTransaction(sandbox(), chainId, {
      priceRoute: route,
      srcToken: 'ETH',
      destToken: 'USDC',
      srcAmount: route.srcAmount,
      slippage: 0,
      userAddress: wallet.account.address,
    })
    expect(built.status, built.text).toBe(200)
    // Someone else sells ETH into the same pool first.
    const moverRoute = await quoteMarket(sandbox(), { ...quote, amount: parseEther('20').toString() })
    const moverTx = await buildMarketTransaction(sandbox(), chainId, {
      priceRoute: moverRoute,
      srcToken: 'ETH',
      destToken: 'USDC',
      srcAmount: moverRoute.srcAmount,
      slippage: 100,
      userAddress: mover.account.address,
    })
    expect((await broadcast(mover, moverTx.json as Envelope)).status).toBe('success')
    const envelope = built.json as Envelope
    const receipt = await broadcast(wallet, envelope)
    expect(receipt.status).toBe('reverted')
    await expect(
      wallet.call({
        account: wallet.account,
        to: envelope.to,
        data: envelope.data,
        value: BigInt(envelope.value),
        blockNumber: receipt.blockNumber - 1n,
      }),
    ).rejects.toThrow(/INSUFFICIENT_OUTPUT/)
  })

  it('reverts with TransferHelper: TRANSFER_FROM_FAILED without an allowance (built with ignoreChecks)', async () => {
    const wallet = marketWallet(sandbox(), chainId, 4)
    const route = await quoteMarket(sandbox(), { srcToken: 'DAI', destToken: 'USDC', amount: parseEther('10').toString(), version: '6.2' })
    const built = await buildMarketTransaction(
      sandbox(),
      chainId,
      {
        priceRoute: route,
        srcToken: 'DAI',
        destToken: 'USDC',
        srcAmount: route.srcAmount,
        slippage: 100,
        userAddress: wallet.account.address,
      },
      'ignoreChecks=true',
    )
    expect(built.status, built.text).toBe(200)
    expect(built.json).not.toHaveProperty('gas')
    const envelope = built.json as Envelope
    const receipt = await broadcast(wallet, envelope, 300_000n)
    expect(receipt.status).toBe('reverted')
    await expect(
      wallet.call({ account: wallet.account, to: envelope.to, data: envelope.data, blockNumber: receipt.blockNumber - 1n }),
    ).rejects.toThrow(/TransferHelper: TRANSFER_FROM_FAILED/)
  })

  it('fails the server-side simulation with the revert reason when the minimum cannot be met', async () => {
    const wallet = marketWallet(sandbox(), chainId, 5)
    await approveToken(wallet, tokenAddress(sandbox(), chainId, 'DAI'), marketRouterAddress, maxUint256)
    await syncPools(sandbox(), chainId)
    const route = await quoteMarket(sandbox(), { srcToken: 'DAI', destToken: 'USDC', amount: parseEther('10').toString(), version: '6.2' })
    const answer = await buildMarketTransaction(sandbox(), chainId, {
      priceRoute: route,
      srcToken: 'DAI',
      destToken: 'USDC',
      srcAmount: route.srcAmount,
      destAmount: `${BigInt(route.destAmount) + 1n}`,
      userAddress: wallet.account.address,
    })
    expect(answer.status).toBe(400)
    expect((answer.json as { error: string }).error).toMatch(/^This transaction has some errors and may fail.*INSUFFICIENT_OUTPUT/)
  })
})

describe('POST /transactions/{chainId} with a fast clock', () => {
  const sandbox = useSandbox({ chainIds: [chainId], market: 'still', speed: 120 })

  it('answers Stale priceRoute once 30 sandbox seconds have passed since the quote', async () => {
    const route = await quoteMarket(sandbox(), { srcToken: 'ETH', destToken: 'USDC', amount: parseEther('1').toString(), version: '6.2' })
    const started = sandbox().venue.clock.now()
    while (sandbox().venue.clock.now() - started <= 31_000) await new Promise((resolve) => setTimeout(resolve, 50))
    const answer = await buildMarketTransaction(
      sandbox(),
      chainId,
      {
        priceRoute: route,
        srcToken: 'ETH',
        destToken: 'USDC',
        srcAmount: route.srcAmount,
        slippage: 100,
        userAddress: marketWallet(sandbox(), chainId, 1).account.address,
      },
      'ignoreChecks=true',
    )
    expect(answer.status).toBe(400)
    expect((answer.json as { error: string }).error).toMatch(/^Stale priceRoute/)
  })

  it('accepts the same kind of route built at once', async () => {
    const route = await quoteMarket(sandbox(), { srcToken: 'ETH', destToken: 'USDC', amount: parseEther('1').toString(), version: '6.2' })
    const answer = await buildMarketTransaction(
      sandbox(),
      chainId,
      {
        priceRoute: route,
        srcToken: 'ETH',
        destToken: 'USDC',
        srcAmount: route.srcAmount,
        slippage: 100,
        userAddress: marketWallet(sandbox(), chainId, 1).account.address,
      },
      'ignoreChecks=true',
    )
    expect(answer.status, answer.text).toBe(200)
  })
})
