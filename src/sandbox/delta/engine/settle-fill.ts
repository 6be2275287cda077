import { type Hash, parseEventLogs, type TransactionReceipt } from 'viem'
import { getContractArtifact } from '../../contracts/compile.js'
import type { ChainVenue } from '../../venue/chain-venue.js'
import type { AgentProfile } from '../agents.js'
import type { StoredDeltaOrder } from '../order-store.js'
import { isNative, type OrderTerms } from './order-terms.js'
import { sendAs } from './send-as.js'

/** One fill the engine is about to settle. */
export type FillPlan = {
  order: StoredDeltaOrder
  terms: OrderTerms
  agent: AgentProfile
  /** Standard order: the `fillAmount` (sell: source, buy: destination). TWAP: the slice's amount, same units. */
  fillAmount: bigint
  /** The winning bid: destination the agent pays (sell) or source it takes (buy). */
  agentAmount: bigint
}

/** What the settlement moved, as its `OrderSettled` event reports it. */
export type SettledFill = {
  hash: Hash
  receipt: TransactionReceipt
  /** Source moved from the owner to the agent, partner fee excluded. */
  srcAmount: bigint
  /** Destination delivered to the beneficiary, partner fee excluded (crosschain: the declared amount). */
  destAmount: bigint
}

const deltaAbi = () => getContractArtifact('DeltaSettlement').abi

/** Settles one fill from the agent's account with the settlement function of the order's struct. */
export async function settleFill(chain: ChainVenue, plan: FillPlan): Promise<SettledFill> {
  const delta = chain.fixture.contracts.delta
  if (!delta) throw new Error(`chain ${chain.chainId} has no Delta contract`)
  const { order, terms, agent, fillAmount, agentAmount } = plan
  const { signed, signature } = order
  // A native destination comes with the call: all the agent pays on a sell, the delivered amount on a buy.
  const value = !terms.bridge && isNative(terms.destToken) ? (terms.side === 'SELL' ? agentAmount : fillAmount) : 0n
  const call = (functionName: string, args: readonly unknown[]) =>
    sendAs(chain, { from: agent.address, to: delta, abi: deltaAbi(), functionName, args, value })
  const receipt =
    signed.kind === 'TWAPOrder'
      ? await call('settleTwapSlice', [signed.order, signature, agentAmount])
      : signed.kind === 'TWAPBuyOrder'
        ? await call('settleTwapBuySlice', [signed.order, signature, agentAmount])
        : signed.kind === 'ExternalOrder'
          ? await call('settleExternalOrder', [signed.order, signature, agentAmount])
          : await call('settleOrder', [signed.order, signature, fillAmount, agentAmount])
  const settled = parseEventLogs({ abi: deltaAbi(), logs: receipt.logs, eventName: 'OrderSettled' }).find(
    (log) =>
      log.address.toLowerCase() === delta.toLowerCase() &&
      (log.args as { orderHash: string }).orderHash.toLowerCase() === order.orderHash.toLowerCase(),
  )
  if (!settled) throw new Error(`settlement ${receipt.transactionHash} emitted no OrderSettled for ${order.orderHash}`)
  const args = settled.args as { srcAmount: bigint; destAmount: bigint }
  return { hash: receipt.transactionHash, receipt, srcAmount: args.srcAmount, destAmount: args.destAmount }
}
