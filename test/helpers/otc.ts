import { type Address, createWalletClient, erc20Abi, type Hex, http, maxUint256, publicActions } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { packNonceAndMeta } from '../../src/protocol/nonce-and-meta.js'
import { buildRfqOrderTypedData, type RfqDomainParameters, type RfqOrder } from '../../src/protocol/rfq-order.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { defineLocalChain } from '../../src/sandbox/chains/clients.js'
import { waitForLocalReceipt } from '../../src/sandbox/chains/receipt.js'
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js'
import { type HttpAnswer, request } from './sandbox.js'

/** A development account as a viem local account (it signs with its key). */
export function developmentAccount(index: number) {
  const account = developmentAccounts[index]
  if (!account) throw new Error(`anvil development account ${index} missing`)
  return privateKeyToAccount(account.privateKey)
}

/** A wallet client of a development account on one of the sandbox's chains (with read actions). */
export function userWallet(sandbox: RunningSandbox, chainId: number, index: number) {
  const rpcUrl = sandbox.chains.find((chain) => chain.chainId === chainId)?.rpcUrl
  if (!rpcUrl) throw new Error(`chain ${chainId} is not running`)
  return createWalletClient({
    account: developmentAccount(index),
    chain: defineLocalChain(chainId, rpcUrl),
    transport: http(rpcUrl),
  }).extend(publicActions)
}

export type UserWallet = ReturnType<typeof userWallet>

export function sandboxToken(sandbox: RunningSandbox, chainId: number, symbol: string): Address {
  const token = sandbox.tokens.find((candidate) => candidate.chainId === chainId && candidate.symbol === symbol)
  if (!token) throw new Error(`no ${symbol} on chain ${chainId}`)
  return token.address
}

export function rfqDomain(sandbox: RunningSandbox, chainId: number): RfqDomainParameters {
  const chain = sandbox.venue.chains.get(chainId)
  if (!chain) throw new Error(`chain ${chainId} is not running`)
  return { chainId, verifyingContract: chain.fixture.contracts.rfq }
}

/** Sends a transaction from the wallet's account and waits for its receipt; fails on a revert. */
export async function sendAndWait(wallet: UserWallet, parameters: Parameters<UserWallet['writeContract']>[0]) {
  const hash = await wallet.writeContract(parameters)
  const receipt = await waitForLocalReceipt(wallet, hash)
  if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`)
  return receipt
}

/** The maker approves the RFQ contract for `token` (default: unlimited). */
export function approveRfq(sandbox: RunningSandbox, wallet: UserWallet, token: Address, amount: bigint = maxUint256) {
  const chainId = wallet.chain.id
  return sendAndWait(wallet, {
    address: token,
    abi: erc20Abi,
    functionName: 'approve',
    args: [rfqDomain(sandbox, chainId).verifyingContract, amount],
    account: wallet.account,
    chain: wallet.chain,
  })
}

export function balanceOf(wallet: UserWallet, token: Address, holder: Address, blockNumber?: bigint) {
  return wallet.readContract({
    address: token,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [holder],
    ...(blockNumber === undefined ? {} : { blockNumber }),
  })
}

let nonce = 1n

/** An RFQ order with a fresh nonce; the intended taker in nonceAndMeta is the taker. */
export function makeRfqOrder(fields: Omit<RfqOrder, 'nonceAndMeta'> & { nonceAndMeta?: bigint }): RfqOrder {
  return { nonceAndMeta: packNonceAndMeta({ intendedTaker: fields.taker, nonce: nonce++ }), ...fields }
}

export function signRfqOrder(index: number, order: RfqOrder, domain: RfqDomainParameters): Promise<Hex> {
  return developmentAccount(index).signTypedData(buildRfqOrderTypedData(order, domain))
}

/** The POST /ft/p2p body of section 4.3 for a signed order. */
export function otcOrderBody(order: RfqOrder, signature: Hex) {
  return {
    nonceAndMeta: order.nonceAndMeta.toString(),
    expiry: Number(order.expiry),
    makerAsset: order.makerAsset,
    takerAsset: order.takerAsset,
    makerAmount: order.makerAmount.toString(),
    takerAmount: order.takerAmount.toString(),
    maker: order.maker,
    taker: order.taker,
    signature,
    permitMakerAsset: null,
  }
}

/** Signs with the maker's key and posts the order; returns the HTTP answer. */
export async function postOtcOrder(sandbox: RunningSandbox, makerIndex: number, order: RfqOrder, chainId = 1): Promise<HttpAnswer> {
  const signature = await signRfqOrder(makerIndex, order, rfqDomain(sandbox, chainId))
  return request(sandbox.url, 'POST', `/ft/p2p/${chainId}/`, otcOrderBody(order, signature))
}

export type OtcOrderJson = Record<string, unknown> & { orderHash: Hex; state: string }

/** The stored order of an answer: POST /ft/p2p wraps it as `{ order }` (as the real service does); GET /ft/order answers it bare. */
export function asOtcOrder(answer: HttpAnswer): OtcOrderJson {
  if (answer.status !== 200) throw new Error(`expected 200, received ${answer.status}: ${answer.text}`)
  const json = answer.json as Record<string, unknown>
  return ('order' in json && !('orderHash' in json) ? json.order : json) as OtcOrderJson
}

/** Reads the order until `accept` holds (polling real time; the sandbox's background loop moves it). */
export async function waitForOrder(
  sandbox: RunningSandbox,
  orderHash: Hex,
  accept: (order: OtcOrderJson) => boolean,
  timeoutMs = 15_000,
): Promise<OtcOrderJson> {
  const started = performance.now()
  for (;;) {
    const order = asOtcOrder(await request(sandbox.url, 'GET', `/ft/order/${orderHash}`))
    if (accept(order)) return order
    if (performance.now() - started > timeoutMs) throw new Error(`order ${orderHash} still ${order.state} after ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Unix seconds of the sandbox clock. */
export function sandboxNow(sandbox: RunningSandbox): bigint {
  return BigInt(Math.floor(sandbox.venue.clock.now() / 1000))
}
