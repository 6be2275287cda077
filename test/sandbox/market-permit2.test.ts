import { erc20Abi, type Hex, maxUint256, parseUnits } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { marketRouterAddress, permit2Address } from '../../src/protocol/addresses.js'
import { encodeDeltaPermit } from '../../src/protocol/delta-permit.js'
import { buildPermitSingleTypedData, buildPermitTransferFromTypedData } from '../../src/protocol/permit2.js'
import { waitForLocalReceipt } from '../../src/sandbox/chains/receipt.js'
import { getContractArtifact } from '../../src/sandbox/contracts/compile.js'
import type { PriceRouteJson } from '../../src/sandbox/market/price-route.js'
import {
  approveToken,
  balanceOf,
  broadcast,
  buildMarketTransaction,
  type Envelope,
  type MarketWallet,
  marketWallet,
  quoteMarket,
  syncPools,
  tokenAddress,
} from '../helpers/market.js'
import { useSandbox } from '../helpers/sandbox.js'

const chainId = 1
const permit2Abi = getContractArtifact('Permit2').abi

type ErrorBody = { error: string }

describe('POST /transactions/{chainId} with a Permit2 payload in place of an approval to the router', () => {
  const sandbox = useSandbox({ chainIds: [chainId], market: 'still' })
  const usdc = () => tokenAddress(sandbox(), chainId, 'USDC')
  const dai = () => tokenAddress(sandbox(), chainId, 'DAI')
  const query = { srcToken: 'USDC', destToken: 'DAI' }

  const latestTimestamp = async (wallet: MarketWallet) => (await wallet.getBlock()).timestamp

  /** A wallet that approved USDC to Permit2 only: it has no allowance to the router. */
  async function permit2User(index: number): Promise<MarketWallet> {
    const wallet = marketWallet(sandbox(), chainId, index)
    await approveToken(wallet, usdc(), permit2Address, maxUint256)
    const toRouter = await wallet.readContract({
      address: usdc(),
      abi: erc20Abi,
      functionName: 'allowance',
      args: [wallet.account.address, marketRouterAddress],
    })
    expect(toRouter).toBe(0n)
    return wallet
  }

  async function quote(amount = parseUnits('250', 6), side: 'SELL' | 'BUY' = 'SELL'): Promise<PriceRouteJson> {
    await syncPools(sandbox(), chainId)
    return quoteMarket(sandbox(), { ...query, amount: amount.toString(), side, version: '6.2' })
  }

  const build = (wallet: MarketWallet, route: PriceRouteJson, extra: Record<string, unknown>) =>
    buildMarketTransaction(sandbox(), chainId, {
      priceRoute: route,
      ...query,
      userAddress: wallet.account.address,
      ...(route.side === 'SELL' ? { srcAmount: route.srcAmount } : { destAmount: route.destAmount }),
      slippage: 0,
      ...extra,
    })

  /** Builds with the permit (the server's checks and gas estimate included), broadcasts, and checks the amounts moved. */
  async function swapWith(wallet: MarketWallet, route: PriceRouteJson, extra: Record<string, unknown>) {
    const built = await build(wallet, route, extra)
    expect(built.status, built.text).toBe(200)
    expect(built.json).toHaveProperty('gas')
    const before = { usdc: await balanceOf(wallet, usdc()), dai: await balanceOf(wallet, dai()) }
    const receipt = await broadcast(wallet, built.json as Envelope)
    expect(receipt.status).toBe('success')
    expect(before.usdc - (await balanceOf(wallet, usdc()))).toBe(BigInt(route.srcAmount))
    expect((await balanceOf(wallet, dai())) - before.dai).toBe(BigInt(route.destAmount))
  }

  async function signAllowancePermit(wallet: MarketWallet, amount: bigint, signer = wallet.account): Promise<Hex> {
    const now = await latestTimestamp(wallet)
    const [, , nonce] = (await wallet.readContract({
      address: permit2Address,
      abi: permit2Abi,
      functionName: 'allowance',
      args: [wallet.account.address, usdc(), marketRouterAddress],
    })) as [bigint, number, number]
    const details = { amount, nonce: BigInt(nonce), expiration: now + 3_600n, sigDeadline: now + 600n }
    const signature = await signer.signTypedData(
      buildPermitSingleTypedData({ chainId, token: usdc(), spender: marketRouterAddress, ...details }),
    )
    return encodeDeltaPermit({ type: 'permit2Allowance', ...details, signature })
  }

  it('swaps with a signed Permit2 allowance (192 bytes) that the router submits in the swap', async () => {
    const wallet = await permit2User(1)
    const route = await quote()
    await swapWith(wallet, route, { permit: await signAllowancePermit(wallet, BigInt(route.srcAmount)) })
  })

  it('swaps with a Permit2 signature transfer (96 bytes) signed for the router, the amount and the deadline of the build', async () => {
    const wallet = await permit2User(2)
    const route = await quote()
    const deadline = (await latestTimestamp(wallet)) + 600n
    const nonce = 77n
    const signature = await wallet.account.signTypedData(
      buildPermitTransferFromTypedData({
        chainId,
        token: usdc(),
        amount: BigInt(route.srcAmount),
        spender: marketRouterAddress,
        nonce,
        deadline,
      }),
    )
    await swapWith(wallet, route, { permit: encodeDeltaPermit({ type: 'permit2Transfer', nonce, signature }), deadline: Number(deadline) })
  })

  it('swaps on an existing Permit2 allowance of the router (0x01)', async () => {
    const wallet = await permit2User(3)
    const route = await quote(parseUnits('100', 6), 'BUY')
    const expiration = Number((await latestTimestamp(wallet)) + 3_600n)
    const hash = await wallet.writeContract({
      address: permit2Address,
      abi: permit2Abi,
      functionName: 'approve',
      args: [usdc(), marketRouterAddress, BigInt(route.srcAmount), expiration],
    })
    await waitForLocalReceipt(wallet, hash)
    await swapWith(wallet, route, { permit: '0x01' })
  })

  it('refuses a signature transfer without the deadline it signed', async () => {
    const wallet = await permit2User(4)
    const route = await quote()
    const permit = encodeDeltaPermit({ type: 'permit2Transfer', nonce: 1n, signature: `0x${'11'.repeat(64)}` })
    const answer = await build(wallet, route, { permit })
    expect(answer.status).toBe(400)
    expect((answer.json as ErrorBody).error).toMatch(/^Invalid permit: a Permit2 signature transfer \(96 bytes\) signs a deadline/)
  })

  it('names Permit2 and its reason when it rejects the signature', async () => {
    const wallet = await permit2User(4)
    const route = await quote()
    const stranger = privateKeyToAccount(generatePrivateKey())
    const answer = await build(wallet, route, { permit: await signAllowancePermit(wallet, BigInt(route.srcAmount), stranger) })
    expect(answer.status).toBe(400)
    expect((answer.json as ErrorBody).error).toBe('Invalid permit: Permit2 rejected it (InvalidSigner())')
  })

  it('asks for the approval to Permit2 when the source is not approved to it', async () => {
    const wallet = marketWallet(sandbox(), chainId, 5)
    const route = await quote()
    const answer = await build(wallet, route, { permit: await signAllowancePermit(wallet, BigInt(route.srcAmount)) })
    expect(answer.status).toBe(400)
    const { error } = answer.json as ErrorBody
    expect(error).toMatch(/^Not enough allowance: .* to Permit2 \(0x000000000022D473030F116dDEE9F6B43aC78BA3\)/)
    expect(error).toContain(route.srcAmount)
  })

  it('refuses an allowance permit for less than the swap pulls', async () => {
    const wallet = await permit2User(6)
    const route = await quote()
    const answer = await build(wallet, route, { permit: await signAllowancePermit(wallet, BigInt(route.srcAmount) - 1n) })
    expect(answer.status).toBe(400)
    expect((answer.json as ErrorBody).error).toMatch(/^Invalid permit: its Permit2 allowance of \d+ is less than the \d+ the swap may pull/)
  })
})
