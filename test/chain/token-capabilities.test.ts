import { type Address, getAddress } from 'viem'
import { describe, expect, it } from 'vitest'
import { createChainClients } from '../../src/chain/chain-clients.js'
import {
  createTokenCapabilityCache,
  detectTokenCapabilities,
  TokenCapabilityDetectionError,
} from '../../src/chain/detect-token-capabilities.js'
import { nativeTokenPlaceholder } from '../../src/protocol/addresses.js'
import { sandboxToken, useSandbox } from '../helpers/sandbox.js'

const chainId = 8453

describe('detectTokenCapabilities', () => {
  const sandbox = useSandbox({ chainIds: [chainId] })
  const client = () =>
    createChainClients({ chains: sandbox().chains.map(({ chainId, rpcUrl }) => ({ chainId, rpcUrls: [rpcUrl] })) }).get(chainId)
      ?.publicClient ?? expect.unreachable('no client')
  const token = (symbol: string): Address => sandboxToken(sandbox(), chainId, symbol).address

  it.each([
    ['WETH', 18, 'standard', 'none', undefined],
    ['USDC', 6, 'standard', 'eip2612', { name: 'USD Coin', version: '2' }],
    ['USDT', 6, 'usdtStyle', 'none', undefined],
    ['DAI', 18, 'standard', 'dai', { name: 'Dai Stablecoin', version: '1' }],
    ['WBTC', 8, 'standard', 'eip2612', { name: 'Wrapped BTC', version: '1' }],
    ['PUSD', 18, 'permitOnly', 'eip2612', { name: 'Permit-only USD', version: '1' }],
  ])('reads %s: %i decimals, %s approvals, %s permit', async (symbol, decimals, approveBehaviour, permit, domain) => {
    const capabilities = await detectTokenCapabilities(client(), { token: token(symbol), cache: createTokenCapabilityCache() })
    expect(capabilities).toEqual({
      chainId,
      address: getAddress(token(symbol)),
      kind: 'erc20',
      symbol,
      decimals,
      approveBehaviour,
      permit,
      ...(domain ? { permitDomain: { ...domain, chainId, verifyingContract: getAddress(token(symbol)) } } : {}),
    })
  })

  it('answers the native placeholder without reading the chain', async () => {
    const capabilities = await detectTokenCapabilities(client(), { token: nativeTokenPlaceholder, cache: createTokenCapabilityCache() })
    expect(capabilities).toMatchObject({ kind: 'native', approveBehaviour: 'standard', permit: 'none', decimals: 18, symbol: 'ETH' })
  })

  it('answers a token once per chain and cache, sharing the answer between concurrent callers', async () => {
    const cache = createTokenCapabilityCache()
    const [first, second] = await Promise.all([
      detectTokenCapabilities(client(), { token: token('USDT'), cache }),
      detectTokenCapabilities(client(), { token: token('USDT').toLowerCase() as Address, cache }),
    ])
    expect(second).toBe(first)
    expect(cache.size).toBe(1)
  })

  it('lets the configuration override what it reads', async () => {
    const capabilities = await detectTokenCapabilities(client(), {
      token: token('USDC'),
      override: { approveBehaviour: 'usdtStyle', permit: 'none', symbol: 'USDC.e' },
      cache: createTokenCapabilityCache(),
    })
    expect(capabilities).toMatchObject({ approveBehaviour: 'usdtStyle', permit: 'none', symbol: 'USDC.e', decimals: 6 })
    expect(capabilities.permitDomain).toBeUndefined()
  })

  it('throws TokenCapabilityDetectionError for an address that is not a token', async () => {
    const noToken = '0x00000000000000000000000000000000000000F1'
    await expect(detectTokenCapabilities(client(), { token: noToken, cache: createTokenCapabilityCache() })).rejects.toThrow(
      TokenCapabilityDetectionError,
    )
  })
})
