import { type Address, erc20Abi, type Hex, maxUint256 } from 'viem'
import { expect } from 'vitest'
import { deltaAddress } from '../../src/protocol/addresses.js'
import { toCompactSignature } from '../../src/protocol/signature.js'
import { waitForLocalReceipt } from '../../src/sandbox/chains/receipt.js'
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js'
import { type HttpAnswer, request, sandboxToken, sandboxWallet } from './sandbox.js'

// Delta API flows as a user runs them: quote, build, sign with a development key, submit, cancel.

/** A development account's wallet on one sandbox chain, with read actions. */
export const deltaWallet = sandboxWallet

export type DeltaWallet = ReturnType<typeof deltaWallet>

/** A sandbox token by symbol; ETH is the native placeholder. */
export const deltaToken = sandboxToken

/** Sets the wallet's allowance of `token` to the Delta contract (default unlimited). */
export async function approveDelta(wallet: DeltaWallet, token: Address, amount: bigint = maxUint256): Promise<void> {
  const hash = await wallet.writeContract({ address: token, abi: erc20Abi, functionName: 'approve', args: [deltaAddress, amount] })
  const receipt = await waitForLocalReceipt(wallet, hash)
  if (receipt.status !== 'success') throw new Error(`approve ${token} to Delta reverted`)
}

/** Sandbox time in unix seconds. */
export function sandboxNow(sandbox: RunningSandbox): number {
  return Math.floor(sandbox.venue.clock.now() / 1000)
}

export type DeltaQuote = {
  chainId: number
  src: string
  dest: string
  /** Raw units. */
  amount: bigint | string
  side?: 'SELL' | 'BUY'
  destChainId?: number
  /** Other query parameters, as strings. */
  extra?: Record<string, string>
}

/** GET /v2/delta/prices for token symbols (or addresses), with the tokens' real decimals. */
export function priceDelta(sandbox: RunningSandbox, quote: DeltaQuote): Promise<HttpAnswer> {
  const src = quote.src.startsWith('0x') ? { address: quote.src, decimals: 18 } : deltaToken(sandbox, quote.chainId, quote.src)
  const destChainId = quote.destChainId ?? quote.chainId
  const dest = quote.dest.startsWith('0x') ? { address: quote.dest, decimals: 18 } : deltaToken(sandbox, destChainId, quote.dest)
  const query = new URLSearchParams({
    chainId: String(quote.chainId),
    srcToken: src.address,
    destToken: dest.address,
    amount: String(quote.amount),
    srcDecimals: String(src.decimals),
    destDecimals: String(dest.decimals),
    side: quote.side ?? 'SELL',
    ...(quote.destChainId === undefined ? {} : { destChainId: String(quote.destChainId) }),
    ...quote.extra,
  })
  return request(sandbox.url, 'GET', `/v2/delta/prices?${query}`)
}

export type PriceJson = {
  side: 'SELL' | 'BUY'
  inputToken: { chainId: number; address: string }
  outputToken: { chainId: number; address: string }
  route: RouteJson
  alternatives: RouteJson[]
  partner: { name: string; feePercent: number }
  spender: string
}
export type TokenAmountJson = { token: { chainId: number; address: string }; amount: string; amountUSD: string }
export type RouteJson = {
  origin: { input: TokenAmountJson; output: TokenAmountJson }
  destination: { input: TokenAmountJson; output: TokenAmountJson }
  bridge: {
    protocol: string
    estimatedTimeMs: number
    tags: string[]
    contractParams: { protocolSelector: string; outputToken: string; scalingFactor: number; protocolData: string }
  } | null
  fees: { gas: TokenAmountJson; bridge: TokenAmountJson[] }
}

/** A price that must succeed. */
export async function mustPrice(sandbox: RunningSandbox, quote: DeltaQuote): Promise<PriceJson> {
  const answer = await priceDelta(sandbox, quote)
  expect(answer.status, answer.text).toBe(200)
  return answer.json as PriceJson
}

export type ToSign = {
  domain: Record<string, unknown>
  types: Record<string, { name: string; type: string }[]>
  value: Record<string, unknown>
}

/** POST /v2/delta/orders/build. */
export function buildDelta(sandbox: RunningSandbox, body: Record<string, unknown>): Promise<HttpAnswer> {
  return request(sandbox.url, 'POST', '/v2/delta/orders/build', body)
}

/** A build that must succeed. */
export async function mustBuild(sandbox: RunningSandbox, body: Record<string, unknown>): Promise<{ toSign: ToSign; orderHash: Hex }> {
  const answer = await buildDelta(sandbox, body)
  expect(answer.status, answer.text).toBe(200)
  return answer.json as { toSign: ToSign; orderHash: Hex }
}

/**
 * Signs a toSign exactly as returned, as a wallet does: the primary type is the one no other type refers to.
 * Returns the 65-byte signature, or the 64-byte compact one.
 */
export async function signToSign(wallet: DeltaWallet, toSign: ToSign, form: 65 | 64 = 65): Promise<Hex> {
  const referenced = new Set(Object.values(toSign.types).flatMap((fields) => fields.map((field) => field.type.replace(/\[\]$/, ''))))
  const primaryType = Object.keys(toSign.types).find((name) => !referenced.has(name))
  if (!primaryType) throw new Error('toSign has no primary type')
  const signature = await wallet.signTypedData({ domain: toSign.domain, types: toSign.types, primaryType, message: toSign.value } as never)
  return form === 64 ? toCompactSignature(signature) : signature
}

/** POST /v2/delta/orders. */
export function submitDelta(sandbox: RunningSandbox, body: Record<string, unknown>): Promise<HttpAnswer> {
  return request(sandbox.url, 'POST', '/v2/delta/orders', body)
}

/** Agents that exist: excluding all of them keeps a MARKET order PENDING (nobody bids). */
export const noAgents = { excludeAgents: ['sandbox-alpha', 'sandbox-beta', 'sandbox-gamma'] }

export type PlaceOrder = {
  wallet: DeltaWallet
  quote: DeltaQuote
  /** Extra build fields (deadline defaults to an hour from sandbox now). */
  build?: Record<string, unknown>
  /** Extra submit fields (default: partner anon, no agents, so the order waits). */
  submit?: Record<string, unknown>
  form?: 65 | 64
}

/** Quote, build, sign and submit; returns every step's result, the submission unchecked. */
export async function placeDeltaOrder(sandbox: RunningSandbox, { wallet, quote, build, submit, form }: PlaceOrder) {
  const price = await mustPrice(sandbox, quote)
  const built = await mustBuild(sandbox, {
    route: price.route,
    side: price.side,
    owner: wallet.account.address,
    deadline: sandboxNow(sandbox) + 3600,
    ...build,
  })
  const signature = await signToSign(wallet, built.toSign, form)
  const answer = await submitDelta(sandbox, {
    chainId: quote.chainId,
    order: built.toSign.value,
    signature,
    partner: 'anon',
    ...noAgents,
    ...submit,
  })
  return { price, built, signature, answer }
}

export type DeltaOrderJson = {
  id: string
  status: string
  side: string
  type: string
  onChainOrderType: string
  input: Record<string, unknown>
  output: Record<string, unknown>
  owner: string
  beneficiary: string
  orderHash: string
  partner: string
  order: Record<string, unknown>
  transactions: unknown[]
  refunds: unknown[]
  createdAt: string
  updatedAt: string
  expiresAt: string
}

/** placeDeltaOrder that must be accepted. */
export async function mustPlaceDeltaOrder(sandbox: RunningSandbox, order: PlaceOrder): Promise<DeltaOrderJson> {
  const { answer } = await placeDeltaOrder(sandbox, order)
  expect(answer.status, answer.text).toBe(200)
  return answer.json as DeltaOrderJson
}

/** Asserts an error answer: status and the exact `error` string of the API document. */
export function expectApiError(answer: HttpAnswer, status: number, error: string): void {
  expect({ status: answer.status, error: (answer.json as { error?: unknown } | undefined)?.error }, answer.text).toEqual({ status, error })
}
