import { type Address, erc20Abi, type Hex, type TransactionReceipt } from 'viem'
import { expect } from 'vitest'
import { nativeTokenPlaceholder } from '../../src/protocol/addresses.js'
import { waitForLocalReceipt } from '../../src/sandbox/chains/receipt.js'
import { type PriceRouteJson, priceRouteSchema } from '../../src/sandbox/market/price-route.js'
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js'
import { type HttpAnswer, request, sandboxToken, sandboxWallet } from './sandbox.js'

/** A development account's wallet on one sandbox chain, with read actions. */
export const marketWallet = sandboxWallet

export type MarketWallet = ReturnType<typeof marketWallet>

/** A token by symbol (ETH = the native placeholder); an address is returned as it is. */
export function tokenAddress(sandbox: RunningSandbox, chainId: number, symbol: string): Address {
  return symbol.startsWith('0x') ? (symbol as Address) : sandboxToken(sandbox, chainId, symbol).address
}

/** Makes the sandbox's cached pool reserves current, so a quote sees the trades mined just before. */
export async function syncPools(sandbox: RunningSandbox, chainId: number): Promise<void> {
  await sandbox.venue.chains.get(chainId)?.refresh()
}

/** GET /prices with the given query; fails the test unless it answers 200. */
export async function quoteMarket(sandbox: RunningSandbox, query: Record<string, string>): Promise<PriceRouteJson> {
  const answer = await request(sandbox.url, 'GET', `/prices?${new URLSearchParams(query)}`)
  expect(answer.status, answer.text).toBe(200)
  return priceRouteSchema.parse((answer.json as { priceRoute: unknown }).priceRoute)
}

/** POST /transactions/{chainId} with a body and optional query. */
export function buildMarketTransaction(sandbox: RunningSandbox, chainId: number, body: unknown, query = ''): Promise<HttpAnswer> {
  return request(sandbox.url, 'POST', `/transactions/${chainId}${query ? `?${query}` : ''}`, body)
}

export type Envelope = { from: Address; to: Address; value: string; data: Hex; gasPrice?: string; gas?: string; chainId: number }

/**
 * Quotes a swap (GET /prices with the query, after syncing the pools) and builds its transaction for the wallet; fails
 * the test unless the build answers 200. Nothing is sent.
 */
export async function prepareMarketSwap(
  sandbox: RunningSandbox,
  chainId: number,
  wallet: MarketWallet,
  query: Record<string, string>,
  slippage = 50,
): Promise<{ route: PriceRouteJson; envelope: Envelope }> {
  await syncPools(sandbox, chainId)
  const route = await quoteMarket(sandbox, { network: String(chainId), version: '6.2', userAddress: wallet.account.address, ...query })
  const built = await buildMarketTransaction(sandbox, chainId, {
    priceRoute: route,
    srcToken: query.srcToken,
    destToken: query.destToken,
    userAddress: wallet.account.address,
    ...(route.side === 'SELL' ? { srcAmount: route.srcAmount } : { destAmount: route.destAmount }),
    slippage,
  })
  expect(built.status, built.text).toBe(200)
  return { route, envelope: built.json as Envelope }
}

/** Signs and broadcasts an envelope from the wallet; returns the receipt (reverted or not). */
export async function broadcast(wallet: MarketWallet, envelope: Envelope, gas?: bigint): Promise<TransactionReceipt> {
  const hash = await wallet.sendTransaction({
    account: wallet.account,
    chain: wallet.chain,
    to: envelope.to,
    data: envelope.data,
    value: BigInt(envelope.value),
    ...(envelope.gasPrice ? { gasPrice: BigInt(envelope.gasPrice) } : {}),
    ...(gas !== undefined ? { gas } : envelope.gas ? { gas: BigInt(envelope.gas) } : {}),
  })
  return waitForLocalReceipt(wallet, hash)
}

export async function approveToken(wallet: MarketWallet, token: Address, spender: Address, amount: bigint): Promise<void> {
  const hash = await wallet.writeContract({
    account: wallet.account,
    chain: wallet.chain,
    address: token,
    abi: erc20Abi,
    functionName: 'approve',
    args: [spender, amount],
  })
  const receipt = await waitForLocalReceipt(wallet, hash)
  if (receipt.status !== 'success') throw new Error(`approve ${token} reverted`)
}

/** The account's balance of a token, native ETH for the placeholder. */
export async function balanceOf(wallet: MarketWallet, token: Address): Promise<bigint> {
  const owner = wallet.account.address
  if (token === nativeTokenPlaceholder) return wallet.getBalance({ address: owner })
  return wallet.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] })
}

/** Wei a mined transaction cost its sender in gas. */
export function gasPaid(receipt: TransactionReceipt): bigint {
  return receipt.gasUsed * receipt.effectiveGasPrice
}
