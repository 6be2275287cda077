import type { Hex } from 'viem'
import { buildDeltaOrder } from '../api/delta/build-delta-order.js'
import type { DeltaOrder } from '../api/delta/delta-order-schema.js'
import type { DeltaPrice } from '../api/delta/delta-price-schema.js'
import { getDeltaOrder } from '../api/delta/get-delta-order.js'
import { submitDeltaOrder } from '../api/delta/submit-delta-order.js'
import type { PermitPreference } from '../chain/approval-plan.js'
import { requireChainClients } from '../chain/chain-clients.js'
import { signDeltaOrder } from '../chain/sign-delta-order.js'
import { resolveSpender } from '../chain/spender.js'
import { createTransactionQueue } from '../chain/transaction-queue.js'
import type { Session } from '../cli/session.js'
import { BaseError } from '../errors/base.js'
import { isFinalDeltaStatus } from '../protocol/delta-status.js'
import { unixSeconds } from '../time/clock.js'
import { approveForTrade } from './approve-for-trade.js'
import type { TradeRequest } from './quote-trade.js'

export type DeltaSwapResult = {
  mode: 'delta'
  orderId: string
  orderHash: Hex
  status: DeltaOrder['status']
  approvals: Hex[]
  /** The `permit` bytes the order carries (0x when the allowance is an on-chain approval). */
  permit: Hex
  /** Source spent and destination received so far, from the order's transactions[] (raw units). */
  spent: bigint
  received: bigint
  transactions: { originTx: Hex; destinationTx: Hex | null }[]
}

export class DeltaSwapError extends BaseError {
  override name = 'DeltaSwapError'
}

export type SwapWithDeltaParameters = {
  trade: TradeRequest
  price: DeltaPrice
  slippageBps: number
  /** Seconds from now until the order's deadline. */
  validForSeconds: number
  /** Poll until the order is final, at most this long (ms); undefined returns right after submission. */
  waitMs: number | undefined
  /** How the Delta contract gets its allowance: approve (default), EIP-2612 / DAI permit, or Permit2. */
  permitPreference?: PermitPreference | undefined
}

/** Approves (or permits) the Delta contract, builds, signs (64-byte) and submits the order; optionally waits for it. */
export async function swapWithDelta(session: Session, parameters: SwapWithDeltaParameters): Promise<DeltaSwapResult> {
  const { trade, price, slippageBps } = parameters
  if (trade.srcToken.address.toLowerCase() === '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee') {
    throw new DeltaSwapError('Selling the native asset through Delta needs a deposit, which deltaflow swap does not make yet', {
      hint: 'Use --mode market, or sell WETH.',
      errorClass: 'operational',
    })
  }
  const chain = requireChainClients(session.chains, trade.chainId)
  const spender = resolveSpender({ contracts: session.contracts, chainId: trade.chainId, mode: 'delta' })
  const deadline = unixSeconds(session.clock) + parameters.validForSeconds
  const build = (permit: Hex) =>
    buildDeltaOrder(session.api, {
      route: price.route,
      side: price.side,
      owner: session.account.address,
      deadline,
      slippage: slippageBps,
      permit,
    })
  let built = await build('0x')
  // The signed maximum the Delta contract may pull: srcAmount of the built order (a BUY adds the slippage).
  const required = BigInt(String(built.toSign.value.srcAmount))
  const queue = createTransactionQueue({ client: chain.publicClient, account: session.account, clock: session.clock })
  const { permit, approvals } = await approveForTrade({
    chain,
    account: session.account,
    queue,
    spender,
    token: trade.srcToken.address,
    required,
    deadline: BigInt(deadline),
    permitPreference: parameters.permitPreference,
  })
  if (permit !== undefined && permit !== '0x') built = await build(permit)
  const signed = await signDeltaOrder(session.account, { toSign: built.toSign, delta: spender, orderHash: built.orderHash })
  let order = await submitDeltaOrder(session.api, { chainId: trade.chainId, order: built.toSign.value, signature: signed.signature })
  if (parameters.waitMs !== undefined) {
    const until = session.clock.now() + parameters.waitMs
    while (!isFinalDeltaStatus(order.status) && session.clock.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 250))
      order = await getDeltaOrder(session.api, { orderId: order.id })
    }
  }
  return {
    mode: 'delta',
    orderId: order.id,
    orderHash: order.orderHash,
    status: order.status,
    approvals,
    permit: permit ?? '0x',
    spent: order.transactions.reduce((sum, fill) => sum + (fill.spentAmount ?? 0n), 0n),
    received: order.transactions.reduce((sum, fill) => sum + (fill.receivedAmount ?? 0n), 0n),
    transactions: order.transactions.map(({ originTx, destinationTx }) => ({ originTx, destinationTx })),
  }
}
