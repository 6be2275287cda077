import {
  type Abi,
  type Address,
  type Chain,
  type Client,
  type Hex,
  isAddressEqual,
  keccak256,
  type LocalAccount,
  type TransactionReceipt,
  type Transport,
} from 'viem'
import {
  call,
  estimateFeesPerGas,
  estimateGas,
  getBlock,
  getGasPrice,
  getTransactionCount,
  sendRawTransaction,
  waitForTransactionReceipt,
} from 'viem/actions'
import type { Logger } from '../log/logger.js'
import { type Clock, systemClock } from '../time/clock.js'
import { isTransportFailure } from './read-optional.js'
import { formatRevertReason, revertDataOf, revertReasonOf } from './revert-reason.js'
import {
  EnvelopeMismatchError,
  GasEstimationError,
  TransactionReceiptTimeoutError,
  TransactionRevertedError,
  TransactionSendError,
} from './transaction-errors.js'

export type TransactionRequest = {
  to: Address
  data?: Hex | undefined
  /** Wei. */
  value?: bigint | undefined
  /** The API envelope's `gas`: used with the fallback margin when the RPC cannot estimate. */
  fallbackGas?: bigint | undefined
  /** When the request comes from an envelope: its `from` and `chainId`, checked against the queue's. */
  from?: Address | undefined
  chainId?: number | undefined
  /** Custom errors that may explain a revert. */
  abi?: Abi | undefined
  /** What the transaction does, for logs and errors (e.g. "approve USDT to Delta"). */
  label?: string | undefined
  /** What it is for, handed to `beforeBroadcast` (approvals sent by an approval plan say `approve`). */
  purpose?: 'swap' | 'approve' | 'cancel' | 'wrap' | 'other' | undefined
  /** Replaces the queue's `beforeBroadcast` for this transaction (e.g. to journal it together with its order). */
  beforeBroadcast?: ((transaction: SignedTransaction) => void | Promise<void>) | undefined
}

/** A transaction signed and about to be broadcast: what a journal writes down before the node sees it. */
export type SignedTransaction = {
  hash: Hex
  chainId: number
  from: Address
  to: Address
  nonce: number
  value: bigint
  data: Hex
  serializedTransaction: Hex
}

export type SentTransaction = {
  hash: Hex
  nonce: number
  gas: bigint
  /** Where the gas limit came from. */
  gasSource: 'estimate' | 'fallback'
  receipt: TransactionReceipt
  /** Clock time the node accepted the transaction. */
  submittedAt: number
}

export type TransactionQueue = {
  readonly account: Address
  /** Signs, sends and waits for the receipt; throws TransactionRevertedError for a revert. */
  send: (request: TransactionRequest) => Promise<SentTransaction>
}

export type CreateTransactionQueueParameters = {
  /** A client with its chain (createChainClients gives one per chain). */
  client: Client<Transport, Chain>
  /** A local account (private key or keystore): the queue signs itself and sends raw transactions. */
  account: LocalAccount
  clock?: Clock | undefined
  logger?: Logger | undefined
  /** Percent added to the fallback gas when the RPC cannot estimate: 15 to 25 (API section 7). Default 20. */
  fallbackGasMarginPercent?: number | undefined
  /** Default 120 s. */
  receiptTimeoutMs?: number | undefined
  /**
   * Called with every signed transaction before it is broadcast (write-ahead: a crash after this call leaves a record
   * of a transaction that may or may not have reached the node, never the reverse). A throw cancels the broadcast.
   */
  beforeBroadcast?: ((transaction: SignedTransaction, request: TransactionRequest) => void | Promise<void>) | undefined
}

/** Added to every estimate beside its 20 %: one storage slot set from zero, with room to spare. */
const estimateHeadroomGas = 25_000n

/**
 * The one sender for an account on a chain. Sends are serialised and take consecutive nonces tracked locally, so
 * concurrent callers never race for a nonce or leave a gap; when the node refuses a send, the next nonce is re-read
 * from the chain's pending count (and a refusal for a stale nonce is retried once with it). Gas comes from
 * eth_estimateGas plus 20 % and 25,000, else from the request's fallback gas plus the margin; fees are EIP-1559 when the latest block has
 * a base fee, legacy gasPrice otherwise. Receipts are awaited outside the queue, so sends pipeline.
 */
export function createTransactionQueue(parameters: CreateTransactionQueueParameters): TransactionQueue {
  const { client, account, clock = systemClock, logger, receiptTimeoutMs = 120_000, beforeBroadcast } = parameters
  const margin = parameters.fallbackGasMarginPercent ?? 20
  if (!(margin >= 15 && margin <= 25)) throw new RangeError(`fallbackGasMarginPercent must be between 15 and 25, received ${margin}`)
  let nextNonce: number | undefined
  let supportsEip1559: boolean | undefined
  const chainId = client.chain.id
  let tail: Promise<unknown> = Promise.resolve()

  const exclusive = <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task, task)
    tail = run.catch(() => undefined)
    return run
  }

  const submit = async (request: TransactionRequest) => {
    checkEnvelope(request, account.address, chainId)
    const facts = { chainId, from: account.address, to: request.to, label: request.label }
    const { gas, gasSource } = await gasFor(request, facts)
    const fees = await feesFor()
    for (let attempt = 1; ; attempt++) {
      const nonce = nextNonce ?? (await getTransactionCount(client, { address: account.address, blockTag: 'pending' }))
      const serializedTransaction = await account.signTransaction({
        chainId,
        nonce,
        to: request.to,
        data: request.data,
        value: request.value ?? 0n,
        gas,
        ...fees,
      })
      const hook = request.beforeBroadcast ?? (beforeBroadcast && ((signed: SignedTransaction) => beforeBroadcast(signed, request)))
      if (hook) {
        const signed: SignedTransaction = {
          hash: keccak256(serializedTransaction),
          chainId,
          from: account.address,
          to: request.to,
          nonce,
          value: request.value ?? 0n,
          data: request.data ?? '0x',
          serializedTransaction,
        }
        await hook(signed)
      }
      try {
        const hash = await sendRawTransaction(client, { serializedTransaction })
        nextNonce = nonce + 1
        logger?.info({ ...facts, hash, nonce, gas: gas.toString(), gasSource }, 'transaction sent')
        return { hash, nonce, gas, gasSource, submittedAt: clock.now(), facts }
      } catch (cause) {
        nextNonce = undefined
        if (attempt === 1 && isNonceRefusal(cause)) continue
        throw new TransactionSendError({ ...facts, nonce, cause, errorClass: isTransportFailure(cause) ? 'retryable' : 'operational' })
      }
    }
  }

  const gasFor = async (
    request: TransactionRequest,
    facts: { chainId: number; from: Address; to: Address; label?: string | undefined },
  ) => {
    try {
      const estimate = await estimateGas(client, { account: account.address, to: request.to, data: request.data, value: request.value })
      // Headroom for state that changes between the estimate and inclusion: an agent's fill can take an allowance or a
      // balance to zero, and setting it again costs a fresh storage slot (≈ 20,000 gas). Only gas used is paid.
      return { gas: estimate + estimate / 5n + estimateHeadroomGas, gasSource: 'estimate' as const }
    } catch (cause) {
      if (request.fallbackGas !== undefined) {
        logger?.warn({ ...facts, fallbackGas: request.fallbackGas.toString() }, 'gas estimate failed; using the fallback gas plus margin')
        return { gas: (request.fallbackGas * BigInt(Math.round((100 + margin) * 100))) / 10_000n, gasSource: 'fallback' as const }
      }
      const reason = isTransportFailure(cause) ? undefined : revertReasonOf(cause, request.abi)
      if (reason !== undefined) throw new TransactionRevertedError({ ...facts, reason, stage: 'estimate', cause })
      throw new GasEstimationError({ ...facts, cause, errorClass: isTransportFailure(cause) ? 'retryable' : 'operational' })
    }
  }

  const feesFor = async () => {
    if (supportsEip1559 === undefined) {
      const block = await getBlock(client, { blockTag: 'latest' })
      supportsEip1559 = typeof block.baseFeePerGas === 'bigint'
    }
    if (supportsEip1559) {
      const { maxFeePerGas, maxPriorityFeePerGas } = await estimateFeesPerGas(client, { type: 'eip1559' })
      return { type: 'eip1559' as const, maxFeePerGas, maxPriorityFeePerGas }
    }
    return { type: 'legacy' as const, gasPrice: await getGasPrice(client) }
  }

  const send = async (request: TransactionRequest): Promise<SentTransaction> => {
    const { facts, ...sent } = await exclusive(() => submit(request))
    let receipt: TransactionReceipt
    try {
      receipt = await waitForTransactionReceipt(client, { hash: sent.hash, timeout: receiptTimeoutMs })
    } catch (cause) {
      throw new TransactionReceiptTimeoutError({ ...facts, hash: sent.hash, timeoutMs: receiptTimeoutMs, cause })
    }
    if (receipt.status === 'reverted') {
      const reason = await replayRevertReason(client, request, { from: account.address, gas: sent.gas }, receipt)
      logger?.warn({ ...facts, hash: sent.hash, reason }, 'transaction reverted')
      throw new TransactionRevertedError({ ...facts, hash: sent.hash, reason, stage: 'onChain' })
    }
    return { ...sent, receipt }
  }

  return { account: account.address, send }
}

/** Replays a reverted transaction as a call on the state before its block, to read the reason the receipt omits. */
async function replayRevertReason(
  client: Client,
  request: TransactionRequest,
  { from, gas }: { from: Address; gas: bigint },
  receipt: TransactionReceipt,
): Promise<string> {
  try {
    await call(client, {
      account: from,
      to: request.to,
      data: request.data,
      value: request.value,
      gas,
      blockNumber: receipt.blockNumber - 1n,
    })
    // The state before the block is not the state before the transaction when the block holds earlier ones.
    return receipt.gasUsed >= gas ? 'out of gas' : 'no revert reason given (the replay did not revert)'
  } catch (error) {
    return formatRevertReason(revertDataOf(error), request.abi)
  }
}

function checkEnvelope(request: TransactionRequest, account: Address, chainId: number): void {
  if (request.chainId !== undefined && request.chainId !== chainId) {
    throw new EnvelopeMismatchError({ field: 'chainId', expected: String(chainId), received: String(request.chainId), account, chainId })
  }
  if (request.from !== undefined && !isAddressEqual(request.from, account)) {
    throw new EnvelopeMismatchError({ field: 'from', expected: account, received: request.from, account, chainId })
  }
}

/** The node's own words sit in the innermost cause, often a plain `{ code, message }` object. */
function isNonceRefusal(error: unknown): boolean {
  for (let current: unknown = error; typeof current === 'object' && current !== null; current = (current as { cause?: unknown }).cause) {
    const message = (current as { message?: unknown }).message
    if (typeof message === 'string' && /nonce too low|nonce too high|invalid nonce|replacement transaction underpriced/i.test(message))
      return true
    if ((current as { cause?: unknown }).cause === current) break
  }
  return false
}
