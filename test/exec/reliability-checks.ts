import { type Address, decodeFunctionData, erc20Abi, type Hex } from 'viem'
import { createApiClient } from '../../src/api/client.js'
import type { DeltaOrder } from '../../src/api/delta/delta-order-schema.js'
import { getDeltaOrders } from '../../src/api/delta/get-delta-orders.js'
import { orderIdOf } from '../../src/domain/order-id.js'
import { checkConservation } from '../../src/journal/conservation.js'
import { type Journal, openJournal } from '../../src/journal/journal.js'
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js'
import { systemClock } from '../../src/time/clock.js'
import { type PlannedTrial, reliabilityIntents, type WorkerConfig } from './reliability-plan.js'

export type LaneToCheck = { journalFile: string; account: Address; tokens: WorkerConfig['tokens']; trials: readonly PlannedTrial[] }

/** Everything found wrong, by kind: each list is empty when the lane is sound. */
export type LaneProblems = {
  unfinishedIntents: unknown[]
  openOrders: string[]
  venueOrdersUnknownToJournal: string[]
  venueOrdersTwice: string[]
  submittedOrdersMissingAtVenue: string[]
  statusDifferences: unknown[]
  unresolvedTransactions: string[]
  unjournaledNonces: number[]
  nonceUsedTwice: number[]
  marketOrdersSpentTwice: string[]
  needlessApprovals: string[]
  lostCancellations: unknown[]
  conservationDifferences: unknown[]
}

export type LaneFigures = { venueOrders: number; transactions: number; approvals: number; cancellations: number; intents: number }

/**
 * What a lane's journal says against what the venue and the chain hold, after its last run settled everything:
 * every intent ended, no duplicate and no lost order, every transaction journaled, no approval sent twice for one
 * need, no lost cancellation, and every balance equal to the journal's account of it, to the wei.
 */
export async function checkLane(sandbox: RunningSandbox, lane: LaneToCheck): Promise<{ problems: LaneProblems; figures: LaneFigures }> {
  const { account } = lane
  const journal = openJournal({ file: lane.journalFile, clock: systemClock })
  const client = sandbox.venue.chains.get(1)?.clients.publicClient
  if (!client) throw new Error('chain 1 is not running')
  try {
    const intents = lane.trials.flatMap((planned) =>
      reliabilityIntents(lane.tokens, planned).map((step) => ({ ...step, trial: planned.trial })),
    )
    // Every intent the plan asked for ended done, whatever the kills interrupted.
    const unfinishedIntents = intents
      .map(({ step, trial, intent }) => ({
        intent: `${trial}-${step}`,
        status: journal.getIntent(intent.id)?.status ?? 'missing',
        reason: journal.getIntent(intent.id)?.refusalReason ?? undefined,
        order: journal.getOrder({ id: orderIdOf(intent.id) })?.status,
        fills: journal.fillsOf(orderIdOf(intent.id)).length,
      }))
      .filter(({ status }) => status !== 'done')

    // No venue order the journal does not know, none twice, every submitted journal order at the venue, same status.
    const venueOrders = await readVenueOrders(sandbox.url, account)
    const journalDelta = journal.listOrders({ mode: 'delta' })
    const journalByHash = new Map(journalDelta.map((order) => [order.orderHash, order]))
    const venueHashes = venueOrders.map((order) => order.orderHash.toLowerCase())
    const venueSet = new Set(venueHashes)

    // Every transaction the account sent is journaled and resolved; one journaled transaction per used nonce.
    const transactions = journal.transactionsFrom(account, 1)
    const sentOnChain = await client.getTransactionCount({ address: account })
    const journaled = transactions.filter((tx) => tx.status !== 'dropped')
    const journaledNonces = new Set(journaled.map((tx) => tx.nonce))
    // Transactions before the journal's first baseline (the sandbox's own funding of the account) are not deltaflow's.
    const firstBlock = Math.min(...journal.balanceBaselinesOf(account).map((baseline) => baseline.blockNumber))
    const startNonce = await client.getTransactionCount({ address: account, blockNumber: BigInt(firstBlock) })
    const nonces = Array.from({ length: sentOnChain - startNonce }, (_, index) => startNonce + index)

    // No approval sent twice for one need: each raised the allowance it set (anvil mines one transaction per block, so
    // the state just before it is the block before).
    const approvals = journaled.filter((tx) => tx.purpose === 'approve')
    const needlessApprovals: string[] = []
    for (const approval of approvals) {
      const sent = await client.getTransaction({ hash: approval.txHash as Hex })
      const [spender, amount] = decodeFunctionData({ abi: erc20Abi, data: sent.input }).args as [Address, bigint]
      const before = await client.readContract({
        address: sent.to as Address,
        abi: erc20Abi,
        functionName: 'allowance',
        args: [account, spender],
        blockNumber: (sent.blockNumber ?? 1n) - 1n,
      })
      if (amount > 0n && before >= amount)
        needlessApprovals.push(`${approval.txHash}: the allowance was ${before} already, set to ${amount}`)
    }

    // No cancellation lost: each cancelled LIMIT order ended CANCELLED (or filled), in the journal and at the venue.
    const venueByHash = new Map(venueOrders.map((order) => [order.orderHash.toLowerCase(), order]))
    // (A LIMIT intent without an order is among the unfinished intents.)
    const cancelled = intents
      .filter(({ step }) => step === 'limit')
      .flatMap(({ intent }) => journal.getOrder({ id: orderIdOf(intent.id) }) ?? [])
    const lostCancellations = cancelled
      .map((order) => ({ order: order.id, journal: order.status, venue: venueByHash.get(order.orderHash ?? '')?.status }))
      .filter((order) => !['CANCELLED', 'COMPLETED'].includes(order.journal) || order.venue !== order.journal)

    // Balances: everything the journal says moved equals what moved on chain, to the wei.
    const chains = new Map([...sandbox.venue.chains].map(([chainId, chain]) => [chainId, { publicClient: chain.clients.publicClient }]))
    const balances = await checkConservation({ journal, account, chains })

    const problems: LaneProblems = {
      unfinishedIntents,
      openOrders: journal.openOrders().map((order) => `${order.id} ${order.mode} ${order.status}`),
      venueOrdersUnknownToJournal: venueHashes.filter((hash) => !journalByHash.has(hash)),
      venueOrdersTwice: venueHashes.filter((hash, index) => venueHashes.indexOf(hash) !== index),
      submittedOrdersMissingAtVenue: journalDelta
        .filter((order) => order.submitted && !venueSet.has(order.orderHash ?? ''))
        .map((order) => order.id),
      statusDifferences: venueOrders
        .map((order) => ({ hash: order.orderHash, venue: order.status, journal: journalByHash.get(order.orderHash.toLowerCase())?.status }))
        .filter((order) => order.venue !== order.journal),
      unresolvedTransactions: transactions.filter((tx) => tx.status === 'sent').map((tx) => tx.txHash),
      unjournaledNonces: nonces.filter((nonce) => !journaledNonces.has(nonce)),
      nonceUsedTwice: [...journaledNonces].filter((nonce) => journaled.filter((tx) => tx.nonce === nonce).length > 1),
      marketOrdersSpentTwice: marketOrdersSpentTwice(journal),
      needlessApprovals,
      lostCancellations,
      conservationDifferences: balances.tokens
        .filter((token) => token.difference !== 0n)
        .map((token) => ({ token: token.token, difference: token.difference, unrecorded: token.unrecordedTransfers })),
    }
    const figures: LaneFigures = {
      venueOrders: venueOrders.length,
      transactions: journaled.length,
      approvals: approvals.length,
      cancellations: cancelled.length,
      intents: intents.length,
    }
    return { problems, figures }
  } finally {
    journal.close()
  }
}

/** The lists of `problems` all empty: what a sound lane gives. */
export const noProblems: LaneProblems = {
  unfinishedIntents: [],
  openOrders: [],
  venueOrdersUnknownToJournal: [],
  venueOrdersTwice: [],
  submittedOrdersMissingAtVenue: [],
  statusDifferences: [],
  unresolvedTransactions: [],
  unjournaledNonces: [],
  nonceUsedTwice: [],
  marketOrdersSpentTwice: [],
  needlessApprovals: [],
  lostCancellations: [],
  conservationDifferences: [],
}

/** A Market order is spent once: at most one of its swap transactions reaches the chain. */
function marketOrdersSpentTwice(journal: Journal): string[] {
  return journal
    .listOrders({ mode: 'market' })
    .filter((order) => journal.transactionsOf(order.id).filter((tx) => tx.purpose === 'swap' && tx.status !== 'dropped').length > 1)
    .map((order) => order.id)
}

async function readVenueOrders(url: string, account: Address): Promise<DeltaOrder[]> {
  const api = createApiClient({ baseUrl: url })
  const orders: DeltaOrder[] = []
  for (let page = 1; ; page++) {
    const list = await getDeltaOrders(api, { userAddress: account, page, limit: 1000 })
    orders.push(...list.data)
    if (!list.hasMore) return orders
  }
}
