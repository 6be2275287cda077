import { decodeAbiParameters, getAddress, parseEther, parseUnits } from 'viem'
import { describe, expect, it } from 'vitest'
import { deltaAddress } from '../../src/protocol/addresses.js'
import { agentProfiles } from '../../src/sandbox/delta/agents.js'
import { bridgeProfiles } from '../../src/sandbox/delta/bridges.js'
import { findBestRoute } from '../../src/sandbox/market/route-finder.js'
import {
  approveDelta,
  type DeltaOrderJson,
  deltaToken,
  deltaWallet,
  expectApiError,
  mustBuild,
  mustPrice,
  noAgents,
  type PriceJson,
  priceDelta,
  sandboxNow,
  signToSign,
  submitDelta,
} from '../helpers/delta.js'
import { request, useSandbox } from '../helpers/sandbox.js'

describe('GET /v2/delta/prices', () => {
  // Chain 100 runs without the Delta contract, as in production.
  const sandbox = useSandbox({ chainIds: [1, 100], market: 'still' })
  const sellUsdc = { chainId: 1, src: 'USDC', dest: 'WETH', amount: 1_000_000_000n }

  describe('same-chain', () => {
    it('answers a PriceV2 with the Delta contract as spender, anon’s 1 bps and no alternatives', async () => {
      const price = await mustPrice(sandbox(), sellUsdc)
      const usdc = deltaToken(sandbox(), 1, 'USDC').address.toLowerCase()
      const weth = deltaToken(sandbox(), 1, 'WETH').address.toLowerCase()
      expect(price).toMatchObject({
        side: 'SELL',
        inputToken: { chainId: 1, address: usdc },
        outputToken: { chainId: 1, address: weth },
        partner: { name: 'anon', feePercent: 0.01 },
        spender: deltaAddress.toLowerCase(),
        alternatives: [],
        route: {
          origin: {
            input: { token: { chainId: 1, address: usdc }, amount: '1000000000' },
            output: { token: { chainId: 1, address: weth } },
          },
          bridge: null,
          fees: { bridge: [], gas: { token: { chainId: 1, address: '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee' } } },
        },
      })
      expect(price.route.destination.output).toEqual(price.route.origin.output)
      expect(Number(price.route.origin.input.amountUSD)).toBeCloseTo(1000, 0)
      expect(BigInt(price.route.fees.gas.amount)).toBeGreaterThan(0n)
    })

    it('prices below the pools by the winning agent’s edge and the fee', async () => {
      const chain = sandbox().venue.chains.get(1)
      const pool = findBestRoute({
        pools: chain?.pools ?? [],
        srcToken: deltaToken(sandbox(), 1, 'USDC').address,
        destToken: deltaToken(sandbox(), 1, 'WETH').address,
        amount: 1_000_000_000n,
        side: 'SELL',
      })
      const price = await mustPrice(sandbox(), sellUsdc)
      const output = BigInt(price.route.origin.output.amount)
      const poolOutput = pool?.destAmount ?? 0n
      const smallestEdgeBps = Math.min(...agentProfiles.map((agent) => agent.edgeBps - agent.jitterBps))
      expect(output).toBeLessThan(poolOutput)
      expect(output).toBeGreaterThanOrEqual((poolOutput * BigInt(10_000 - 1 - 30)) / 10_000n)
      expect(output).toBeLessThanOrEqual((poolOutput * BigInt(10_000 - 1 - smallestEdgeBps)) / 10_000n)
    })

    it('quotes the input of a BUY for the exact output', async () => {
      const price = await mustPrice(sandbox(), { ...sellUsdc, amount: parseEther('1'), side: 'BUY' })
      expect(price.route.origin.output.amount).toBe(parseEther('1').toString())
      expect(Number(price.route.origin.input.amountUSD)).toBeGreaterThan(Number(price.route.origin.output.amountUSD))
    })

    it('stacks partnerFeeBps on the partner’s registered fee', async () => {
      const plain = await mustPrice(sandbox(), sellUsdc)
      const stacked = await mustPrice(sandbox(), { ...sellUsdc, extra: { partnerFeeBps: '50' } })
      expect(stacked.partner).toEqual({ name: 'anon', feePercent: 0.51 })
      expect(BigInt(stacked.route.origin.output.amount)).toBeLessThan(BigInt(plain.route.origin.output.amount))
    })

    it('names the partner and its resolved fee', async () => {
      const price = await mustPrice(sandbox(), { ...sellUsdc, extra: { partner: 'my-app', partnerFeeBps: '25' } })
      expect(price.partner).toEqual({ name: 'my-app', feePercent: 0.25 })
    })

    it('refuses partnerFeeBps above 200', async () => {
      expect((await priceDelta(sandbox(), { ...sellUsdc, extra: { partnerFeeBps: '201' } })).status).toBe(400)
    })

    it('answers No route when every agent is excluded', async () => {
      const excludeAgents = agentProfiles.map((agent) => agent.name).join(',')
      expectApiError(await priceDelta(sandbox(), { ...sellUsdc, extra: { excludeAgents } }), 400, 'No route')
    })

    it('prices with the included agents only', async () => {
      const answer = await priceDelta(sandbox(), { ...sellUsdc, extra: { includeAgents: 'sandbox-gamma' } })
      expect(answer.status, answer.text).toBe(200)
    })

    it('answers No route when the decimals differ from the token’s', async () => {
      const answer = await priceDelta(sandbox(), { ...sellUsdc, extra: { srcDecimals: '18' } })
      expectApiError(answer, 400, 'No route')
    })

    it('answers No route when the pools cannot fill the amount', async () => {
      const answer = await priceDelta(sandbox(), { ...sellUsdc, amount: parseEther('100000000'), side: 'BUY' })
      expectApiError(answer, 400, 'No route')
    })

    it('answers ESTIMATED_LOSS_GREATER_THAN_MAX_IMPACT above maxImpact, with the impact', async () => {
      const answer = await priceDelta(sandbox(), { ...sellUsdc, amount: parseUnits('5000000', 6), extra: { maxImpact: '1' } })
      expectApiError(answer, 400, 'ESTIMATED_LOSS_GREATER_THAN_MAX_IMPACT')
      expect((answer.json as { value: string }).value).toMatch(/^\d+\.\d\d%$/)
    })

    it('answers ESTIMATED_LOSS_GREATER_THAN_MAX_IMPACT above maxUSDImpact', async () => {
      const answer = await priceDelta(sandbox(), { ...sellUsdc, extra: { maxUSDImpact: '0.01' } })
      expectApiError(answer, 400, 'ESTIMATED_LOSS_GREATER_THAN_MAX_IMPACT')
    })

    it('answers Token not supported for a token the chain does not list', async () => {
      const answer = await priceDelta(sandbox(), { ...sellUsdc, dest: '0x1111111111111111111111111111111111111111' })
      expectApiError(answer, 400, 'Token not supported')
    })

    it('answers 422 Unsupported chain for a chain without the Delta contract', async () => {
      expectApiError(await priceDelta(sandbox(), { ...sellUsdc, chainId: 100 }), 422, 'Unsupported chain')
    })

    it('answers 422 Unsupported chain for a chain the sandbox does not run', async () => {
      const answer = await priceDelta(sandbox(), { ...sellUsdc, extra: { chainId: '10' } })
      expectApiError(answer, 422, 'Unsupported chain')
    })
  })

  describe('crosschain', () => {
    const toChain100 = { chainId: 1, src: 'USDC', dest: 'USDC', destChainId: 100, amount: 1_000_000_000n }

    it('populates route.bridge from a bridge profile and offers the other bridges as alternatives', async () => {
      const price = await mustPrice(sandbox(), toChain100)
      const usdc100 = deltaToken(sandbox(), 100, 'USDC').address.toLowerCase()
      expect(price.route.bridge?.contractParams).toEqual({
        protocolSelector: expect.stringMatching(/^0x[0-9a-f]{8}$/),
        outputToken: usdc100,
        scalingFactor: 0,
        protocolData: '0x',
      })
      expect(price.route.bridge?.tags).toContain('recommended')
      expect(price.alternatives).toHaveLength(bridgeProfiles.length - 1)
      const protocols = [price.route, ...price.alternatives].map((route) => route.bridge?.protocol).sort()
      expect(protocols).toEqual(bridgeProfiles.map((bridge) => bridge.protocol).sort())
      expect(price.outputToken).toEqual({ chainId: 100, address: usdc100 })
    })

    it('takes the bridge fee between the origin output and the destination input', async () => {
      const { route } = await mustPrice(sandbox(), toChain100)
      const bridge = bridgeProfiles.find((profile) => profile.protocol === route.bridge?.protocol)
      const sent = BigInt(route.origin.output.amount)
      const fee = BigInt(route.fees.bridge[0]?.amount ?? '0')
      expect(BigInt(route.destination.input.amount)).toBe(sent - fee)
      expect(fee).toBe(sent - (sent * BigInt(10_000 - (bridge?.feeBps ?? 0))) / 10_000n)
      expect(route.fees.bridge[0]?.token).toEqual({ chainId: 100, address: deltaToken(sandbox(), 100, 'USDC').address.toLowerCase() })
    })

    it('keeps only the bridges includeBridges names', async () => {
      const only = bridgeProfiles[0]?.protocol ?? ''
      const price = await mustPrice(sandbox(), { ...toChain100, extra: { includeBridges: only } })
      expect({ protocol: price.route.bridge?.protocol, alternatives: price.alternatives }).toEqual({ protocol: only, alternatives: [] })
    })

    it('answers No route when every bridge is excluded', async () => {
      const excludeBridges = bridgeProfiles.map((bridge) => bridge.protocol).join(',')
      expectApiError(await priceDelta(sandbox(), { ...toChain100, extra: { excludeBridges } }), 400, 'No route')
    })

    it('bridges and swaps a token that cannot cross, naming the final token in protocolData', async () => {
      const price = await mustPrice(sandbox(), { ...toChain100, dest: 'WBTC' })
      const wbtc100 = deltaToken(sandbox(), 100, 'WBTC').address
      const [finalToken] = decodeAbiParameters([{ type: 'address' }], price.route.bridge?.contractParams.protocolData as `0x${string}`)
      expect(getAddress(finalToken)).toBe(wbtc100)
      expect(price.route.destination.output.token).toEqual({ chainId: 100, address: wbtc100.toLowerCase() })
    })

    it('answers No route for a token that cannot cross when bridge-and-swap is off', async () => {
      const answer = await priceDelta(sandbox(), { ...toChain100, dest: 'WBTC', extra: { allowBridgeAndSwap: 'false' } })
      expectApiError(answer, 400, 'No route')
    })

    it('forces bridge-and-swap off for BUY', async () => {
      expectApiError(await priceDelta(sandbox(), { ...toChain100, dest: 'WBTC', amount: 10_000n, side: 'BUY' }), 400, 'No route')
      const price = await mustPrice(sandbox(), { ...toChain100, side: 'BUY' })
      expect(price.route.destination.output.amount).toBe('1000000000')
    })

    it('builds the bridge of the route into the signed order and accepts the submission', async () => {
      const wallet = deltaWallet(sandbox(), 1, 1)
      await approveDelta(wallet, deltaToken(sandbox(), 1, 'USDC').address)
      const price: PriceJson = await mustPrice(sandbox(), toChain100)
      const { toSign } = await mustBuild(sandbox(), {
        route: price.route,
        side: 'SELL',
        owner: wallet.account.address,
        deadline: sandboxNow(sandbox()) + 3600,
      })
      const params = price.route.bridge?.contractParams
      expect(toSign.value.bridge).toEqual({
        protocolSelector: params?.protocolSelector,
        destinationChainId: 100,
        outputToken: params?.outputToken,
        scalingFactor: 0,
        protocolData: '0x',
      })
      expect(toSign.value.destToken).toBe(deltaToken(sandbox(), 1, 'USDC').address.toLowerCase())
      expect(toSign.value.expectedAmount).toBe(price.route.origin.output.amount)
      const signature = await signToSign(wallet, toSign)
      const answer = await submitDelta(sandbox(), { chainId: 1, order: toSign.value, signature, partner: 'anon', ...noAgents })
      expect(answer.status, answer.text).toBe(200)
      expect((answer.json as DeltaOrderJson).output).toMatchObject({ chainId: 100, token: params?.outputToken })
    })
  })

  describe('catalogue endpoints', () => {
    it('lists the agents of a chain with Delta, and answers 400 for a chain without', async () => {
      const answer = await request(sandbox().url, 'GET', '/v2/delta/agents/list/1')
      expect(answer.json).toEqual(agentProfiles.map((agent) => agent.name))
      expectApiError(await request(sandbox().url, 'GET', '/v2/delta/agents/list/100'), 400, 'Unsupported chain')
    })

    it('lists the bridge protocols with slug, name and icon', async () => {
      const answer = await request(sandbox().url, 'GET', '/v2/delta/prices/bridge-protocols')
      expect(answer.json).toEqual({
        bridgeProtocols: bridgeProfiles.map((bridge) => ({
          protocol: bridge.protocol,
          displayName: bridge.displayName,
          icon: expect.any(String),
        })),
      })
    })

    it('lists the bridge lanes from the chain with Delta, bridgeable tokens only without bridge-and-swap', async () => {
      const answer = await request(sandbox().url, 'GET', '/v2/delta/prices/bridge-routes?allowBridgeAndSwap=false')
      const { routes } = answer.json as { routes: { srcChainId: number; destChainId: number; tokens: string[] }[] }
      expect(routes.map(({ srcChainId, destChainId }) => [srcChainId, destChainId])).toEqual([[1, 100]])
      expect(routes[0]?.tokens).toContain(deltaToken(sandbox(), 1, 'USDC').address.toLowerCase())
      expect(routes[0]?.tokens).not.toContain(deltaToken(sandbox(), 1, 'WBTC').address.toLowerCase())
    })

    it('answers the strategies map empty: the sandbox has no yield strategies', async () => {
      expect((await request(sandbox().url, 'GET', '/v2/delta/prices/strategies/1')).json).toEqual({})
    })

    it('tells whether a token is supported for Delta on a chain', async () => {
      const usdc = deltaToken(sandbox(), 1, 'USDC').address
      const check = async (chainId: number, token: string) =>
        (await request(sandbox().url, 'GET', `/v2/delta/prices/is-token-supported?chainId=${chainId}&token=${token}`)).json
      expect(await check(1, usdc)).toEqual({ supported: true })
      expect(await check(1, '0x1111111111111111111111111111111111111111')).toEqual({ supported: false })
      expect(await check(100, deltaToken(sandbox(), 100, 'USDC').address)).toEqual({ supported: false })
    })
  })
})
