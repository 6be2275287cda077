import { type Address, erc20Abi, maxUint256, parseEther, parseEventLogs, parseUnits } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { marketRouterAddress, nativeTokenPlaceholder } from '../../src/protocol/addresses.js'
import { waitForLocalReceipt } from '../../src/sandbox/chains/receipt.js'
import { getContractArtifact } from '../../src/sandbox/contracts/compile.js'
import type { PriceRouteJson } from '../../src/sandbox/market/price-route.js'
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js'
import {
  approveToken,
  broadcast,
  buildMarketTransaction,
  type Envelope,
  gasPaid,
  type MarketWallet,
  marketWallet,
  quoteMarket,
  syncPools,
  tokenAddress,
} from '../helpers/market.js'
import { useSandbox } from '../helpers/sandbox.js'

const chainId = 1
const routerAbi = getContractArtifact('MarketRouter').abi

/** A fresh address: its balances start at zero, so they show exactly what the router paid it. */
const freshAddress = (): Address => privateKeyToAccount(generatePrivateKey()).address

async function balanceAt(wallet: MarketWallet, token: Address, owner: Address): Promise<bigint> {
  if (token === nativeTokenPlaceholder) return wallet.getBalance({ address: owner })
  return wallet.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] })
}

/** Builds the route for the wallet with the given partner options and broadcasts it; fails unless both succeed. */
async function buildAndSend(
  sandbox: RunningSandbox,
  wallet: MarketWallet,
  route: PriceRouteJson,
  query: { srcToken: string; destToken: string },
  options: Record<string, unknown>,
) {
  const built = await buildMarketTransaction(sandbox, chainId, {
    priceRoute: route,
    srcToken: query.srcToken,
    destToken: query.destToken,
    userAddress: wallet.account.address,
    ...(route.side === 'SELL' ? { srcAmount: route.srcAmount } : { destAmount: route.destAmount }),
    ...options,
  })
  expect(built.status, built.text).toBe(200)
  const receipt = await broadcast(wallet, built.json as Envelope)
  expect(receipt.status).toBe('success')
  return receipt
}

describe('Market partner fee on-chain', () => {
  const sandbox = useSandbox({ chainIds: [chainId], market: 'still' })
  const usdc = () => tokenAddress(sandbox(), chainId, 'USDC')

  it('pays partnerFeeBps of a SELL output to partnerAddress; the user receives the quoted destAmountAfterFee', async () => {
    const wallet = marketWallet(sandbox(), chainId, 1)
    const partner = freshAddress()
    await syncPools(sandbox(), chainId)
    const query = { srcToken: 'ETH', destToken: 'USDC' }
    const route = await quoteMarket(sandbox(), {
      ...query,
      amount: parseEther('1').toString(),
      version: '6.2',
      partner: 'paper-desk',
      partnerFeeBps: '50',
    })
    const destAmount = BigInt(route.destAmount)
    const fee = (destAmount * 50n) / 10_000n
    expect(route.partnerFee).toBe(0.51)
    expect(BigInt(route.destAmountAfterFee)).toBe(destAmount - fee)
    const before = await balanceAt(wallet, usdc(), wallet.account.address)
    await buildAndSend(sandbox(), wallet, route, query, {
      partner: 'paper-desk',
      partnerAddress: partner,
      partnerFeeBps: '50',
      isDirectFeeTransfer: true,
      slippage: 0,
    })
    expect((await balanceAt(wallet, usdc(), wallet.account.address)) - before).toBe(BigInt(route.destAmountAfterFee))
    expect(await balanceAt(wallet, usdc(), partner)).toBe(fee)
  })

  it('takes the fee out of a native output: the partner receives ETH', async () => {
    const wallet = marketWallet(sandbox(), chainId, 2)
    await approveToken(wallet, usdc(), marketRouterAddress, maxUint256)
    const partner = freshAddress()
    await syncPools(sandbox(), chainId)
    const query = { srcToken: 'USDC', destToken: 'ETH' }
    const route = await quoteMarket(sandbox(), {
      ...query,
      amount: parseUnits('3000', 6).toString(),
      version: '6.2',
      partner: 'paper-desk',
      partnerFeeBps: '200',
    })
    const before = await wallet.getBalance({ address: wallet.account.address })
    const receipt = await buildAndSend(sandbox(), wallet, route, query, {
      partner: 'paper-desk',
      partnerAddress: partner,
      partnerFeeBps: '200',
      isDirectFeeTransfer: true,
      slippage: 10,
    })
    const received = (await wallet.getBalance({ address: wallet.account.address })) - before + gasPaid(receipt)
    expect(received).toBe(BigInt(route.destAmountAfterFee))
    expect(await wallet.getBalance({ address: partner })).toBe(BigInt(route.destAmount) - BigInt(route.destAmountAfterFee))
  })

  it('charges the fee of a BUY in the source on top of the quoted srcAmount, accrued in the router until the partner withdraws it', async () => {
    const wallet = marketWallet(sandbox(), chainId, 3)
    const partner = marketWallet(sandbox(), chainId, 9)
    await approveToken(wallet, usdc(), marketRouterAddress, maxUint256)
    await syncPools(sandbox(), chainId)
    const query = { srcToken: 'USDC', destToken: 'WETH' }
    const route = await quoteMarket(sandbox(), {
      ...query,
      amount: parseEther('0.5').toString(),
      side: 'BUY',
      version: '6.2',
      partner: 'paper-desk',
      partnerFeeBps: '30',
    })
    expect(route.destAmountAfterFee).toBe(route.destAmount)
    const fee = (BigInt(route.srcAmount) * 30n) / 10_000n
    const weth = tokenAddress(sandbox(), chainId, 'WETH')
    const before = {
      usdc: await balanceAt(wallet, usdc(), wallet.account.address),
      weth: await balanceAt(wallet, weth, wallet.account.address),
    }
    const accrued = async () =>
      (await wallet.readContract({
        address: marketRouterAddress,
        abi: routerAbi,
        functionName: 'partnerFees',
        args: [partner.account.address, usdc()],
      })) as bigint
    await buildAndSend(sandbox(), wallet, route, query, {
      partner: 'paper-desk',
      partnerAddress: partner.account.address,
      partnerFeeBps: '30',
      slippage: 50,
    })
    expect(before.usdc - (await balanceAt(wallet, usdc(), wallet.account.address))).toBe(BigInt(route.srcAmount) + fee)
    expect((await balanceAt(wallet, weth, wallet.account.address)) - before.weth).toBe(BigInt(route.destAmount))
    expect(await accrued()).toBe(fee)

    const partnerBefore = await balanceAt(partner, usdc(), partner.account.address)
    const hash = await partner.writeContract({
      address: marketRouterAddress,
      abi: routerAbi,
      functionName: 'withdrawPartnerFees',
      args: [usdc(), partner.account.address],
    })
    expect((await waitForLocalReceipt(partner, hash)).status).toBe('success')
    expect((await balanceAt(partner, usdc(), partner.account.address)) - partnerBefore).toBe(fee)
    expect(await accrued()).toBe(0n)
  })

  it('refuses partnerFeeBps without partnerAddress, the sandbox knowing no partner addresses', async () => {
    const route = await quoteMarket(sandbox(), { srcToken: 'ETH', destToken: 'USDC', amount: parseEther('1').toString(), version: '6.2' })
    const answer = await buildMarketTransaction(sandbox(), chainId, {
      priceRoute: route,
      srcToken: 'ETH',
      destToken: 'USDC',
      srcAmount: route.srcAmount,
      slippage: 50,
      userAddress: marketWallet(sandbox(), chainId, 1).account.address,
      partner: 'paper-desk',
      partnerFeeBps: '20',
    })
    expect(answer.status).toBe(422)
    expect((answer.json as { error: string }).error).toMatch(/^Partner not allowed: partnerFeeBps 20 needs partnerAddress/)
  })
})

describe('Market surplus on-chain', () => {
  const sandbox = useSandbox({ chainIds: [chainId], market: 'still' })
  const usdc = () => tokenAddress(sandbox(), chainId, 'USDC')
  const sellEth = { srcToken: 'ETH', destToken: 'USDC', route: 'ETH-USDC' }

  /** Quotes 1 ETH → USDC, then another account buys ETH in the same pool, so the quoted swap will do better. */
  async function quoteThenImprove(moverIndex: number): Promise<PriceRouteJson> {
    await syncPools(sandbox(), chainId)
    const route = await quoteMarket(sandbox(), { ...sellEth, amount: parseEther('1').toString(), version: '6.2', partner: 'paper-desk' })
    const mover = marketWallet(sandbox(), chainId, moverIndex)
    await approveToken(mover, usdc(), marketRouterAddress, maxUint256)
    const moverQuery = { srcToken: 'USDC', destToken: 'ETH', route: 'USDC-ETH' }
    const moverRoute = await quoteMarket(sandbox(), { ...moverQuery, amount: parseUnits('400000', 6).toString(), version: '6.2' })
    await buildAndSend(sandbox(), mover, moverRoute, moverQuery, { slippage: 100 })
    return route
  }

  it('collects the positive slippage of a SELL for the partner with takeSurplus, capped at 1 % of the quote', async () => {
    const route = await quoteThenImprove(4)
    const wallet = marketWallet(sandbox(), chainId, 1)
    const partner = freshAddress()
    const before = await balanceAt(wallet, usdc(), wallet.account.address)
    await buildAndSend(sandbox(), wallet, route, sellEth, {
      partner: 'paper-desk',
      partnerAddress: partner,
      takeSurplus: true,
      isDirectFeeTransfer: true,
      slippage: 0,
    })
    const received = (await balanceAt(wallet, usdc(), wallet.account.address)) - before
    const cap = BigInt(route.destAmount) / 100n
    // The price moved by more than 1 %: the partner gets exactly the cap and the user the rest of the surplus.
    expect(await balanceAt(wallet, usdc(), partner)).toBe(cap)
    expect(received).toBeGreaterThan(BigInt(route.destAmount))
  })

  it('collects the whole surplus with isCapSurplus=false, leaving the user exactly the quote', async () => {
    const route = await quoteThenImprove(5)
    const wallet = marketWallet(sandbox(), chainId, 2)
    const partner = freshAddress()
    const before = await balanceAt(wallet, usdc(), wallet.account.address)
    await buildAndSend(sandbox(), wallet, route, sellEth, {
      partner: 'paper-desk',
      partnerAddress: partner,
      takeSurplus: true,
      isCapSurplus: false,
      isDirectFeeTransfer: true,
      slippage: 0,
    })
    expect((await balanceAt(wallet, usdc(), wallet.account.address)) - before).toBe(BigInt(route.destAmount))
    expect(await balanceAt(wallet, usdc(), partner)).toBeGreaterThan(BigInt(route.destAmount) / 100n)
  })

  it('leaves the surplus with the user with isSurplusToUser, and without takeSurplus', async () => {
    for (const [moverIndex, options] of [
      [6, { takeSurplus: true, isSurplusToUser: true }],
      [7, {}],
    ] as const) {
      const route = await quoteThenImprove(moverIndex)
      const wallet = marketWallet(sandbox(), chainId, 3)
      const partner = freshAddress()
      const before = await balanceAt(wallet, usdc(), wallet.account.address)
      const receipt = await buildAndSend(sandbox(), wallet, route, sellEth, {
        partner: 'paper-desk',
        partnerAddress: partner,
        isDirectFeeTransfer: true,
        slippage: 0,
        ...options,
      })
      const [swapped] = parseEventLogs({ abi: routerAbi, logs: receipt.logs, eventName: 'Swapped' }) as unknown as {
        args: { destAmount: bigint }
      }[]
      const received = (await balanceAt(wallet, usdc(), wallet.account.address)) - before
      expect(received).toBe(swapped?.args.destAmount)
      expect(received).toBeGreaterThan((BigInt(route.destAmount) * 101n) / 100n)
      expect(await balanceAt(wallet, usdc(), partner)).toBe(0n)
    }
  })
})
