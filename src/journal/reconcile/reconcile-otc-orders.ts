import type { Address, Hex } from 'viem'
import type { ApiClient } from '../../api/client.js'
import { getOtcOrder } from '../../api/otc/get-otc-order.js'
import { getContracts } from '../../api/resources/get-contracts.js'
import type { Logger } from '../../log/logger.js'
import type { Journal } from '../journal.js'
import type { JournalOrder } from '../orders.js'
import { applyOrderUpdates, emptyOrderUpdate, type OrderUpdate } from './apply-order-updates.js'
import { mapConcurrently } from './map-concurrently.js'
import { readRfqFills } from './read-rfq-fills.js'
import type { ReconcileChains } from './reconcile-chains.js'
import { OtcFillsBehindError, ReconcileChainMissingError, RfqContractMissingError, VenueOrderMismatchError } from './reconcile-errors.js'
import { countChainReadError, countVenueReadError, failureMessage, type ReconcileReport } from './reconcile-report.js'

export type ReconcileOtcOrdersParameters = {
  journal: Journal
  api: ApiClient
  chains: ReconcileChains
  account: Address
  /** Submitted, non-final OTC orders the account made. */
  orders: readonly JournalOrder[]
  report: ReconcileReport
  logger?: Logger | undefined
  signal?: AbortSignal | undefined
  concurrency: number
}

/**
 * OTC orders: the state from GET /ft/order/{hash} (API 2.6, 3.2), the fills from the RFQ contract's OrderFilled logs of
 * the order (we are the maker: spent makerAmount of makerAsset, received takerAmount of takerAsset). A FULFILLED state
 * the logs do not yet cover waits for the next run, so the order never ends without its fills. Returns the orders that
 * reached a final status.
 */
export async function reconcileOtcOrders(parameters: ReconcileOtcOrdersParameters): Promise<string[]> {
  const { journal, report, logger, orders } = parameters
  if (orders.length === 0) return []
  let contracts: ReturnType<typeof getContracts> | undefined
  const rfqOf = async (chainId: number): Promise<Address> => {
    contracts ??= getContracts(parameters.api, { signal: parameters.signal })
    const rfq = (await contracts).chains.get(chainId)?.augustusRFQ
    if (!rfq) throw new RfqContractMissingError({ chainId })
    return rfq
  }
  const updates = await mapConcurrently(orders, parameters.concurrency, async (order): Promise<OrderUpdate | undefined> => {
    try {
      const update = await reconcileOtcOrder(parameters, order, rfqOf)
      report.checked.otc++
      return update
    } catch (error) {
      parameters.signal?.throwIfAborted()
      const stage = error instanceof OtcFillsBehindError || error instanceof ReconcileChainMissingError ? 'chain' : 'venue'
      report.errors.push({ orderId: order.id, mode: 'otc', stage, message: failureMessage(error) })
      if (stage === 'venue') countVenueReadError(report, error)
      countChainReadError(report, error, order.chainId)
      logger?.warn({ err: error, orderId: order.id }, 'reconcile could not bring the OTC order up to date')
      return undefined
    }
  })
  return applyOrderUpdates(
    journal,
    updates.filter((update) => update !== undefined),
    report,
    logger,
  )
}

async function reconcileOtcOrder(
  { journal, api, chains, account, report, signal }: ReconcileOtcOrdersParameters,
  order: JournalOrder,
  rfqOf: (chainId: number) => Promise<Address>,
): Promise<OrderUpdate> {
  const orderHash = order.orderHash as Hex
  const venue = await getOtcOrder(api, { orderHash, signal })
  if (venue.orderHash.toLowerCase() !== orderHash || venue.maker.toLowerCase() !== account.toLowerCase()) {
    throw new VenueOrderMismatchError({
      orderId: order.id,
      venueId: venue.orderHash,
      journalHash: orderHash,
      venueHash: venue.orderHash,
      venueOwner: venue.maker,
    })
  }
  const client = chains.get(order.chainId)?.publicClient
  if (!client) throw new ReconcileChainMissingError({ orderId: order.id, chainId: order.chainId })
  const fills = await readRfqFills(client, { rfq: await rfqOf(order.chainId), orderHash, maker: account })

  const update = emptyOrderUpdate(order.id, 'otc')
  const recorded = new Set(journal.fillsOf(order.id).map((fill) => `${fill.txHash}:${fill.logIndex}`))
  let filledTakerAmount = 0n
  for (const fill of fills) {
    filledTakerAmount += fill.takerAmount
    if (recorded.has(`${fill.txHash.toLowerCase()}:${fill.logIndex}`)) continue
    if (fill.makerAsset.toLowerCase() !== order.srcToken || fill.takerAsset.toLowerCase() !== order.destToken) {
      report.notes.push({
        orderId: order.id,
        txHash: fill.txHash,
        note: `the fill moved ${fill.makerAsset} for ${fill.takerAsset}, not the journal's ${order.srcToken} for ${order.destToken}`,
      })
    }
    update.events.push({
      type: 'fill',
      source: 'chain',
      orderId: order.id,
      chainId: order.chainId,
      txHash: fill.txHash,
      logIndex: fill.logIndex,
      blockNumber: Number(fill.blockNumber),
      spentAmount: fill.makerAmount,
      receivedAmount: fill.takerAmount,
    })
    update.chainConfirmedFills++
  }
  if (venue.state === 'FULFILLED' && filledTakerAmount < venue.takerAmount) {
    // Fills found so far are still worth writing; the status waits.
    applyOrderUpdates(journal, [update], report)
    throw new OtcFillsBehindError({ orderId: order.id, orderHash, filledTakerAmount, takerAmount: venue.takerAmount })
  }
  if (venue.state !== order.status) update.events.push({ type: 'status', orderId: order.id, status: venue.state, reason: 'venue' })
  return update
}
