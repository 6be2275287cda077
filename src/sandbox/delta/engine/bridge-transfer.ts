import { type Abi, type Address, type Hash, parseAbi } from 'viem'
import { sendFixtureCall } from '../../chains/send.js'
import type { ChainVenue } from '../../venue/chain-venue.js'
import type { StoredDeltaOrder } from '../order-store.js'
import { bridgeAccount } from './bridge-route.js'
import { type BridgeTransfer, type EngineContext, hasBridgeTransfers, moveOrder } from './engine-context.js'
import { filledOfOrder, isNative } from './order-terms.js'
import { crosschainLegs } from './pool-quote.js'
import { sendAs, sendNativeAs } from './send-as.js'
import { laneKey } from './serial-lanes.js'

/** Sandbox ms between a failed bridge transfer (REFUNDING) and its refund on the source chain. */
export const refundDelayMs = 5_000
/** Sandbox ms before a bridge transaction that could not be sent is tried again. */
const transferRetryMs = 2_000

// Without return values: USDT-style tokens return nothing from transfer.
const tokenAbi = parseAbi([
  'function transfer(address to, uint256 amount)',
  'function mint(address to, uint256 amount)',
  'function deposit() payable',
])

/**
 * Moves one crosschain fill on when its time has come. Delivery: the bridge's account hands the output token to the
 * beneficiary on the destination chain (`destinationTx`). With the profile's failure rate (or when failures are
 * forced) the transfer fails instead: the order goes REFUNDING and, a little later, the bridge returns the source to
 * the owner on the source chain (`refunds[]`). The order finishes once its last transfer has.
 */
export async function advanceBridgeTransfer(context: EngineContext, transfer: BridgeTransfer): Promise<void> {
  const { order, profile } = transfer
  transfer.running = true
  try {
    if (transfer.phase === 'deliver') {
      const mode = context.bridgeFailures.mode
      const fails = mode === 'always' || (mode === 'random' && context.venue.random() < profile.failureRate)
      if (fails) {
        transfer.phase = 'refund'
        transfer.dueAt = context.now() + refundDelayMs
        if (order.status === 'BRIDGING') moveOrder(context, order, 'REFUNDING', `bridge ${profile.protocol} transfer failed`)
        return
      }
      transfer.transaction.destinationTx = await deliver(context, transfer)
    } else {
      const tx = await refund(context, transfer)
      order.refunds.push({ tx, chainId: order.chainId, token: context.runtime(order).terms.srcToken, amount: transfer.refundAmount })
    }
    context.store.touch(order, context.now())
    context.transfers.splice(context.transfers.indexOf(transfer), 1)
    finishBridgedOrder(context, order)
  } catch (error) {
    context.logger.warn({ err: error, orderId: order.id, phase: transfer.phase }, 'bridge transaction failed; retrying')
    transfer.dueAt = context.now() + transferRetryMs
  } finally {
    transfer.running = false
  }
}

/** A crosschain order whose last transfer has ended: REFUNDED when any fill came back, COMPLETED otherwise. */
export function finishBridgedOrder(context: EngineContext, order: StoredDeltaOrder): void {
  if (hasBridgeTransfers(context, order)) return
  const { terms } = context.runtime(order)
  const onBridge = order.status === 'BRIDGING' || order.status === 'REFUNDING'
  const filledThenCancelled = order.status === 'CANCELLING' && filledOfOrder(order, terms) >= terms.total
  if (onBridge || filledThenCancelled) moveOrder(context, order, order.refunds.length > 0 ? 'REFUNDED' : 'COMPLETED')
}

async function deliver(context: EngineContext, transfer: BridgeTransfer): Promise<Hash> {
  const { order } = transfer
  const source = context.venue.chains.get(order.chainId)
  const destination = context.venue.chains.get(order.destChainId)
  const legs = source && destination && crosschainLegs(source, destination, context.runtime(order).terms)
  if (!destination || !legs) throw new Error(`order ${order.id}: no destination chain ${order.destChainId} or token to deliver`)
  return payOut(
    context,
    destination,
    bridgeAccount(transfer.profile),
    legs.deliveredToken,
    context.runtime(order).terms.beneficiary,
    transfer.deliverAmount,
  )
}

async function refund(context: EngineContext, transfer: BridgeTransfer): Promise<Hash> {
  const { order } = transfer
  const source = context.venue.chains.get(order.chainId)
  if (!source) throw new Error(`order ${order.id}: source chain ${order.chainId} is not running`)
  const { terms } = context.runtime(order)
  return payOut(context, source, bridgeAccount(transfer.profile), terms.srcToken, terms.owner, transfer.refundAmount)
}

/** The bridge account pays `amount` of `token` to `to`: ether directly, WETH wrapped from ether, other tokens minted for it first. */
async function payOut(
  context: EngineContext,
  chain: ChainVenue,
  bridge: Address,
  token: Address,
  to: Address,
  amount: bigint,
): Promise<Hash> {
  return context.lanes.run(laneKey(chain.chainId, bridge), async () => {
    if (isNative(token)) return (await sendNativeAs(chain, bridge, to, amount)).transactionHash
    const abi = tokenAbi as Abi
    if (token.toLowerCase() === chain.wrappedNative.address.toLowerCase()) {
      await sendAs(chain, { from: bridge, to: token, abi, functionName: 'deposit', value: amount })
    } else {
      await sendFixtureCall(chain.clients, { from: chain.fixture.operator, to: token, abi, functionName: 'mint', args: [bridge, amount] })
    }
    return (await sendAs(chain, { from: bridge, to: token, abi, functionName: 'transfer', args: [to, amount] })).transactionHash
  })
}
