import { readFileSync } from 'node:fs'
import type { Address } from 'viem'
import { z } from 'zod'
import { getDeltaOrders } from '../../src/api/delta/get-delta-orders.js'
import { parseConfig } from '../../src/config/load-config.js'
import { isFinalStatus } from '../../src/domain/order-status.js'
import { createExecutor } from '../../src/exec/executor/executor.js'
import { checkConservation } from '../../src/journal/conservation.js'
import { createLogger } from '../../src/log/logger.js'
import { openSession, type Session } from '../../src/runtime/open-session.js'
import { settleOrders } from '../../src/runtime/settle-order.js'
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js'

export type JournalVerdict = {
  account: Address
  /** Orders of the journal by mode and by status, once settled. */
  orders: { total: number; byMode: Record<string, number>; byStatus: Record<string, number> }
  /** Orders the bot left signed but not known to be submitted when it stopped (recovery resolves them). */
  unsubmittedAtStop: number
  /** Orders still not final after the cancel and the settling wait. */
  openAfterSettle: string[]
  /**
   * Venue orders beyond one per journal order: a hash listed twice, or a venue order the journal does not know (only a
   * second signing of an intent makes one); Market orders with more than one mined swap.
   */
  duplicates: { delta: number; otc: number; market: number; total: number; details: string[] }
  /** Journal orders marked submitted that the venue does not have. */
  lost: { delta: number; otc: number; total: number; details: string[] }
  /** Per chain: transactions the account sent (its nonce) that the journal does not record. */
  unjournaledTransactions: Record<number, number>
  conservation: {
    balanced: boolean
    tokens: { chainId: number; token: string; difference: bigint; expected: bigint; actual: bigint }[]
    notes: string[]
  }
}

const otcListSchema = z.object({ orders: z.array(z.object({ orderHash: z.string() })), hasMore: z.boolean() })

/**
 * After the bot stopped: opens a session on its journal directly against the sandbox (no proxy), recovers what may be
 * in flight as a restart would, cancels every open Delta and OTC order and reconciles until all are final; then
 * compares the journal with the venue's order lists and the chains' nonces, and checks conservation to the wei.
 */
export async function checkSoakJournal({
  sandbox,
  configFile,
  keyEnv,
  privateKey,
}: {
  sandbox: RunningSandbox
  configFile: string
  keyEnv: string
  privateKey: string
}): Promise<JournalVerdict> {
  const proxied = parseConfig(readFileSync(configFile, 'utf8'), configFile)
  const config = {
    ...proxied,
    venue: { ...proxied.venue, url: sandbox.url, timeoutMs: 15_000 },
    chains: Object.fromEntries(sandbox.chains.map((chain) => [String(chain.chainId), { rpcUrls: [chain.rpcUrl] }])),
  }
  const session = await openSession({
    config,
    logger: createLogger({ level: 'silent' }),
    env: { [keyEnv]: privateKey },
    enforceMode: false,
  })
  try {
    const { journal, context } = session
    const unsubmittedAtStop = journal.openOrders().filter((order) => !order.submitted).length
    const executor = createExecutor(context)
    await executor.recover()
    const cancellable = journal.openOrders().filter((order) => order.mode !== 'market' && order.submitted)
    if (cancellable.length > 0) await executor.cancel(cancellable.map((order) => order.id))
    const { pending } = await settleOrders(session, {
      orderIds: journal.openOrders().map((order) => order.id),
      waitMs: 600_000,
      pollMs: 250,
    })
    const account = session.account.address.toLowerCase() as Address
    const orders = journal.listOrders()
    const count = (key: (order: (typeof orders)[number]) => string) => {
      const counts: Record<string, number> = {}
      for (const order of orders) counts[key(order)] = (counts[key(order)] ?? 0) + 1
      return counts
    }
    const venue = await compareWithVenue(session, account)
    const report = await checkConservation({
      journal,
      account,
      chains: new Map([...session.chains].map(([chainId, chain]) => [chainId, { publicClient: chain.publicClient }])),
    })
    return {
      account,
      orders: { total: orders.length, byMode: count((order) => order.mode), byStatus: count((order) => `${order.mode} ${order.status}`) },
      unsubmittedAtStop,
      openAfterSettle: pending.filter((order) => !isFinalStatus(order.mode, order.status)).map((order) => `${order.id} ${order.status}`),
      ...venue,
      unjournaledTransactions: await countUnjournaledTransactions(session, account),
      conservation: {
        balanced: report.balanced,
        tokens: report.tokens.map(({ chainId, token, difference, expected, actual }) => ({ chainId, token, difference, expected, actual })),
        notes: report.notes,
      },
    }
  } finally {
    await session.close()
  }
}

async function compareWithVenue(session: Session, account: Address): Promise<Pick<JournalVerdict, 'duplicates' | 'lost'>> {
  const { journal, api } = session
  const duplicates: string[] = []
  const lost: string[] = []
  const compare = (mode: 'delta' | 'otc', venueHashes: string[]) => {
    const journaled = journal.listOrders({ mode })
    const known = new Set(journaled.flatMap((order) => (order.orderHash ? [order.orderHash.toLowerCase()] : [])))
    const seen = new Set<string>()
    let duplicated = 0
    for (const hash of venueHashes) {
      if (seen.has(hash)) {
        duplicated += 1
        duplicates.push(`${mode} order ${hash} listed twice by the venue`)
      } else if (!known.has(hash)) {
        duplicated += 1
        duplicates.push(`${mode} order ${hash} at the venue is not in the journal`)
      }
      seen.add(hash)
    }
    let missing = 0
    for (const order of journaled) {
      if (!order.submitted || !order.orderHash || seen.has(order.orderHash.toLowerCase())) continue
      missing += 1
      lost.push(`${mode} order ${order.id} (${order.orderHash}) is journaled as submitted, and the venue does not have it`)
    }
    return { duplicated, missing }
  }

  const deltaHashes: string[] = []
  for (let page = 1; ; page++) {
    const list = await getDeltaOrders(api, { userAddress: account, page, limit: 1000 })
    deltaHashes.push(...list.data.map((order) => order.orderHash.toLowerCase()))
    if (!list.hasMore) break
  }
  const delta = compare('delta', deltaHashes)

  const otcHashes: string[] = []
  for (const chainId of session.chains.keys()) {
    for (let offset = 0; ; offset += 1000) {
      const response = await fetch(`${session.venue.url}/ft/p2p/${chainId}/maker/${account}?limit=1000&offset=${offset}`)
      const list = otcListSchema.parse(await response.json())
      otcHashes.push(...list.orders.map((order) => order.orderHash.toLowerCase()))
      if (!list.hasMore) break
    }
  }
  const otc = compare('otc', otcHashes)

  let market = 0
  const swapsByOrder = new Map<string, number>()
  for (const chainId of session.chains.keys()) {
    for (const transaction of journal.transactionsFrom(account, chainId)) {
      if (transaction.purpose !== 'swap' || transaction.status !== 'mined' || transaction.orderId === null) continue
      swapsByOrder.set(transaction.orderId, (swapsByOrder.get(transaction.orderId) ?? 0) + 1)
    }
  }
  for (const [orderId, swaps] of swapsByOrder) {
    if (swaps < 2) continue
    market += swaps - 1
    duplicates.push(`market order ${orderId} has ${swaps} mined swap transactions`)
  }
  return {
    duplicates: {
      delta: delta.duplicated,
      otc: otc.duplicated,
      market,
      total: delta.duplicated + otc.duplicated + market,
      details: duplicates,
    },
    lost: { delta: delta.missing, otc: otc.missing, total: delta.missing + otc.missing, details: lost },
  }
}

/** The account's nonces since the journal's first baseline on each chain, less the nonces the journal records. */
async function countUnjournaledTransactions(session: Session, account: Address): Promise<Record<number, number>> {
  const { journal } = session
  const result: Record<number, number> = {}
  for (const [chainId, { publicClient }] of session.chains) {
    const baselines = journal.balanceBaselinesOf(account).filter((baseline) => baseline.chainId === chainId)
    if (baselines.length === 0) continue
    const firstBlock = BigInt(Math.min(...baselines.map((baseline) => baseline.blockNumber)))
    const [startNonce, sent] = await Promise.all([
      publicClient.getTransactionCount({ address: account, blockNumber: firstBlock }),
      publicClient.getTransactionCount({ address: account }),
    ])
    const journaled = new Set(
      journal
        .transactionsFrom(account, chainId)
        .filter((transaction) => transaction.status !== 'dropped')
        .map((transaction) => transaction.nonce),
    )
    let missing = 0
    for (let nonce = startNonce; nonce < sent; nonce++) if (!journaled.has(nonce)) missing += 1
    result[chainId] = missing
  }
  return result
}
