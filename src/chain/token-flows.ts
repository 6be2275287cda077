import { type Address, type Client, erc20Abi, type Hex, InvalidAddressError, isAddress, parseEventLogs } from 'viem'
import { getBalance, getTransaction, getTransactionCount, getTransactionReceipt, readContract } from 'viem/actions'
import { z } from 'zod'
import { nativeTokenPlaceholder } from '../protocol/addresses.js'

/** The native asset as the flow maps and the journal key it: the placeholder, lowercase. */
export const nativeToken: Address = lowercaseAddress(nativeTokenPlaceholder)

/** One ERC-20 Transfer log. Addresses lowercase. */
export type TokenMovement = { token: Address; from: Address; to: Address; amount: bigint; logIndex: number }

/** What one mined transaction moved, read from its receipt. */
export type TransactionFlows = {
  txHash: Hex
  blockNumber: bigint
  status: 'success' | 'reverted'
  from: Address
  /** null for a contract creation. */
  to: Address | null
  /** Native value sent; it only left `from` when the transaction succeeded. */
  value: bigint
  gasUsed: bigint
  effectiveGasPrice: bigint
  /** OP-stack chains charge the sender an L1 data fee on top of the gas; 0 elsewhere. */
  l1Fee: bigint
  /** What `from` paid for the transaction: gasUsed × effectiveGasPrice + l1Fee. */
  gasCost: bigint
  /** Every ERC-20 Transfer log of the transaction, in log order (none when it reverted). */
  transfers: TokenMovement[]
}

// viem formats `l1Fee` only for chains it knows as OP-stack; other chains keep the RPC's hex quantity.
const l1FeeSchema = z.object({
  l1Fee: z
    .union([z.bigint(), z.string().regex(/^0x[0-9a-fA-F]+$/)])
    .nullish()
    .transform((fee) => (fee === null || fee === undefined ? 0n : BigInt(fee))),
})

/** Reads the receipt and the transaction of a mined `txHash`; throws viem's TransactionReceiptNotFoundError when unmined. */
export async function readTransactionFlows(client: Client, txHash: Hex): Promise<TransactionFlows> {
  const [receipt, transaction] = await Promise.all([
    getTransactionReceipt(client, { hash: txHash }),
    getTransaction(client, { hash: txHash }),
  ])
  // A Transfer log that does not decode as ERC-20 (ERC-721 indexes its third argument) is skipped.
  const transfers = parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs }).map((log) => ({
    token: lowercaseAddress(log.address),
    from: lowercaseAddress(log.args.from),
    to: lowercaseAddress(log.args.to),
    amount: log.args.value,
    logIndex: log.logIndex,
  }))
  const { l1Fee } = l1FeeSchema.parse(receipt)
  return {
    txHash: receipt.transactionHash,
    blockNumber: receipt.blockNumber,
    status: receipt.status,
    from: lowercaseAddress(receipt.from),
    to: receipt.to === null ? null : lowercaseAddress(receipt.to),
    value: transaction.value,
    gasUsed: receipt.gasUsed,
    effectiveGasPrice: receipt.effectiveGasPrice,
    l1Fee,
    gasCost: receipt.gasUsed * receipt.effectiveGasPrice + l1Fee,
    transfers,
  }
}

/** A per-token sum, with the log index of its first Transfer (undefined for native). */
export type TokenTotal = { amount: bigint; firstLogIndex: number | undefined }

/** Per token (lowercase address; native under `nativeToken`). */
export type TokenTotals = ReadonlyMap<Address, TokenTotal>

export type AccountFlows = {
  account: Address
  /** What left the account: its ERC-20 Transfers out, and native the value of a successful transaction it sent. */
  spent: TokenTotals
  /** What reached it: its ERC-20 Transfers in, and native `nativeIn` when measured and not zero. */
  received: TokenTotals
  /** Native the transaction delivered to the account, internal calls included; undefined when not measured or not measurable. */
  nativeIn: bigint | undefined
  /** What the account paid for the transaction: its gasCost when it sent it, else 0. */
  gasCost: bigint
}

export type ReadAccountFlowsOptions = {
  /** Measure native received from the balance change across the block (4 RPC reads). Default true. */
  measureNativeIn?: boolean
}

/**
 * Sums what one transaction moved for `account`: ERC-20 from the Transfer logs, native out from the transaction value,
 * native in from the balance change across the block (see `measureNativeIn`).
 */
export async function readAccountFlows(
  client: Client,
  flows: TransactionFlows,
  account: Address,
  { measureNativeIn: measure = true }: ReadAccountFlowsOptions = {},
): Promise<AccountFlows> {
  const { spent, received } = sumAccountTransfers(flows, account)
  const nativeIn = measure ? await measureNativeIn(client, flows, account) : undefined
  if (nativeIn !== undefined && nativeIn > 0n) received.set(nativeToken, { amount: nativeIn, firstLogIndex: undefined })
  const owner = lowercaseAddress(account)
  return { account: owner, spent, received, nativeIn, gasCost: owner === flows.from ? flows.gasCost : 0n }
}

/** The ERC-20 Transfers out of and into `account`, per token, and the native value it sent (no RPC). */
export function sumAccountTransfers(
  flows: TransactionFlows,
  account: Address,
): { spent: Map<Address, TokenTotal>; received: Map<Address, TokenTotal> } {
  const owner = lowercaseAddress(account)
  const spent = new Map<Address, TokenTotal>()
  const received = new Map<Address, TokenTotal>()
  if (flows.from === owner && flows.status === 'success' && flows.value > 0n) {
    spent.set(nativeToken, { amount: flows.value, firstLogIndex: undefined })
  }
  for (const transfer of flows.transfers) {
    if (transfer.from === owner) addTo(spent, transfer)
    if (transfer.to === owner) addTo(received, transfer)
  }
  return { spent, received }
}

/**
 * Native the transaction delivered to `account`: its balance change across the block, plus what it paid (gas and a
 * successful transaction's value) when it is the sender. Defined only when the account's nonce shows this was the only
 * transaction it sent in the block (none, when it is not the sender). Assumes an externally owned account that is
 * neither the block's fee recipient nor a withdrawal address; native sent to it by other transactions of the same
 * block would be counted too (only a trace could tell them apart). Needs state at the previous block (an archive
 * node for old blocks).
 */
export async function measureNativeIn(client: Client, flows: TransactionFlows, account: Address): Promise<bigint | undefined> {
  if (flows.blockNumber === 0n) return undefined
  const address = lowercaseAddress(account)
  const before = flows.blockNumber - 1n
  const [balanceBefore, balanceAfter, nonceBefore, nonceAfter] = await Promise.all([
    getBalance(client, { address, blockNumber: before }),
    getBalance(client, { address, blockNumber: flows.blockNumber }),
    getTransactionCount(client, { address, blockNumber: before }),
    getTransactionCount(client, { address, blockNumber: flows.blockNumber }),
  ])
  const isSender = address === flows.from
  if (nonceAfter - nonceBefore !== (isSender ? 1 : 0)) return undefined
  const paid = isSender ? flows.gasCost + (flows.status === 'success' ? flows.value : 0n) : 0n
  const nativeIn = balanceAfter - balanceBefore + paid
  // Below zero, something this function does not model moved native (a delegated EOA, a fee recipient).
  return nativeIn < 0n ? undefined : nativeIn
}

/** An address in lowercase, the form the journal and the flow maps use; throws viem's InvalidAddressError otherwise. */
export function lowercaseAddress(value: string): Address {
  const lower = value.toLowerCase()
  if (!isAddress(lower, { strict: false })) throw new InvalidAddressError({ address: value })
  return lower
}

function addTo(totals: Map<Address, TokenTotal>, transfer: TokenMovement): void {
  const seen = totals.get(transfer.token)
  totals.set(transfer.token, {
    amount: (seen?.amount ?? 0n) + transfer.amount,
    firstLogIndex: seen?.firstLogIndex ?? transfer.logIndex,
  })
}

/** The account's balance of a token (native under `nativeToken` or the placeholder, any case) at a block. */
export function readTokenBalance(client: Client, account: Address, token: Address, blockNumber: bigint): Promise<bigint> {
  if (token.toLowerCase() === nativeToken) return getBalance(client, { address: account, blockNumber })
  return readContract(client, { address: token, abi: erc20Abi, functionName: 'balanceOf', args: [account], blockNumber })
}
