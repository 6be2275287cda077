import { type Address, erc20Abi } from 'viem'
import { permit2Address } from '../../../protocol/addresses.js'
import { deltaPermitLengths } from '../../../protocol/delta-permit.js'
import type { ChainVenue } from '../../venue/chain-venue.js'
import { type EngineContext, moveOrder } from './engine-context.js'
import { hedgeFill, refreshPoolsTo } from './hedge-fill.js'
import { isNative, remainingSourceNeed } from './order-terms.js'
import { recordFill } from './record-fill.js'
import { laneKey } from './serial-lanes.js'
import { type FillPlan, settleFill } from './settle-fill.js'
import { classifySettlementFailure } from './settlement-failure.js'

/** Sandbox ms before an order whose settlement failed for a passing reason is tried again. */
export const settlementRetryMs = 3_000

/**
 * Settles one fill from the winning agent's account (one transaction at a time per agent), books it, lets the agent
 * hedge, and waits for the pools to show the result. On a revert, the order moves as the reason dictates (FAILED,
 * EXPIRED, CANCELLED) or is left to be retried. Returns whether the fill was mined.
 */
export async function executeFill(context: EngineContext, chain: ChainVenue, plan: FillPlan): Promise<boolean> {
  const lane = laneKey(chain.chainId, plan.agent.address)
  const log = context.logger.child({ orderId: plan.order.id, agent: plan.agent.name })
  let settled: Awaited<ReturnType<typeof settleFill>>
  try {
    settled = await context.lanes.run(lane, () => settleFill(chain, plan))
  } catch (error) {
    await onSettlementFailure(context, chain, plan, error)
    return false
  }
  recordFill(context, plan, settled)
  let lastBlock = settled.receipt.blockNumber
  try {
    lastBlock = (await context.lanes.run(lane, () => hedgeFill(chain, plan, settled))) ?? lastBlock
  } catch (error) {
    log.warn({ err: error }, 'agent hedge failed')
  }
  await refreshPoolsTo(chain, lastBlock)
  return true
}

async function onSettlementFailure(context: EngineContext, chain: ChainVenue, plan: FillPlan, error: unknown): Promise<void> {
  const { order, terms } = plan
  const runtime = context.runtime(order)
  const failure = classifySettlementFailure(error, terms.owner)
  const log = context.logger.child({ orderId: order.id, agent: plan.agent.name })
  switch (failure.kind) {
    case 'permanent':
      moveOrder(context, order, 'FAILED', failure.reason)
      return
    case 'expired':
      moveOrder(context, order, 'EXPIRED', failure.reason)
      return
    case 'cancelledOnChain':
      moveOrder(context, order, 'CANCELLED', failure.reason)
      return
    case 'tooEarly':
      runtime.nextAttemptAt = Math.max(context.now() + 1_000, Number(failure.nextSliceAt) * 1000)
      return
    case 'ownerFunds':
      if (await isPermitRejected(chain, plan)) {
        moveOrder(context, order, 'FAILED', `Permit rejected: ${failure.reason}`)
        return
      }
      break
    case 'transient':
      break
  }
  log.debug({ reason: failure.reason }, 'settlement failed; retrying later')
  runtime.nextAttemptAt = context.now() + settlementRetryMs
}

/**
 * The owner's side failed although its own funds cover the order: then the permit it signed (unused so far) is what
 * the token or Permit2 refused, and it will not become valid later.
 */
async function isPermitRejected(chain: ChainVenue, plan: FillPlan): Promise<boolean> {
  const { order, terms } = plan
  const length = (terms.permit.length - 2) / 2
  const signedPermits = [
    deltaPermitLengths.eip2612,
    deltaPermitLengths.dai,
    deltaPermitLengths.permit2Allowance,
    deltaPermitLengths.permit2Transfer,
  ]
  if (isNative(terms.srcToken) || order.transactions.length > 0 || !signedPermits.includes(length)) return false
  const need = remainingSourceNeed(order, terms)
  const read = (functionName: 'balanceOf' | 'allowance', args: readonly Address[]) =>
    chain.clients.publicClient.readContract({ address: terms.srcToken, abi: erc20Abi, functionName, args } as never) as Promise<bigint>
  const viaPermit2 = length === deltaPermitLengths.permit2Allowance || length === deltaPermitLengths.permit2Transfer
  const [balance, toPermit2] = await Promise.all([
    read('balanceOf', [terms.owner]),
    viaPermit2 ? read('allowance', [terms.owner, permit2Address]) : Promise.resolve(need),
  ])
  return balance >= need && toPermit2 >= need
}
