import { parseUnits } from 'viem'
import { describe, expect, it } from 'vitest'
import { deltaToken } from '../helpers/delta.js'
import { request, useSandbox } from '../helpers/sandbox.js'

describe('GET /v2/quote', () => {
  const sandbox = useSandbox({ chainIds: [1, 8453, 100] })

  const quote = (params: Record<string, string>) => {
    const chainId = Number(params.chainId ?? 1)
    const destChainId = Number(params.destChainId ?? chainId)
    const usdc = deltaToken(sandbox(), chainId, 'USDC')
    const weth = deltaToken(sandbox(), destChainId, params.dest ?? 'WETH')
    const query = new URLSearchParams({
      chainId: String(chainId),
      srcToken: usdc.address,
      destToken: weth.address,
      amount: parseUnits('2500', 6).toString(),
      srcDecimals: String(usdc.decimals),
      destDecimals: String(weth.decimals),
      ...Object.fromEntries(Object.entries(params).filter(([key]) => key !== 'dest')),
    })
    return request(sandbox().url, 'GET', `/v2/quote?${query}`)
  }

  it('answers mode=DELTA with a delta block only, whose route the build endpoint accepts', async () => {
    const { status, json, text } = await quote({ mode: 'DELTA' })
    expect(status, text).toBe(200)
    const body = json as { delta: { route: unknown; side: string; spender: string } }
    expect(Object.keys(body)).toEqual(['delta'])
    const built = await request(sandbox().url, 'POST', '/v2/delta/orders/build', {
      route: body.delta.route,
      side: body.delta.side,
      owner: sandbox().accounts[0]?.address,
      deadline: Math.floor(sandbox().venue.clock.now() / 1000) + 600,
    })
    expect(built.status, built.text).toBe(200)
  })

  it('answers mode=MARKET with a v6.2 market block that the transaction builder accepts', async () => {
    const { status, json, text } = await quote({ mode: 'MARKET' })
    expect(status, text).toBe(200)
    const body = json as { market: { version: string; contractAddress: string; srcAmount: string; network: number } }
    expect(Object.keys(body)).toEqual(['market'])
    expect(body.market.version).toBe('6.2')
    const built = await request(sandbox().url, 'POST', `/transactions/1?ignoreChecks=true`, {
      priceRoute: body.market,
      srcToken: deltaToken(sandbox(), 1, 'USDC').address,
      destToken: deltaToken(sandbox(), 1, 'WETH').address,
      srcAmount: body.market.srcAmount,
      slippage: 100,
      userAddress: sandbox().accounts[0]?.address,
    })
    expect(built.status, built.text).toBe(200)
    expect((built.json as { to: string }).to).toBe(body.market.contractAddress)
  })

  it('answers mode=ALL (the default) with exactly one of delta or market', async () => {
    const { status, json } = await quote({})
    expect(status).toBe(200)
    const keys = Object.keys(json as object)
    expect(keys).toHaveLength(1)
    expect(['delta', 'market']).toContain(keys[0])
  })

  it('falls back to Market with a reason on a chain without Delta', async () => {
    const { status, json } = await quote({ chainId: '100' })
    expect(status).toBe(200)
    const body = json as { market?: unknown; delta?: unknown; fallbackReason?: { errorType: string; details: string } }
    expect(body.delta).toBeUndefined()
    expect(body.market).toBeDefined()
    expect(body.fallbackReason?.details).toMatch(/Unsupported chain/)
    expect(body.fallbackReason?.errorType).toBe('UnsupportedChain')
  })

  it('prices a crosschain quote with Delta, and refuses it in mode=MARKET', async () => {
    const all = await quote({ destChainId: '8453', dest: 'USDC' })
    expect(all.status, all.text).toBe(200)
    expect(Object.keys(all.json as object)).toEqual(['delta'])
    const market = await quote({ destChainId: '8453', dest: 'USDC', mode: 'MARKET' })
    expect(market.status).toBe(400)
    expect(market.json).toEqual({ error: 'Market routes are same-chain only' })
  })

  it('names a bad mode', async () => {
    const { status, json } = await quote({ mode: 'FAST' })
    expect(status).toBe(400)
    expect((json as { error: string }).error).toMatch(/query\.mode/)
  })
})
