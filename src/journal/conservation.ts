import { type Address, type Client, erc20Abi, getAbiItem, type Hex } from 'viem'
import { getBlockNumber, getLogs, getTransactionCount } from 'viem/actions'
import { lowercaseAddress, nativeToken, readTokenBalance } from '../chain/token-flows.js'
import type { BalanceBaseline } from './balance-baselines.js'
import type { Journal } from './journal.js'
import type { JournalFill } from './order-events.js'
import type { JournalOrder } from './orders.js'
import type { JournalRefund } from './refunds.js'
import type { JournalTransaction } from './transactions.js'

/** The journal reads the check needs. */
export type ConservationJournal = Pick<Journal, 'balanceBaselinesOf' | 'listOrders' | 'fillsOf' | 'refundsOf' | 'transactionsFrom'>

export type CheckConservationParameters = {
  journal: ConservationJournal
  account: Address
  /** The chains to check; baselines on other chains are left out, with a note. */
  chains: ReadonlyMap<number, { publicClient: Client }>
  /** The block to read balances at, per chain; default the latest. Movements after it do not count. */
  blockNumbers?: ReadonlyMap<number, bigint> | undefined
}

/** A Transfer of the token into or out of the account whose transaction the journal does not know. */
export type UnrecordedTransfer = { txHash: Hex; blockNumber: bigint; logIndex: number; from: Address; to: Address; amount: bigint }

/** One baseline checked: expected = baseline − spent + received + refunded − gas. Raw units. */
export type TokenConservation = {
  chainId: number
  token: Address
  baseline: bigint
  baselineBlock: bigint
  /** The block `actual` was read at. */
  block: bigint
  /** Σ spentAmount of the account's fills of orders selling this token on this chain. */
  spent: bigint
  /** Σ receivedAmount of fills delivered here to the account as beneficiary. */
  received: bigint
  refunded: bigint
  /** Native only: Σ gasUsed × effectiveGasPrice of the account's mined and reverted transactions. */
  gas: bigint
  expected: bigint
  actual: bigint
  /** actual − expected: above 0, more reached the account than the journal records; below 0, more left it. */
  difference: bigint
  /** ERC-20 with a difference: its Transfers in the window that no journaled transaction explains. */
  unrecordedTransfers: UnrecordedTransfer[]
  /** Native with a difference: transactions the chain shows the account sent in the window that the journal lacks. */
  unrecordedTransactions: number | undefined
}

export type ConservationReport = {
  account: Address
  /** Every checked token's balance equals the journal's account of it, to the wei. */
  balanced: boolean
  tokens: TokenConservation[]
  notes: string[]
}

/**
 * The conservation check: for each balance baseline of `account` on the given chains, the baseline minus fills spent,
 * plus fills received and refunds, minus gas (native) must equal the balance on chain. Movements count when they
 * lie after the baseline's block and not after the checked block; a fill or refund whose block the journal does not
 * know counts, with a note. A mismatch names the figure and, where the chain can tell, the unrecorded movement.
 */
export async function checkConservation({
  journal,
  account,
  chains,
  blockNumbers,
}: CheckConservationParameters): Promise<ConservationReport> {
  const owner = lowercaseAddress(account)
  const baselines = journal.balanceBaselinesOf(owner)
  const chainIds = [...new Set(baselines.map((baseline) => baseline.chainId))]
  const records = readJournalRecords(journal, owner, chainIds)
  const { movements, undelivered } = listJournalMovements(owner, records)
  const notes = describeJournalGaps(records, movements, undelivered, baselines)
  if (baselines.length === 0) notes.push(`the journal holds no balance baseline of ${owner}: nothing to check`)

  const knownTxHashes = collectTxHashes(records)
  const checked = await Promise.all(
    chainIds.map(async (chainId) => {
      const client = chains.get(chainId)?.publicClient
      const ofChain = baselines.filter((baseline) => baseline.chainId === chainId)
      if (!client) {
        return { tokens: [], notes: [`chain ${chainId} has baselines (${ofChain.length}) but no client was given: not checked`] }
      }
      const block = blockNumbers?.get(chainId) ?? (await getBlockNumber(client, { cacheTime: 0 }))
      const results = await Promise.all(
        ofChain.map((baseline) => checkBaseline(client, { account: owner, baseline, block, movements, records, knownTxHashes })),
      )
      return { tokens: results.flatMap((result) => result.token ?? []), notes: results.flatMap((result) => result.notes) }
    }),
  )
  const tokens = checked.flatMap((chain) => chain.tokens)
  return {
    account: owner,
    balanced: tokens.every((token) => token.difference === 0n),
    tokens,
    notes: [...notes, ...checked.flatMap((chain) => chain.notes)],
  }
}

/** What the journal holds about the account: its orders as signer or beneficiary, their fills and refunds, its transactions. */
export type JournalRecords = {
  orders: readonly JournalOrder[]
  fills: ReadonlyMap<string, readonly JournalFill[]>
  refunds: ReadonlyMap<string, readonly JournalRefund[]>
  transactions: readonly JournalTransaction[]
}

/** Reads the records through the journal's public functions (every order once, then fills and refunds per order of the account). */
export function readJournalRecords(journal: ConservationJournal, account: Address, chainIds: readonly number[]): JournalRecords {
  account = lowercaseAddress(account)
  const orders = journal.listOrders().filter((order) => order.account === account || order.beneficiary === account)
  return {
    orders,
    fills: new Map(orders.map((order) => [order.id, journal.fillsOf(order.id)])),
    refunds: new Map(orders.map((order) => [order.id, order.account === account ? journal.refundsOf(order.id) : []])),
    transactions: chainIds.flatMap((chainId) => journal.transactionsFrom(account, chainId)),
  }
}

export type JournalMovement = {
  kind: 'spent' | 'received' | 'refunded' | 'gas'
  chainId: number
  token: Address
  amount: bigint
  /** Its block on `chainId`; undefined when the journal does not know it. */
  blockNumber: bigint | undefined
  txHash: string
  /** The record it comes from, for notes. */
  record: string
}

/**
 * Every change of the account's balances the journal records (pure): fills spent on the order's chain, fills received
 * on the delivery chain, refunds, and gas of mined and reverted transactions. A crosschain fill whose delivery is not
 * recorded is `undelivered`: its output has not reached the account yet, or the journal missed the delivery.
 */
export function listJournalMovements(
  account: Address,
  records: JournalRecords,
): { movements: JournalMovement[]; undelivered: JournalMovement[] } {
  account = lowercaseAddress(account)
  const movements: JournalMovement[] = []
  const undelivered: JournalMovement[] = []
  for (const order of records.orders) {
    for (const fill of records.fills.get(order.id) ?? []) {
      const record = `fill ${fill.txHash}${fill.logIndex === null ? '' : `#${fill.logIndex}`} of order ${order.id}`
      const fillBlock = fill.blockNumber === null ? undefined : BigInt(fill.blockNumber)
      if (order.account === account) {
        movements.push({
          kind: 'spent',
          chainId: order.chainId,
          token: lowercaseAddress(order.srcToken),
          amount: fill.spentAmount,
          blockNumber: fillBlock,
          txHash: fill.txHash,
          record,
        })
      }
      if (order.beneficiary !== account) continue
      const deliveryChainId = fill.destinationChainId ?? order.destChainId
      const crosschain = deliveryChainId !== order.chainId
      const movement: JournalMovement = {
        kind: 'received',
        chainId: deliveryChainId,
        token: lowercaseAddress(order.destToken),
        amount: fill.receivedAmount,
        // The fill's block is on the source chain; a crosschain delivery's block is not journaled.
        blockNumber: crosschain ? undefined : fillBlock,
        txHash: fill.destinationTxHash ?? fill.txHash,
        record,
      }
      if (crosschain && fill.destinationTxHash === null) undelivered.push(movement)
      else movements.push(movement)
    }
    // A refund returns the source token to the signer.
    for (const refund of order.account === account ? (records.refunds.get(order.id) ?? []) : []) {
      movements.push({
        kind: 'refunded',
        chainId: refund.chainId,
        token: lowercaseAddress(refund.token),
        amount: refund.amount,
        blockNumber: undefined,
        txHash: refund.txHash,
        record: `refund ${refund.txHash} of order ${order.id}`,
      })
    }
  }
  for (const transaction of records.transactions) {
    if (transaction.from !== account || transaction.gasUsed === null || transaction.effectiveGasPrice === null) continue
    if (transaction.status !== 'mined' && transaction.status !== 'reverted') continue
    movements.push({
      kind: 'gas',
      chainId: transaction.chainId,
      token: nativeToken,
      amount: transaction.gasUsed * transaction.effectiveGasPrice,
      blockNumber: transaction.blockNumber === null ? undefined : BigInt(transaction.blockNumber),
      txHash: transaction.txHash,
      record: `${transaction.purpose} transaction ${transaction.txHash}`,
    })
  }
  return { movements, undelivered }
}

export type MovementSums = {
  spent: bigint
  received: bigint
  refunded: bigint
  gas: bigint
  /** Counted without a known block. */
  withoutBlock: JournalMovement[]
}

/** Sums the movements of one chain and token in blocks (afterBlock, atBlock]; those without a block count (pure). */
export function sumMovements(
  movements: readonly JournalMovement[],
  { chainId, token, afterBlock, atBlock }: { chainId: number; token: Address; afterBlock: bigint; atBlock: bigint },
): MovementSums {
  const sums: MovementSums = { spent: 0n, received: 0n, refunded: 0n, gas: 0n, withoutBlock: [] }
  for (const movement of movements) {
    if (movement.chainId !== chainId || movement.token !== token) continue
    if (movement.blockNumber === undefined) sums.withoutBlock.push(movement)
    else if (movement.blockNumber <= afterBlock || movement.blockNumber > atBlock) continue
    sums[movement.kind] += movement.amount
  }
  return sums
}

type CheckBaselineContext = {
  account: Address
  baseline: BalanceBaseline
  block: bigint
  movements: readonly JournalMovement[]
  records: JournalRecords
  knownTxHashes: ReadonlySet<string>
}

async function checkBaseline(
  client: Client,
  { account, baseline, block, movements, records, knownTxHashes }: CheckBaselineContext,
): Promise<{ token?: TokenConservation; notes: string[] }> {
  const token = lowercaseAddress(baseline.token)
  const baselineBlock = BigInt(baseline.blockNumber)
  const where = `chain ${baseline.chainId} token ${token}`
  if (baselineBlock > block) {
    return { notes: [`${where}: baseline recorded at block ${baselineBlock}, after the checked block ${block}: not checked`] }
  }
  const sums = sumMovements(movements, { chainId: baseline.chainId, token, afterBlock: baselineBlock, atBlock: block })
  const expected = baseline.amount - sums.spent + sums.received + sums.refunded - sums.gas
  const actual = await readTokenBalance(client, account, token, block)
  const difference = actual - expected
  const entry: TokenConservation = {
    chainId: baseline.chainId,
    token,
    baseline: baseline.amount,
    baselineBlock,
    block,
    spent: sums.spent,
    received: sums.received,
    refunded: sums.refunded,
    gas: sums.gas,
    expected,
    actual,
    difference,
    unrecordedTransfers: [],
    unrecordedTransactions: undefined,
  }
  const notes: string[] = []
  if (sums.withoutBlock.length > 0) {
    notes.push(
      `${where}: counted ${sums.withoutBlock.length} record(s) whose block the journal does not know, as if after the baseline and by block ${block}: ${sums.withoutBlock.map((movement) => movement.record).join('; ')}`,
    )
  }
  if (difference === 0n) return { token: entry, notes }

  notes.push(describeMismatch(entry))
  const window = { fromBlock: baselineBlock + 1n, toBlock: block }
  if (token === nativeToken) {
    entry.unrecordedTransactions = await countUnrecordedTransactions(client, account, baseline.chainId, window, records.transactions)
    if (entry.unrecordedTransactions > 0) {
      notes.push(
        `${where}: the chain shows ${entry.unrecordedTransactions} transaction(s) sent by ${account} in blocks ${window.fromBlock}..${window.toBlock} that the journal does not record as mined or reverted; their gas and value are not in expected`,
      )
    }
  } else {
    try {
      entry.unrecordedTransfers = await findUnrecordedTransfers(client, { token, account, ...window, knownTxHashes })
    } catch (error) {
      notes.push(`${where}: could not list Transfer logs in blocks ${window.fromBlock}..${window.toBlock}: ${firstLine(error)}`)
    }
    for (const transfer of entry.unrecordedTransfers) {
      const direction = transfer.to === account ? `in from ${transfer.from}` : `out to ${transfer.to}`
      notes.push(
        `${where}: transfer ${direction} of ${transfer.amount} in ${transfer.txHash} (block ${transfer.blockNumber}) is not in the journal`,
      )
    }
  }
  return { token: entry, notes }
}

function describeMismatch(entry: TokenConservation): string {
  const where = `chain ${entry.chainId} token ${entry.token}`
  const sum =
    `baseline ${entry.baseline} (block ${entry.baselineBlock}) − spent ${entry.spent} + received ${entry.received} + refunded ` +
    `${entry.refunded} − gas ${entry.gas} = expected ${entry.expected}; balance at block ${entry.block} is ${entry.actual}`
  if (entry.difference > 0n) {
    return `${where}: ${entry.difference} raw units more than the journal accounts for (${sum}). Look for what reached the account unrecorded: a fill's receivedAmount, a refund, a transfer from outside deltaflow.`
  }
  return `${where}: ${-entry.difference} raw units less than the journal accounts for (${sum}). Look for what left the account unrecorded: a fill's spentAmount, a transaction's gas or value, a transfer out.`
}

/** Notes on records the check cannot use: crosschain fills not delivered, receipts not recorded, tokens without a baseline. */
function describeJournalGaps(
  records: JournalRecords,
  movements: readonly JournalMovement[],
  undelivered: readonly JournalMovement[],
  baselines: readonly BalanceBaseline[],
): string[] {
  const notes = undelivered.map(
    (movement) =>
      `${movement.record}: ${movement.amount} of ${movement.token} for chain ${movement.chainId} has no recorded delivery; not counted`,
  )
  for (const transaction of records.transactions) {
    if (transaction.status === 'sent') {
      notes.push(`transaction ${transaction.txHash} on chain ${transaction.chainId} has no recorded receipt; its gas is not counted`)
    } else if (transaction.status === 'mined' && transaction.purpose !== 'swap' && transaction.value > 0n) {
      notes.push(
        `${transaction.purpose} transaction ${transaction.txHash} on chain ${transaction.chainId} sent ${transaction.value} wei of value that no fill records`,
      )
    }
  }
  const withBaseline = new Set(baselines.map((baseline) => `${baseline.chainId}:${baseline.token}`))
  const missing = new Set(movements.map((movement) => `${movement.chainId}:${movement.token}`).filter((key) => !withBaseline.has(key)))
  for (const key of missing) {
    const [chainId, token] = key.split(':')
    notes.push(`chain ${chainId} token ${token}: the journal records movements but no balance baseline; not checked`)
  }
  return notes
}

function collectTxHashes(records: JournalRecords): Set<string> {
  const hashes = new Set<string>(records.transactions.map((transaction) => transaction.txHash))
  for (const fills of records.fills.values()) {
    for (const fill of fills) {
      hashes.add(fill.txHash)
      if (fill.destinationTxHash !== null) hashes.add(fill.destinationTxHash)
    }
  }
  for (const refunds of records.refunds.values()) for (const refund of refunds) hashes.add(refund.txHash)
  return hashes
}

const transferEvent = getAbiItem({ abi: erc20Abi, name: 'Transfer' })

async function findUnrecordedTransfers(
  client: Client,
  parameters: { token: Address; account: Address; fromBlock: bigint; toBlock: bigint; knownTxHashes: ReadonlySet<string> },
): Promise<UnrecordedTransfer[]> {
  const { token, account, fromBlock, toBlock, knownTxHashes } = parameters
  const range = { address: token, event: transferEvent, fromBlock, toBlock, strict: true } as const
  const [out, into] = await Promise.all([
    getLogs(client, { ...range, args: { from: account } }),
    getLogs(client, { ...range, args: { to: account } }),
  ])
  const found = new Map<string, UnrecordedTransfer>()
  for (const log of [...out, ...into]) {
    if (knownTxHashes.has(log.transactionHash.toLowerCase())) continue
    found.set(`${log.transactionHash}:${log.logIndex}`, {
      txHash: log.transactionHash,
      blockNumber: log.blockNumber,
      logIndex: log.logIndex,
      from: lowercaseAddress(log.args.from),
      to: lowercaseAddress(log.args.to),
      amount: log.args.value,
    })
  }
  return [...found.values()].sort((a, b) =>
    a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1,
  )
}

/** Transactions the account's nonce says it sent in the window, minus those the journal records as mined or reverted there. */
async function countUnrecordedTransactions(
  client: Client,
  account: Address,
  chainId: number,
  { fromBlock, toBlock }: { fromBlock: bigint; toBlock: bigint },
  transactions: readonly JournalTransaction[],
): Promise<number> {
  const [nonceBefore, nonceAfter] = await Promise.all([
    getTransactionCount(client, { address: account, blockNumber: fromBlock - 1n }),
    getTransactionCount(client, { address: account, blockNumber: toBlock }),
  ])
  const journaled = transactions.filter(
    (transaction) =>
      transaction.chainId === chainId &&
      (transaction.status === 'mined' || transaction.status === 'reverted') &&
      transaction.blockNumber !== null &&
      BigInt(transaction.blockNumber) >= fromBlock &&
      BigInt(transaction.blockNumber) <= toBlock,
  ).length
  return nonceAfter - nonceBefore - journaled
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? ''
}
