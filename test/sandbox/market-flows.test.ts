import { type Address, type Hex, maxUint256, parseEther, parseSignature, parseUnits } from 'viem'
import { describe, expect, it } from 'vitest'
import { marketRouterAddress, nativeTokenPlaceholder } from '../../src/protocol/addresses.js'
import { encodeDeltaPermit } from '../../src/protocol/delta-permit.js'
import { buildEip2612PermitTypedData } from '../../src/protocol/token-permits.js'
import { getContractArtifact } from '../../src/sandbox/contracts/compile.js'
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js'
import {
  approveToken,
  balanceOf,
  broadcast,
  buildMarketTransaction,
  type Envelope,
  gasPaid,
  type MarketWallet,
  marketWallet,
  prepareMarketSwap,
  quoteMarket,
  syncPools,
  tokenAddress,
} from '../helpers/market.js'
import { useSandbox } from '../helpers/sandbox.js'

const chainId = 1

/** Quote → build (with the server's checks) → broadcast, from one development account. */
async function swap(sandbox: RunningSandbox, wallet: MarketWallet, query: Record<string, string>, slippage = 50) {
  const { route, envelope } = await prepareMarketSwap(sandbox, chainId, wallet, query, slippage)
  const src = tokenAddress(sandbox, chainId, query.srcToken as string)
  const dest = tokenAddress(sandbox, chainId, query.destToken as string)
  const before = { src: await balanceOf(wallet, src), dest: await balanceOf(wallet, dest) }
  const receipt = await broadcast(wallet, envelope)
  expect(receipt.status).toBe('success')
  const after = { src: await balanceOf(wallet, src), dest: await balanceOf(wallet, dest) }
  const gas = gasPaid(receipt)
  return {
    route,
    envelope,
    receipt,
    spent: before.src - after.src - (src === nativeTokenPlaceholder ? gas : 0n),
    received: after.dest - before.dest + (dest === nativeTokenPlaceholder ? gas : 0n),
  }
}

describe('Market flow: quote, build, approve, broadcast', () => {
  const sandbox = useSandbox({ chainIds: [chainId], market: 'still' })

  it('moves exactly the quoted amounts on a SELL of USDC for WBTC', async () => {
    const wallet = marketWallet(sandbox(), chainId, 1)
    await approveToken(wallet, tokenAddress(sandbox(), chainId, 'USDC'), marketRouterAddress, maxUint256)
    const result = await swap(sandbox(), wallet, { srcToken: 'USDC', destToken: 'WBTC', amount: parseUnits('2500', 6).toString() })
    expect(result.route.bestRoute[0]?.swaps).toHaveLength(1)
    expect(result.spent).toBe(BigInt(result.route.srcAmount))
    expect(result.received).toBe(BigInt(result.route.destAmount))
  })

  it('moves exactly the quoted amounts on a multi-hop SELL of DAI for WBTC', async () => {
    const wallet = marketWallet(sandbox(), chainId, 2)
    await approveToken(wallet, tokenAddress(sandbox(), chainId, 'DAI'), marketRouterAddress, maxUint256)
    const result = await swap(sandbox(), wallet, { srcToken: 'DAI', destToken: 'WBTC', amount: parseEther('1500').toString() })
    expect(result.route.bestRoute[0]?.swaps.length).toBeGreaterThan(1)
    expect(result.spent).toBe(BigInt(result.route.srcAmount))
    expect(result.received).toBe(BigInt(result.route.destAmount))
  })

  it('spends exactly the quoted source on a multi-hop BUY of WBTC with USDT and delivers the bought amount', async () => {
    const wallet = marketWallet(sandbox(), chainId, 3)
    await approveToken(wallet, tokenAddress(sandbox(), chainId, 'USDT'), marketRouterAddress, maxUint256)
    const result = await swap(sandbox(), wallet, {
      srcToken: 'USDT',
      destToken: 'WBTC',
      amount: parseUnits('0.05', 8).toString(),
      side: 'BUY',
      route: 'USDT-WETH-WBTC',
    })
    expect(result.route.bestRoute[0]?.swaps).toHaveLength(2)
    expect(result.spent).toBe(BigInt(result.route.srcAmount))
    expect(result.received).toBe(BigInt(result.route.destAmount))
  })

  it('moves exactly the quoted amounts on a SELL of native ETH for USDC (value = srcAmount)', async () => {
    const wallet = marketWallet(sandbox(), chainId, 4)
    const result = await swap(sandbox(), wallet, {
      srcToken: nativeTokenPlaceholder,
      srcDecimals: '18',
      destToken: 'USDC',
      amount: parseEther('1.5').toString(),
    })
    expect(result.envelope.value).toBe(result.route.srcAmount)
    expect(result.spent).toBe(BigInt(result.route.srcAmount))
    expect(result.received).toBe(BigInt(result.route.destAmount))
  })

  it('moves exactly the quoted amounts on a SELL of USDC for native ETH', async () => {
    const wallet = marketWallet(sandbox(), chainId, 5)
    await approveToken(wallet, tokenAddress(sandbox(), chainId, 'USDC'), marketRouterAddress, maxUint256)
    const result = await swap(sandbox(), wallet, { srcToken: 'USDC', destToken: 'ETH', amount: parseUnits('3000', 6).toString() })
    expect(result.envelope.value).toBe('0')
    expect(result.spent).toBe(BigInt(result.route.srcAmount))
    expect(result.received).toBe(BigInt(result.route.destAmount))
  })

  it('spends exactly the quoted ETH on a BUY of USDC with native ETH, the slippage allowance coming back', async () => {
    const wallet = marketWallet(sandbox(), chainId, 6)
    const result = await swap(
      sandbox(),
      wallet,
      { srcToken: 'ETH', destToken: 'USDC', amount: parseUnits('1000', 6).toString(), side: 'BUY' },
      100,
    )
    expect(BigInt(result.envelope.value)).toBe((BigInt(result.route.srcAmount) * 10_100n) / 10_000n)
    expect(result.spent).toBe(BigInt(result.route.srcAmount))
    expect(result.received).toBe(BigInt(result.route.destAmount))
  })

  it('spends exactly the quoted USDC on a BUY of native ETH and receives exactly the bought amount', async () => {
    const wallet = marketWallet(sandbox(), chainId, 7)
    await approveToken(wallet, tokenAddress(sandbox(), chainId, 'USDC'), marketRouterAddress, maxUint256)
    const result = await swap(sandbox(), wallet, { srcToken: 'USDC', destToken: 'ETH', amount: parseEther('0.25').toString(), side: 'BUY' })
    expect(result.spent).toBe(BigInt(result.route.srcAmount))
    expect(result.received).toBe(BigInt(result.route.destAmount))
  })

  it('estimates gas close to what the router really burns', async () => {
    const wallet = marketWallet(sandbox(), chainId, 8)
    const result = await swap(sandbox(), wallet, { srcToken: 'ETH', destToken: 'DAI', amount: parseEther('0.3').toString() })
    const quoted = Number(result.route.gasCost)
    expect(Number(result.envelope.gas)).toBeGreaterThanOrEqual(Number(result.receipt.gasUsed))
    expect(Math.abs(quoted - Number(result.receipt.gasUsed)) / Number(result.receipt.gasUsed)).toBeLessThan(0.25)
  })

  it('swaps a permit-only token with an EIP-2612 permit the sandbox applies, moving exactly the quoted amounts', async () => {
    const wallet = marketWallet(sandbox(), chainId, 9)
    const pusd = tokenAddress(sandbox(), chainId, 'PUSD')
    await syncPools(sandbox(), chainId)
    const route = await quoteMarket(sandbox(), {
      srcToken: 'PUSD',
      destToken: 'USDC',
      amount: parseEther('250').toString(),
      version: '6.2',
    })
    const permit = await signRouterPermit(wallet, pusd, BigInt(route.srcAmount))
    const usdc = tokenAddress(sandbox(), chainId, 'USDC')
    const before = { src: await balanceOf(wallet, pusd), dest: await balanceOf(wallet, usdc) }
    const built = await buildMarketTransaction(sandbox(), chainId, {
      priceRoute: route,
      srcToken: 'PUSD',
      destToken: 'USDC',
      srcAmount: route.srcAmount,
      slippage: 50,
      userAddress: wallet.account.address,
      permit,
    })
    expect(built.status, built.text).toBe(200)
    expect((await broadcast(wallet, built.json as Envelope)).status).toBe('success')
    expect(before.src - (await balanceOf(wallet, pusd))).toBe(BigInt(route.srcAmount))
    expect((await balanceOf(wallet, usdc)) - before.dest).toBe(BigInt(route.destAmount))
  })
})

/** EIP-2612 permit of `token` to the Market router, encoded as the 7 permit arguments (224 bytes). */
async function signRouterPermit(wallet: MarketWallet, token: Address, value: bigint, spender: Address = marketRouterAddress): Promise<Hex> {
  const domain = await wallet.getEip712Domain({ address: token })
  const nonce = (await wallet.readContract({
    address: token,
    abi: getContractArtifact('SandboxToken').abi,
    functionName: 'nonces',
    args: [wallet.account.address],
  })) as bigint
  const deadline = (await wallet.getBlock()).timestamp + 3600n
  const signature = await wallet.account.signTypedData(
    buildEip2612PermitTypedData({
      domain: { name: domain.domain.name, version: domain.domain.version, chainId, verifyingContract: token },
      owner: wallet.account.address,
      spender,
      value,
      nonce,
      deadline,
    }),
  )
  const { r, s, v } = parseSignature(signature)
  return encodeDeltaPermit({ type: 'eip2612', owner: wallet.account.address, spender, value, deadline, v: Number(v), r, s })
}
