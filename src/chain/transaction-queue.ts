import {
  type Abi,
  type Address,
  type Chain,
  type Client,
  type Hex,
  isAddressEqual,
  keccak256,
  type LocalAccount,
  TransactionNotFoundError,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
  type Transport,
} from 'viem'
import {
  call,
  estimateFeesPerGas,
  estimateGas,
  getBlock,
  getGasPrice,
  getTransaction,
  getTransactionCount,
  getTransactionReceipt,
  sendRawTransaction,
} from 'viem/actions'
import type { Logger } from '../log/logger.js'
import { type Clock, systemClock } from '../time/clock.js'
import { isTransportFailure } from './read-optional.js'
import { formatRevertReason, revertDataOf, revertReasonOf } from './revert-reason.js'
import {
  EnvelopeMismatchError,
  GasEstimationError,
  TransactionDroppedError,
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
  /** Replaces the queue's `afterNonceRefusal` for this transaction. */
  afterNonceRefusal?: ((transaction: SignedTransaction, reason: string) => void | Promise<void>) | undefined
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
  /**
   * Called with a broadcast transaction the node refused for its nonce (another sender took it in the meantime), before
   * the request is signed again with the next free nonce: the refused bytes never reached a mempool and can never be
   * mined (a journal marks them dropped). A throw cancels the second signature.
   */
  afterNonceRefusal?: ((transaction: SignedTransaction, reason: string, request: TransactionRequest) => void | Promise<void>) | undefined
}

/** Added to every estimate beside its 20 %: one storage slot set from zero, with room to spare. */
const estimateHeadroomGas = 25_000n

/**
 * The one sender for an account on a chain. Sends are serialised and take consecutive nonces tracked locally, so
 * concurrent callers never race for a nonce or leave a gap; each send also reads the chain's pending count and takes it
 * when it is ahead (another process sent with the same key), and a refusal for a nonce taken in between is signed again
 * once with the next free one. Gas comes from eth_estimateGas plus 20 % and 25,000, else from the request's fallback
 * gas plus the margin; fees are EIP-1559 when the latest block has a base fee, legacy gasPrice otherwise. Receipts are
 * awaited outside the queue, so sends pipeline; while one is awaited, a transaction the node forgot is broadcast again
 * as signed, and one whose nonce went to another transaction ends in TransactionDroppedError.
 */
export function createTransactionQueue(parameters: CreateTransactionQueueParameters): TransactionQueue {
  const { client, account, clock = systemClock, logger, receiptTimeoutMs = 120_000, beforeBroadcast, afterNonceRefusal } = parameters
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
      const nonce = await nextFreeNonce(facts)
      const serializedTransaction = await account.signTransaction({
        chainId,
        nonce,
        to: request.to,
        data: request.data,
        value: request.value ?? 0n,
        gas,
        ...fees,
      })
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
      if (request.beforeBroadcast) await request.beforeBroadcast(signed)
      else await beforeBroadcast?.(signed, request)
      try {
        const hash = await sendRawTransaction(client, { serializedTransaction })
        nextNonce = nonce + 1
        logger?.info({ ...facts, hash, nonce, gas: gas.toString(), gasSource }, 'transaction sent')
        return { hash, nonce, gas, gasSource, submittedAt: clock.now(), facts, serializedTransaction }
      } catch (cause) {
        nextNonce = undefined
        const refusal = nonceRefusalOf(cause)
        if (attempt === 1 && refusal !== undefined) {
          logger?.warn({ ...facts, hash: signed.hash, nonce, refusal }, 'the node refused the nonce; signing again with the next free one')
          if (request.afterNonceRefusal) await request.afterNonceRefusal(signed, refusal)
          else await afterNonceRefusal?.(signed, refusal, request)
          continue
        }
        throw new TransactionSendError({ ...facts, nonce, cause, errorClass: isTransportFailure(cause) ? 'retryable' : 'operational' })
      }
    }
  }

  /**
   * The local count, unless the chain's pending count is ahead of it: then another sender used this key, and its
   * transactions (mined or waiting in the mempool) hold the nonces up to there.
   */
  const nextFreeNonce = async (facts: TransactionFacts): Promise<number> => {
    const pending = await getTransactionCount(client, { address: account.address, blockTag: 'pending' })
    if (nextNonce === undefined) return pending
    if (pending > nextNonce) {
      logger?.warn({ ...facts, expected: nextNonce, pending }, 'another sender used this account’s nonces; taking the next free one')
      return pending
    }
    return nextNonce
  }

  const gasFor = async (request: TransactionRequest, facts: TransactionFacts) => {
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
    const { facts, serializedTransaction, ...sent } = await exclusive(() => submit(request))
    const receipt = await awaitOwnReceipt({ ...facts, hash: sent.hash, nonce: sent.nonce, serializedTransaction })
    if (receipt.status === 'reverted') {
      const reason = await replayRevertReason(client, request, { from: account.address, gas: sent.gas }, receipt)
      logger?.warn({ ...facts, hash: sent.hash, reason }, 'transaction reverted')
      throw new TransactionRevertedError({ ...facts, hash: sent.hash, reason, stage: 'onChain', receipt })
    }
    return { ...sent, receipt }
  }

  /**
   * Polls for the receipt of this very transaction (never one of another transaction at its nonce, as viem's
   * waitForTransactionReceipt would return). A poll without a receipt asks whether the node still holds the
   * transaction: one the node forgot (evicted, restarted, a dropped mempool) while its nonce is still free is broadcast
   * again as signed, so it can be mined at most once and later nonces wait on no gap; once the account's mined nonce
   * has passed it, it never will be mined: TransactionDroppedError. Transport failures only delay the next poll.
   */
  const awaitOwnReceipt = async (sent: TransactionFacts & { hash: Hex; nonce: number; serializedTransaction: Hex }) => {
    const { hash, nonce, serializedTransaction, ...facts } = sent
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
    }, receiptTimeoutMs)
    let rebroadcasts = 0
    // Seen passed over at consecutive polls: one look may come from an RPC replica that has the block but not the receipt.
    let passedOver = 0
    try {
      for (;;) {
        const receipt = await readReceipt(hash)
        if (receipt) return receipt
        if (timedOut) throw new TransactionReceiptTimeoutError({ ...facts, hash, timeoutMs: receiptTimeoutMs, cause: undefined })
        if ((await readPresence(hash)) !== 'unknown') passedOver = 0
        else {
          const minedNonce = await getTransactionCount(client, { address: account.address, blockTag: 'latest' }).catch(() => undefined)
          passedOver = minedNonce !== undefined && minedNonce > nonce ? passedOver + 1 : 0
          if (passedOver === 2 && minedNonce !== undefined) {
            logger?.warn({ ...facts, hash, nonce, accountNonce: minedNonce }, 'transaction dropped: its nonce went to another transaction')
            throw new TransactionDroppedError({ ...facts, hash, nonce, accountNonce: minedNonce })
          }
          if (minedNonce !== undefined && passedOver === 0) {
            // The same signed bytes: a node that still holds them, or holds another transaction at the nonce, refuses.
            const accepted = await sendRawTransaction(client, { serializedTransaction }).then(
              () => true,
              () => false,
            )
            if (accepted && rebroadcasts++ === 0)
              logger?.warn({ ...facts, hash, nonce }, 'the node dropped the transaction; broadcast it again')
          }
        }
        await new Promise((resolve) => setTimeout(resolve, client.pollingInterval))
      }
    } finally {
      clearTimeout(timer)
    }
  }

  /** The receipt, or undefined while there is none (or the RPC cannot say). */
  const readReceipt = (hash: Hex): Promise<TransactionReceipt | undefined> =>
    getTransactionReceipt(client, { hash }).catch((error: unknown) => {
      if (!(error instanceof TransactionReceiptNotFoundError)) logger?.debug({ err: error, hash }, 'reading a receipt failed')
      return undefined
    })

  /** Whether the node holds the transaction (pending or mined); `unsure` when the RPC could not answer. */
  const readPresence = (hash: Hex): Promise<'known' | 'unknown' | 'unsure'> =>
    getTransaction(client, { hash }).then(
      () => 'known' as const,
      (error: unknown) => (error instanceof TransactionNotFoundError ? ('unknown' as const) : ('unsure' as const)),
    )

  return { account: account.address, send }
}

/**
 * Replays a reverted transaction as a call to read the reason the receipt omits: on the state before its block, the
 * state it met when it came first in the block; when that replay passes (a transaction ahead of it in the same block
 * changed the state, as a swap moving the price does), on the state after its block, where its own effects are undone.
 */
async function replayRevertReason(
  client: Client,
  request: TransactionRequest,
  { from, gas }: { from: Address; gas: bigint },
  receipt: TransactionReceipt,
): Promise<string> {
  const blocks = receipt.transactionIndex > 0 ? [receipt.blockNumber - 1n, receipt.blockNumber] : [receipt.blockNumber - 1n]
  for (const blockNumber of blocks) {
    try {
      await call(client, { account: from, to: request.to, data: request.data, value: request.value, gas, blockNumber })
    } catch (error) {
      return formatRevertReason(revertDataOf(error), request.abi)
    }
  }
  return receipt.gasUsed >= gas ? 'out of gas' : 'no revert reason given (the replay did not revert)'
}

type TransactionFacts = { chainId: number; from: Address; to: Address; label?: string | undefined }

function checkEnvelope(request: TransactionRequest, account: Address, chainId: number): void {
  if (request.chainId !== undefined && request.chainId !== chainId) {
    throw new EnvelopeMismatchError({ field: 'chainId', expected: String(chainId), received: String(request.chainId), account, chainId })
  }
  if (request.from !== undefined && !isAddressEqual(request.from, account)) {
    throw new EnvelopeMismatchError({ field: 'from', expected: account, received: request.from, account, chainId })
  }
}

/** The node's words when it refused a transaction for its nonce; they sit in the innermost cause, often a plain `{ code, message }`. */
function nonceRefusalOf(error: unknown): string | undefined {
  for (let current: unknown = error; typeof current === 'object' && current !== null; current = (current as { cause?: unknown }).cause) {
    const message = (current as { message?: unknown }).message
    const refusal =
      typeof message === 'string' ? /nonce too low|nonce too high|invalid nonce|replacement transaction underpriced/i.exec(message) : null
    if (refusal) return refusal[0].toLowerCase()
    if ((current as { cause?: unknown }).cause === current) break
  }
  return undefined
}
