import { randomUUID } from 'node:crypto'
import { type Address, erc20Abi, type Hex, maxUint256 } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { deltaAddress, zeroAddress } from '../../src/protocol/addresses.js'
import {
  buildDeltaOrderTypedData,
  buildTwapBuyOrderTypedData,
  buildTwapOrderTypedData,
  type DeltaBridge,
  type DeltaOrder,
  hashDeltaOrder,
  hashTwapBuyOrder,
  hashTwapOrder,
  type TwapBuyOrder,
  type TwapOrder,
  zeroBridge,
} from '../../src/protocol/delta-order.js'
import { toCompactSignature } from '../../src/protocol/signature.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { waitForLocalReceipt } from '../../src/sandbox/chains/receipt.js'
import { getContractArtifact } from '../../src/sandbox/contracts/compile.js'
import type { DeltaOrderStatus, OnChainOrderType, SignedStruct, StoredDeltaOrder } from '../../src/sandbox/delta/order-store.js'
import { findBestRoute } from '../../src/sandbox/market/route-finder.js'
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js'
import { sandboxToken, sandboxWallet } from '../helpers/sandbox.js'

// Orders as the Delta API would store them, signed with development account keys, for the engine tests.

/** A development account's wallet on one sandbox chain, with read actions. */
export const ownerWallet = sandboxWallet

export function token(sandbox: RunningSandbox, chainId: number, symbol: string): Address {
  return sandboxToken(sandbox, chainId, symbol).address
}

/** Sets the owner's allowance of `tokenAddress` to the Delta contract (default: unlimited). */
export async function approveDelta(sandbox: RunningSandbox, chainId: number, index: number, tokenAddress: Address, amount = maxUint256) {
  const wallet = ownerWallet(sandbox, chainId, index)
  const hash = await wallet.writeContract({ address: tokenAddress, abi: erc20Abi, functionName: 'approve', args: [deltaAddress, amount] })
  await waitForLocalReceipt(wallet, hash)
}

export async function balanceOf(sandbox: RunningSandbox, chainId: number, tokenAddress: Address, holder: Address): Promise<bigint> {
  const chain = sandbox.venue.chains.get(chainId)
  if (!chain) throw new Error(`no chain ${chainId}`)
  return chain.clients.publicClient.readContract({ address: tokenAddress, abi: erc20Abi, functionName: 'balanceOf', args: [holder] })
}

/** The pools' best output for selling (or input for buying) `amount`, from the sandbox's cached reserves. */
export async function poolQuote(
  sandbox: RunningSandbox,
  chainId: number,
  srcToken: Address,
  destToken: Address,
  amount: bigint,
  side: 'SELL' | 'BUY',
): Promise<bigint> {
  const chain = sandbox.venue.chains.get(chainId)
  if (!chain) throw new Error(`no chain ${chainId}`)
  await chain.refresh()
  const route = findBestRoute({ pools: chain.pools, srcToken, destToken, amount, side })
  if (!route) {
    const pools = chain.pools.map((pool) => `${pool.name} ${pool.reserve0}/${pool.reserve1}`).join(', ')
    throw new Error(`no route for ${amount} (${side}) from ${srcToken} to ${destToken} at block ${chain.blockNumber}; pools: ${pools}`)
  }
  return side === 'SELL' ? route.destAmount : route.srcAmount
}

/** Sandbox now in unix seconds. */
export function sandboxSeconds(sandbox: RunningSandbox): bigint {
  return BigInt(Math.floor(sandbox.venue.clock.now() / 1000))
}

export type StandardOrderInput = {
  chainId: number
  ownerIndex: number
  srcToken: Address
  destToken: Address
  srcAmount: bigint
  destAmount: bigint
  kind: 0 | 1
  /** Seconds from sandbox now. Default one hour. */
  deadlineIn?: bigint
  beneficiary?: Address
  partnerAndFee?: bigint
  permit?: Hex
  bridge?: DeltaBridge
}

export function standardOrder(sandbox: RunningSandbox, input: StandardOrderInput): DeltaOrder {
  const owner = developmentAccounts[input.ownerIndex]?.address as Address
  return {
    owner,
    beneficiary: input.beneficiary ?? owner,
    srcToken: input.srcToken,
    destToken: input.destToken,
    srcAmount: input.srcAmount,
    destAmount: input.destAmount,
    expectedAmount: input.kind === 0 ? input.destAmount : input.srcAmount,
    deadline: sandboxSeconds(sandbox) + (input.deadlineIn ?? 3_600n),
    kind: input.kind,
    nonce: BigInt(`0x${randomUUID().replaceAll('-', '').slice(0, 16)}`),
    partnerAndFee: input.partnerAndFee ?? 0n,
    permit: input.permit ?? '0x',
    metadata: '0x',
    bridge: input.bridge ?? zeroBridge,
  }
}

export type AddOrderOptions = {
  /** Source chain. */
  chainId: number
  ownerIndex: number
  type?: 'MARKET' | 'LIMIT'
  partiallyFillable?: boolean
  includeAgents?: string[]
  excludeAgents?: string[]
}

/** Signs the struct with the owner's key and adds it to the sandbox's order book as the API would: PENDING. */
export async function addSignedOrder(sandbox: RunningSandbox, signed: SignedStruct, options: AddOrderOptions): Promise<StoredDeltaOrder> {
  const key = developmentAccounts[options.ownerIndex]?.privateKey
  if (!key || signed.kind === 'ExternalOrder') throw new Error('unsupported test order')
  const account = privateKeyToAccount(key)
  const sourceChainId = options.chainId
  const domain = { chainId: sourceChainId, verifyingContract: deltaAddress }
  let signature: Hex
  let orderHash: Hex
  let onChainOrderType: OnChainOrderType
  switch (signed.kind) {
    case 'Order':
      signature = await account.signTypedData(buildDeltaOrderTypedData(signed.order, domain))
      orderHash = hashDeltaOrder(signed.order, domain)
      onChainOrderType = options.partiallyFillable ? 'FillableOrder' : 'Order'
      break
    case 'TWAPOrder':
      signature = await account.signTypedData(buildTwapOrderTypedData(signed.order, domain))
      orderHash = hashTwapOrder(signed.order, domain)
      onChainOrderType = 'TWAPOrder'
      break
    case 'TWAPBuyOrder':
      signature = await account.signTypedData(buildTwapBuyOrderTypedData(signed.order, domain))
      orderHash = hashTwapBuyOrder(signed.order, domain)
      onChainOrderType = 'TWAPBuyOrder'
      break
  }
  const now = sandbox.venue.clock.now()
  const order = signed.order
  const destinationChainId = Number(order.bridge.destinationChainId)
  const stored: StoredDeltaOrder = {
    id: randomUUID(),
    chainId: sourceChainId,
    destChainId: destinationChainId === 0 ? sourceChainId : destinationChainId,
    status: 'PENDING' satisfies DeltaOrderStatus,
    side: signed.kind === 'TWAPBuyOrder' || (signed.kind === 'Order' && signed.order.kind === 1) ? 'BUY' : 'SELL',
    type: options.type ?? 'MARKET',
    onChainOrderType,
    orderHash,
    owner: order.owner,
    beneficiary: order.beneficiary === zeroAddress ? order.owner : order.beneficiary,
    partner: 'anon',
    signed,
    orderWire: JSON.parse(JSON.stringify(order, (_key, value) => (typeof value === 'bigint' ? value.toString() : value))),
    signature: toCompactSignature(signature),
    partiallyFillable: options.partiallyFillable ?? false,
    includeAgents: options.includeAgents,
    excludeAgents: options.excludeAgents,
    referrerAddress: undefined,
    filledSrcAmount: 0n,
    filledDestAmount: 0n,
    transactions: [],
    refunds: [],
    cancelQueued: false,
    auctionInFlight: false,
    createdAt: now,
    updatedAt: now,
    expiresAt: Number(order.deadline) * 1000,
    history: [],
  }
  return sandbox.delta.store.add(stored)
}

/** Polls until `check` holds (every 20 ms real), failing after `timeoutMs`. */
export async function waitFor(what: string | (() => string), check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Waits until the order reaches `status`. */
export function waitForStatus(order: StoredDeltaOrder, status: DeltaOrderStatus, timeoutMs?: number): Promise<void> {
  return waitFor(
    () => `order ${order.id} to become ${status} (is ${order.status}: ${JSON.stringify(order.history)})`,
    () => order.status === status,
    timeoutMs,
  )
}

export const deltaAbi = () => getContractArtifact('DeltaSettlement').abi

export type { TwapBuyOrder, TwapOrder }

/** Swaps `amount` of `srcSymbol` for `destSymbol` through their direct pool on the Market router, from a development account. */
export async function swapOnPool(
  sandbox: RunningSandbox,
  chainId: number,
  index: number,
  srcSymbol: string,
  destSymbol: string,
  amount: bigint,
) {
  const chain = sandbox.venue.chains.get(chainId)
  const pool = chain?.fixture.pools.find((candidate) => candidate.symbols.includes(srcSymbol) && candidate.symbols.includes(destSymbol))
  if (!chain || !pool) throw new Error(`no ${srcSymbol}/${destSymbol} pool on chain ${chainId}`)
  const wallet = ownerWallet(sandbox, chainId, index)
  const [src, dest] = [token(sandbox, chainId, srcSymbol), token(sandbox, chainId, destSymbol)]
  const router = chain.fixture.contracts.marketRouter
  await waitForLocalReceipt(
    wallet,
    await wallet.writeContract({ address: src, abi: erc20Abi, functionName: 'approve', args: [router, amount] }),
  )
  const hash = await wallet.writeContract({
    address: router,
    abi: getContractArtifact('MarketRouter').abi,
    functionName: 'swapExactAmountIn',
    args: [src, dest, amount, 0n, [pool.address], wallet.account.address, 0n],
  })
  const receipt = await waitForLocalReceipt(wallet, hash)
  if (receipt.status !== 'success') throw new Error('pool swap reverted')
  await chain.refresh()
}

/** Waits `sandboxMs` of sandbox time. */
export async function sandboxSleep(sandbox: RunningSandbox, sandboxMs: number): Promise<void> {
  const until = sandbox.venue.clock.now() + sandboxMs
  await waitFor(`${sandboxMs} sandbox ms`, () => sandbox.venue.clock.now() >= until)
}
