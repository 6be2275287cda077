import { readFileSync } from 'node:fs'
import { formatUnits, parseEther, parseUnits } from 'viem'
import { describe, expect, it } from 'vitest'
import { marketRouterAddress, nativeTokenPlaceholder } from '../../src/protocol/addresses.js'
import { quoteMarket, tokenAddress } from '../helpers/market.js'
import { request, useSandbox } from '../helpers/sandbox.js'

const chainId = 1
const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/velora/${name}`, import.meta.url), 'utf8'))
const v62Route = fixture('market-priceRoute-wsteth-weth-1.json').priceRoute

type ErrorBody = { error: string }

describe('GET /prices', () => {
  const sandbox = useSandbox({ chainIds: [chainId, 8453], market: 'still' })
  const prices = (query: Record<string, string>) => request(sandbox().url, 'GET', `/prices?${new URLSearchParams(query)}`)
  const ethToUsdc = { srcToken: 'ETH', destToken: 'USDC', amount: parseEther('1').toString(), version: '6.2' }

  it('answers { priceRoute } with the key set and order of a real v6.2 route', async () => {
    const answer = await prices(ethToUsdc)
    expect(Object.keys(answer.json as object)).toEqual(['priceRoute'])
    const route = (answer.json as { priceRoute: Record<string, unknown> }).priceRoute
    // The unified quote's recorded market block is a v6.2 price route that carries destAmountAfterFee.
    expect(Object.keys(route)).toEqual(Object.keys(fixture('quote-mode-all-market-eth-usdc-1.json').market))
    const swap = (route.bestRoute as { swaps: { swapExchanges: object[] }[] }[])[0]?.swaps[0]
    expect(Object.keys((route.bestRoute as object[])[0] as object)).toEqual(Object.keys(v62Route.bestRoute[0]))
    expect(Object.keys(swap ?? {})).toEqual(Object.keys(v62Route.bestRoute[0].swaps[0]))
    expect(Object.keys(swap?.swapExchanges[0] ?? {})).toEqual(Object.keys(v62Route.bestRoute[0].swaps[0].swapExchanges[0]))
  })

  it('writes the native asset as the real service does (lowercase placeholder) and names the v6.2 router', async () => {
    const route = await quoteMarket(sandbox(), ethToUsdc)
    expect(route).toMatchObject({
      network: chainId,
      srcToken: nativeTokenPlaceholder.toLowerCase(),
      srcDecimals: 18,
      destToken: tokenAddress(sandbox(), chainId, 'USDC').toLowerCase(),
      destDecimals: 6,
      srcAmount: ethToUsdc.amount,
      side: 'SELL',
      version: '6.2',
      contractAddress: marketRouterAddress,
      tokenTransferProxy: marketRouterAddress,
      contractMethod: 'swapExactAmountIn',
      partner: 'anon',
      partnerFee: 0.01,
      maxImpactReached: false,
    })
    expect(route.hmac).toMatch(/^[0-9a-f]{40}$/)
  })

  it('routes native ETH through the wrapped-native pools', async () => {
    const route = await quoteMarket(sandbox(), ethToUsdc)
    const weth = tokenAddress(sandbox(), chainId, 'WETH').toLowerCase()
    expect(route.bestRoute[0]?.swaps[0]?.swapExchanges[0]?.data.tokenIn).toBe(weth)
  })

  it('carries the chain block number', async () => {
    const chain = sandbox().venue.chains.get(chainId)
    await chain?.refresh()
    const route = await quoteMarket(sandbox(), ethToUsdc)
    expect(route.blockNumber).toBe(Number(await chain?.clients.publicClient.getBlockNumber({ cacheTime: 0 })))
  })

  it('prices gas at the chain gas price and the pools’ ETH price', async () => {
    const route = await quoteMarket(sandbox(), ethToUsdc)
    const gasPrice = await sandbox().venue.chains.get(chainId)?.clients.publicClient.getGasPrice()
    const ethUsd = Number(route.srcUSD)
    const expected = Number(formatUnits(BigInt(route.gasCost) * (gasPrice ?? 0n), 18)) * ethUsd
    expect(Number(route.gasCostUSD)).toBeCloseTo(expected, 4)
    expect(Number(route.gasCost)).toBeGreaterThan(50_000)
  })

  it('quotes more gas for a longer route', async () => {
    const oneHop = await quoteMarket(sandbox(), { ...ethToUsdc, destToken: 'DAI' })
    const twoHops = await quoteMarket(sandbox(), { ...ethToUsdc, destToken: 'DAI', route: 'ETH-USDC-DAI' })
    expect(twoHops.bestRoute[0]?.swaps).toHaveLength(2)
    expect(Number(twoHops.gasCost)).toBeGreaterThan(Number(oneHop.gasCost))
  })

  it('prices a BUY: destAmount is the amount asked, srcAmount what it costs', async () => {
    const route = await quoteMarket(sandbox(), { ...ethToUsdc, amount: parseUnits('500', 6).toString(), side: 'BUY' })
    expect(route).toMatchObject({ side: 'BUY', destAmount: parseUnits('500', 6).toString(), contractMethod: 'swapExactAmountOut' })
    expect(BigInt(route.srcAmount)).toBeGreaterThan(0n)
  })

  it('defaults to version 5 like production, naming the legacy v5 contracts', async () => {
    const { version: _version, ...query } = ethToUsdc
    const route = await quoteMarket(sandbox(), query)
    expect(route).toMatchObject({
      version: '5',
      contractAddress: '0xDEF171Fe48CF0115B1d80b88dc8eAB59176FEe57',
      tokenTransferProxy: '0x216b4b4ba9f3e719726886d34a177484278bfcae',
      contractMethod: 'simpleSwap',
    })
  })

  it('accepts addresses with their decimals, on another running network', async () => {
    const usdc = tokenAddress(sandbox(), 8453, 'USDC')
    const route = await quoteMarket(sandbox(), {
      ...ethToUsdc,
      srcToken: nativeTokenPlaceholder,
      srcDecimals: '18',
      destToken: usdc,
      destDecimals: '6',
      network: '8453',
    })
    expect(route).toMatchObject({ network: 8453, destToken: usdc.toLowerCase() })
  })

  it('follows the route parameter', async () => {
    const route = await quoteMarket(sandbox(), {
      ...ethToUsdc,
      srcToken: 'DAI',
      destToken: 'WBTC',
      amount: parseEther('100').toString(),
      route: 'DAI-WETH-WBTC',
    })
    const weth = tokenAddress(sandbox(), chainId, 'WETH').toLowerCase()
    expect(route.bestRoute[0]?.swaps.map((swap) => swap.destToken)).toEqual([weth, tokenAddress(sandbox(), chainId, 'WBTC').toLowerCase()])
  })

  it('keeps to includeDEXS and leaves out excludeDEXS', async () => {
    const query = { ...ethToUsdc, srcToken: 'DAI', destToken: 'USDT', amount: parseEther('100').toString() }
    const stable = await quoteMarket(sandbox(), query)
    expect(stable.bestRoute[0]?.swaps.every((swap) => swap.swapExchanges[0]?.exchange === 'SandboxPool5')).toBe(true)
    const wide = await quoteMarket(sandbox(), { ...query, includeDEXS: 'SandboxPool30' })
    expect(wide.bestRoute[0]?.swaps.every((swap) => swap.swapExchanges[0]?.exchange === 'SandboxPool30')).toBe(true)
    const excluded = await quoteMarket(sandbox(), { ...query, excludeDEXS: 'SandboxPool5' })
    expect(excluded.bestRoute[0]?.swaps.every((swap) => swap.swapExchanges[0]?.exchange === 'SandboxPool30')).toBe(true)
  })

  it('adds others with each exchange’s own price when otherExchangePrices=true', async () => {
    const route = await quoteMarket(sandbox(), {
      ...ethToUsdc,
      srcToken: 'DAI',
      destToken: 'USDT',
      amount: parseEther('100').toString(),
      otherExchangePrices: 'true',
    })
    expect(route.others?.map((other) => other.exchange)).toEqual(['SandboxPool30', 'SandboxPool5'])
    expect(Object.keys(route).at(-2)).toBe('others')
  })

  it('flags maxImpactReached when the impact exceeds maxImpact (default 15 %), still answering 200', async () => {
    const large = { ...ethToUsdc, amount: parseEther('3000').toString() }
    expect((await quoteMarket(sandbox(), large)).maxImpactReached).toBe(true)
    expect((await quoteMarket(sandbox(), { ...large, maxImpact: '90' })).maxImpactReached).toBe(false)
    expect((await quoteMarket(sandbox(), { ...ethToUsdc, maxImpact: '0.001' })).maxImpactReached).toBe(true)
  })

  it('names the given partner', async () => {
    expect(await quoteMarket(sandbox(), { ...ethToUsdc, partner: 'my-app-name' })).toMatchObject({
      partner: 'my-app-name',
      partnerFee: 0.01,
    })
  })

  it('accepts the optional parameters with valid values', async () => {
    const user = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
    await quoteMarket(sandbox(), {
      ...ethToUsdc,
      userAddress: user,
      receiver: user,
      excludeRFQ: 'true',
      srcTokenTransferFee: '0',
      destTokenTransferFee: '100',
      srcTokenDexTransferFee: '0',
      destTokenDexTransferFee: '0',
      excludeContractMethodsWithoutFeeModel: 'true',
      ignoreBadUsdPrice: 'true',
      includeContractMethods: 'swapExactAmountIn,swapExactAmountOut',
    })
  })

  it.each([
    [{ srcToken: '0x0000000000000000000000000000000000000000', srcDecimals: '18' }, 400, /^Invalid srcToken/],
    [{ srcToken: nativeTokenPlaceholder.toLowerCase(), srcDecimals: '18' }, 400, /^Invalid srcToken/],
    [
      { destToken: nativeTokenPlaceholder.toUpperCase().replace('0X', '0x'), destDecimals: '18', srcToken: 'USDC' },
      400,
      /^Invalid destToken/,
    ],
    [{ network: '10' }, 422, /^Unsupported chain/],
    [{ destToken: 'SHIB' }, 400, /^Token not supported: destToken "SHIB" is not listed on network 1/],
    [{ destToken: '0x1111111111111111111111111111111111111111', destDecimals: '18' }, 400, /^Token not supported/],
    [{ destToken: '0x1111111111111111111111111111111111111111' }, 400, /^Invalid decimals: destDecimals is required for destToken/],
    [{ destDecimals: '18' }, 400, /^Invalid decimals: destDecimals is 18 but USDC has 6/],
    [{ destToken: 'ETH' }, 400, /^Invalid tokens/],
    [{ destToken: 'WETH' }, 400, /^No routes found with enough liquidity: ETH to WETH is a wrap/],
    [{ side: 'sell' }, 400, /^Validation failed: query\.side/],
    [{ version: '6' }, 400, /^Validation failed: query\.version/],
    [{ amount: '1.5' }, 400, /^Validation failed: query\.amount/],
    [{ amount: '0' }, 400, /^Validation failed: query\.amount/],
    [{ maxImpact: '-1' }, 400, /^Validation failed: query\.maxImpact/],
    [{ srcTokenTransferFee: '20000' }, 400, /^Validation failed: query\.srcTokenTransferFee/],
    [{ userAddress: '0x123' }, 400, /^Validation failed: query\.userAddress/],
    [{ route: 'ETH-USDC-DAI-USDT-USDC' }, 400, /^Invalid route: expected 2 to 4/],
    [{ route: 'DAI-USDC' }, 400, /^Invalid route: it must start at srcToken/],
    [{ includeDEXS: 'UniswapV3' }, 400, /^Invalid DEX: UniswapV3 \(the sandbox's exchanges are SandboxPool30, SandboxPool5\)/],
    [{ excludeDEXS: 'SandboxPool30' }, 400, /^No routes found with enough liquidity$/],
    [{ includeContractMethods: 'swapExactAmountOut' }, 400, /^No routes found with enough liquidity \(the only contract method/],
    [{ excludeContractMethods: 'swapExactAmountIn' }, 400, /^No routes found with enough liquidity \(the only contract method/],
  ])('rejects %o with %i', async (change, status, message) => {
    const answer = await prices({ ...ethToUsdc, ...change })
    expect(answer.status, answer.text).toBe(status)
    expect((answer.json as ErrorBody).error).toMatch(message)
  })

  it('answers exactly the real no-route body when the pools cannot fill the amount', async () => {
    const answer = await prices({ ...ethToUsdc, side: 'BUY', amount: parseUnits('100000000', 6).toString() })
    expect(answer.status).toBe(400)
    expect(answer.json).toEqual(fixture('market-prices-error-no-routes-1.json'))
  })

  it('answers 429 with Retry-After while a rate-limit fault is active', async () => {
    const added = await request(sandbox().url, 'POST', '/_sandbox/faults', {
      route: 'GET /prices',
      status: 429,
      retryAfterSeconds: 7,
      times: 1,
    })
    expect(added.status).toBe(200)
    const limited = await prices(ethToUsdc)
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('7')
    expect((await prices(ethToUsdc)).status).toBe(200)
  })
})

describe('GET /swap', () => {
  const sandbox = useSandbox({ chainIds: [chainId], market: 'still' })
  const user = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
  const swap = (query: Record<string, string>) => request(sandbox().url, 'GET', `/swap?${new URLSearchParams(query)}`)
  const query = {
    srcToken: 'ETH',
    destToken: 'USDC',
    amount: parseEther('1').toString(),
    version: '6.2',
    slippage: '100',
    userAddress: user,
  }

  it('answers { priceRoute, txParams } with calldata for the v6.2 router and no gas field', async () => {
    const answer = await swap(query)
    expect(answer.status, answer.text).toBe(200)
    const { priceRoute, txParams } = answer.json as { priceRoute: { srcAmount: string }; txParams: Record<string, unknown> }
    expect(Object.keys(txParams)).toEqual(['from', 'to', 'value', 'data', 'gasPrice', 'chainId'])
    expect(txParams).toMatchObject({ from: user, to: marketRouterAddress, value: priceRoute.srcAmount, chainId })
  })

  it('refuses to build for the legacy v5 router', async () => {
    const answer = await swap({ ...query, version: '5' })
    expect(answer.status).toBe(400)
    expect((answer.json as ErrorBody).error).toMatch(/^Unsupported version: .*version=6\.2/)
  })

  it('requires slippage and userAddress', async () => {
    const { slippage: _slippage, userAddress: _user, ...rest } = query
    const answer = await swap(rest)
    expect(answer.status).toBe(400)
    expect((answer.json as ErrorBody).error).toMatch(/^Validation failed: .*query\.userAddress/)
    expect((answer.json as ErrorBody).error).toContain('query.slippage')
  })

  it('answers 422 Partner not allowed for surplus options with the anonymous partner', async () => {
    const answer = await swap({ ...query, takeSurplus: 'true' })
    expect(answer.status).toBe(422)
  })
})

describe('Market catalogue endpoints', () => {
  const sandbox = useSandbox({ chainIds: [chainId, 8453], market: 'still' })
  const get = (path: string) => request(sandbox().url, 'GET', path)

  it('lists the running chains at GET /chains', async () => {
    expect((await get('/chains')).json).toEqual({
      chains: [
        { chainId: 1, name: 'Ethereum' },
        { chainId: 8453, name: 'Base' },
      ],
    })
  })

  it('lists a network’s tokens at GET /tokens/{network} and GET /tokens?network=, native ETH first', async () => {
    const byPath = await get('/tokens/8453')
    expect(byPath.status).toBe(200)
    const { tokens } = byPath.json as { tokens: { symbol: string; address: string; decimals: number; network: number }[] }
    expect(tokens[0]).toEqual({ symbol: 'ETH', address: nativeTokenPlaceholder, decimals: 18, network: 8453 })
    expect(tokens.find((token) => token.symbol === 'USDC')).toEqual({
      symbol: 'USDC',
      address: tokenAddress(sandbox(), 8453, 'USDC'),
      decimals: 6,
      network: 8453,
    })
    expect((await get('/tokens?network=8453')).json).toEqual(byPath.json)
    expect(((await get('/tokens')).json as { tokens: { network: number }[] }).tokens[0]?.network).toBe(1)
  })

  it('lists the contract takers of a network', async () => {
    expect((await get('/adapters/contract-takers?network=1')).json).toEqual([marketRouterAddress])
  })

  it('answers 422 Unsupported chain for a network the sandbox does not run', async () => {
    for (const path of ['/tokens/10', '/tokens?network=10', '/adapters/contract-takers?network=10']) {
      const answer = await get(path)
      expect(answer.status).toBe(422)
      expect((answer.json as ErrorBody).error).toMatch(/^Unsupported chain/)
    }
  })
})
