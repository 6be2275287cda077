import type { Address, PublicClient } from 'viem'
import { getBlock, getLogs } from 'viem/actions'
import type { JournalFirmQuote } from '../../journal/firm-quotes.js'
import type { Journal } from '../../journal/journal.js'
import { readRfqFills, rfqOrderFilledEvent } from '../../journal/reconcile/read-rfq-fills.js'
import { type Clock, unixSeconds } from '../../time/clock.js'

export type FollowFirmQuotesParameters = {
  client: PublicClient
  chainId: number
  /** The RFQ contract of the chain: the only emitter of fills trusted. */
  rfq: Address
  maker: Address
  journal: Journal
  /** The first block not read yet. */
  fromBlock: bigint
  clock: Clock
  /**
   * A quote is taken for expired when the latest block is past its expiry, or when the clock is this many seconds past
   * it (a chain that mines no block cannot fill it either; a fill seen later still corrects the status).
   */
  expiryGraceSeconds: number
}

export type FollowFirmQuotesReturnType = {
  /** The block to read from next time. */
  nextBlock: bigint
  /** Quotes a new fill event changed. */
  filled: JournalFirmQuote[]
  /** Quotes closed by their expiry. */
  closed: JournalFirmQuote[]
}

/**
 * One pass over a chain: every RFQ `OrderFilled` event of the maker since `fromBlock` is journaled against its firm
 * quote (filled, or partially filled, with the amounts and the transaction), then open quotes past their expiry on
 * the chain's time are closed (unfilled ones become expired). Events of orders that are not firm quotes are ignored.
 */
export async function followFirmQuotes(parameters: FollowFirmQuotesParameters): Promise<FollowFirmQuotesReturnType> {
  const { client, chainId, rfq, maker, journal, fromBlock, clock } = parameters
  const latest = await getBlock(client, { blockTag: 'latest' })
  const filled: JournalFirmQuote[] = []
  if (latest.number >= fromBlock) {
    const logs = await getLogs(client, {
      address: rfq,
      event: rfqOrderFilledEvent,
      args: { maker },
      fromBlock,
      toBlock: latest.number,
      strict: true,
    })
    for (const log of logs) {
      const quote = journal.recordFirmFill({
        orderHash: log.args.orderHash,
        txHash: log.transactionHash,
        logIndex: log.logIndex,
        blockNumber: log.blockNumber,
        makerAmount: log.args.makerAmount,
        takerAmount: log.args.takerAmount,
      })
      if (quote) filled.push(quote)
    }
  }
  const chainTimeSeconds = Math.max(Number(latest.timestamp), unixSeconds(clock) - parameters.expiryGraceSeconds)
  const closed = journal.expireFirmQuotes({ chainId, chainTimeSeconds })
  return { nextBlock: latest.number + 1n, filled, closed }
}

/** At start: the fills of quotes a previous run left open, from the chain's first block (a restart loses nothing). */
export async function catchUpFirmQuotes({
  client,
  chainId,
  rfq,
  maker,
  journal,
}: Pick<FollowFirmQuotesParameters, 'client' | 'chainId' | 'rfq' | 'maker' | 'journal'>): Promise<JournalFirmQuote[]> {
  const changed: JournalFirmQuote[] = []
  for (const quote of journal.openFirmQuotes(chainId)) {
    for (const fill of await readRfqFills(client, { rfq, orderHash: quote.orderHash, maker })) {
      const updated = journal.recordFirmFill({ orderHash: quote.orderHash, ...fill })
      if (updated) changed.push(updated)
    }
  }
  return changed
}
