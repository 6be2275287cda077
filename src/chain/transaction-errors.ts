import type { Address, Hex, TransactionReceipt } from 'viem'
import { BaseError, type ErrorClass } from '../errors/base.js'

type TransactionFacts = { chainId: number; from: Address; to: Address; label?: string | undefined }

/**
 * A transaction reverted: on-chain (mined with status 0, gas spent) or already in the gas estimate (nothing sent).
 * Operational: the chain state is not what the transaction assumed (allowance, balance, slippage); the bot does not
 * retry it unchanged and reports the reason.
 */
export class TransactionRevertedError extends BaseError {
  override name = 'TransactionRevertedError' as const
  readonly reason: string
  readonly hash: Hex | undefined
  /** The receipt of a transaction that reverted on chain: its block and the gas it spent. */
  readonly receipt: TransactionReceipt | undefined

  constructor(
    facts: TransactionFacts & {
      reason: string
      hash?: Hex | undefined
      stage: 'estimate' | 'onChain'
      receipt?: TransactionReceipt | undefined
      cause?: unknown
    },
  ) {
    const { reason, hash, stage, receipt, cause, ...rest } = facts
    super(
      stage === 'onChain'
        ? `Transaction ${hash} reverted on chain ${facts.chainId}: ${reason}`
        : `Transaction to ${facts.to} would revert on chain ${facts.chainId}: ${reason}`,
      {
        details: { ...rest, stage, ...(hash ? { hash } : {}) },
        cause,
        hint:
          stage === 'onChain'
            ? 'The gas of a reverted transaction is spent. Check the reason, fix the allowance, balance or slippage, and send again.'
            : 'Nothing was sent. Check the reason, fix the allowance, balance or slippage, and send again.',
        errorClass: 'operational',
      },
    )
    this.reason = reason
    this.hash = hash
    this.receipt = receipt
  }
}

/**
 * The node refused the signed transaction (insufficient funds, a nonce race it could not recover from) or could not
 * be reached. Retryable when the RPC was unreachable, operational otherwise. Nothing was mined; the queue has
 * re-read the pending nonce, so the next send leaves no gap.
 */
export class TransactionSendError extends BaseError {
  override name = 'TransactionSendError' as const
  constructor(facts: TransactionFacts & { nonce: number; cause: unknown; errorClass: ErrorClass }) {
    const { cause, errorClass, ...details } = facts
    super(`The RPC refused the transaction to ${facts.to} on chain ${facts.chainId}`, {
      details,
      cause,
      hint:
        errorClass === 'retryable'
          ? 'The RPC was unreachable: retry, or add another RPC URL for this chain.'
          : 'Check the account’s native balance for gas and value.',
      errorClass,
    })
  }
}

/**
 * The RPC could not estimate the gas and the request carried no fallback gas (the API envelope's `gas`). Retryable
 * when the RPC was unreachable; operational otherwise.
 */
export class GasEstimationError extends BaseError {
  override name = 'GasEstimationError' as const
  constructor(facts: TransactionFacts & { cause: unknown; errorClass: ErrorClass }) {
    const { cause, errorClass, ...details } = facts
    super(`Cannot estimate the gas of a transaction to ${facts.to} on chain ${facts.chainId}`, {
      details,
      cause,
      hint: 'Pass the gas of the API envelope as fallbackGas, or retry on another RPC URL.',
      errorClass,
    })
  }
}

/**
 * A sent transaction left the node's mempool and its nonce went to another transaction (one sent with the same key by
 * another process, or a replacement with higher fees): it will never be mined. Operational: nothing of it happened on
 * chain, so nothing was spent twice; the queue takes the next free nonce for the next send, and the journal marks the
 * transaction dropped.
 */
export class TransactionDroppedError extends BaseError {
  override name = 'TransactionDroppedError' as const
  readonly hash: Hex
  readonly nonce: number
  constructor(facts: TransactionFacts & { hash: Hex; nonce: number; accountNonce: number }) {
    super(`Transaction ${facts.hash} on chain ${facts.chainId} was dropped: nonce ${facts.nonce} went to another transaction`, {
      details: facts,
      hint: 'Another process may be sending with the same key: give each bot an account of its own. Nothing of this transaction was mined.',
      errorClass: 'operational',
    })
    this.hash = facts.hash
    this.nonce = facts.nonce
  }
}

/**
 * The transaction was sent but no receipt came within the timeout. Retryable: it may still be mined; the bot looks
 * the hash up again before sending anything that depends on it.
 */
export class TransactionReceiptTimeoutError extends BaseError {
  override name = 'TransactionReceiptTimeoutError' as const
  readonly hash: Hex
  constructor(facts: TransactionFacts & { hash: Hex; timeoutMs: number; cause: unknown }) {
    const { cause, ...details } = facts
    super(`No receipt for transaction ${facts.hash} on chain ${facts.chainId} after ${facts.timeoutMs} ms`, {
      details,
      cause,
      hint: 'The transaction may still be mined: look its hash up before sending it again.',
      errorClass: 'retryable',
    })
    this.hash = facts.hash
  }
}

/**
 * A transaction envelope names another sender or chain than the queue's. Fatal: quote, approval, signature and
 * execution must share one chain and account (API section 5.5); nothing is sent.
 */
export class EnvelopeMismatchError extends BaseError {
  override name = 'EnvelopeMismatchError' as const
  constructor(facts: { field: 'chainId' | 'from'; expected: string; received: string; account: Address; chainId: number }) {
    super(`The transaction's ${facts.field} is ${facts.received}, but this queue sends from ${facts.account} on chain ${facts.chainId}`, {
      details: { field: facts.field, expected: facts.expected, received: facts.received },
      hint: 'Quote, approve, sign and execute on the same chain with the same account (API section 5.5).',
      errorClass: 'fatal',
    })
  }
}
