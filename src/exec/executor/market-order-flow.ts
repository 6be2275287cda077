import { type Address, isAddressEqual, type TransactionReceipt } from 'viem'
import { buildMarketTransaction } from '../../api/market/build-market-transaction.js'
import type { MarketPriceRoute } from '../../api/market/price-route-schema.js'
import { requireChainClients } from '../../chain/chain-clients.js'
import { resolveSpender } from '../../chain/spender.js'
import { TransactionDroppedError, TransactionRevertedError } from '../../chain/transaction-errors.js'
import type { SignedTransaction } from '../../chain/transaction-queue.js'
import type { Intent } from '../../domain/intents/intent-schema.js'
import { orderIdOf } from '../../domain/order-id.js'
import { BaseError } from '../../errors/base.js'
import type { JournalOrder } from '../../journal/orders.js'
import { nativeTokenPlaceholder } from '../../protocol/addresses.js'
import { unixSeconds } from '../../time/clock.js'
import { approveForTrade } from '../approve-for-trade.js'
import { recordBalanceBaselines } from './balance-baselines.js'
import { reasonOf } from './execution-errors.js'
import { dataHashOf, type ExecutorContext } from './executor-context.js'

export class MarketRouterMismatchError extends BaseError {
  override name = 'MarketRouterMismatchError'
}

/** What the journal keeps of a Market order: the signed transaction, enough to broadcast it again. */
export type StoredMarketPayload = {
  txHash: `0x${string}`
  nonce: number
  serializedTransaction: `0x${string}`
  to: Address
  value: string
  slippageBps: number
  /** Unix seconds: the router refuses the transaction after it. */
  deadline: number
}

export type MarketOrderPlan = {
  intent: Extract<Intent, { kind: 'swap' }>
  route: MarketPriceRoute
}

/**
 * Approves the router, builds the transaction, and broadcasts it through the account's queue. The order and its
 * signed transaction are journaled in the queue's pre-broadcast hook, so a crash can never leave an unrecorded
 * transaction on chain; a mined receipt (fill, gas) is the reconciler's. A transaction that reverted on chain (the
 * price moved past the slippage) or was dropped (another sender took its nonce) ends its order and fails its intent
 * here, with the decoded revert reason, so the strategy hears of it in its intent result.
 */
export async function executeMarketOrder(context: ExecutorContext, { intent, route }: MarketOrderPlan): Promise<JournalOrder> {
  const { journal, account } = context
  const orderId = orderIdOf(intent.id)
  const stored = journal.getOrder({ id: orderId })
  if (stored) return stored

  const chain = requireChainClients(context.chains, intent.chainId)
  const spender = resolveSpender({ contracts: context.contracts, chainId: intent.chainId, mode: 'market' })
  const queue = context.queueFor(intent.chainId)
  const slippageBps = intent.maxSlippageBps
  const deadline = unixSeconds(context.clock) + context.settings.marketValiditySeconds
  const native = intent.srcToken.toLowerCase() === nativeTokenPlaceholder.toLowerCase()
  await recordBalanceBaselines(context, [{ chainId: intent.chainId, tokens: [intent.srcToken, intent.destToken] }])
  // The router may pull at most srcAmount on a SELL, srcAmount plus the slippage on a BUY.
  const maxSrc = intent.side === 'SELL' ? route.srcAmount : (route.srcAmount * BigInt(10_000 + slippageBps) + 9_999n) / 10_000n
  const minDest = intent.side === 'SELL' ? (route.destAmount * BigInt(10_000 - slippageBps)) / 10_000n : route.destAmount
  let permit: `0x${string}` | undefined
  if (!native) {
    const approved = await approveForTrade({
      chain,
      account,
      queue,
      spender,
      token: intent.srcToken,
      required: maxSrc,
      deadline: BigInt(deadline),
      permitPreference: context.settings.permitPreference,
      policy: context.settings.approvalPolicy,
    })
    permit = approved.permit
    for (const txHash of approved.approvals) {
      journal.recordApproval({
        chainId: intent.chainId,
        owner: account.address,
        token: intent.srcToken,
        spender: spender.address,
        mode: 'approve',
        amount: maxSrc,
        txHash,
      })
    }
  }
  const envelope = await buildMarketTransaction(context.api, {
    priceRoute: route,
    userAddress: account.address,
    slippage: slippageBps,
    deadline,
    permit,
  })
  if (!isAddressEqual(envelope.to, spender.address)) {
    throw new MarketRouterMismatchError('The Market transaction does not go to the router that was approved', {
      details: { to: envelope.to, approved: spender.address },
      hint: 'The deployment resource and the transaction builder disagree: stop and check the venue.',
      errorClass: 'fatal',
    })
  }
  const journalSigned = (transaction: SignedTransaction) => {
    const payload: StoredMarketPayload = {
      txHash: transaction.hash,
      nonce: transaction.nonce,
      serializedTransaction: transaction.serializedTransaction,
      to: transaction.to,
      value: transaction.value.toString(),
      slippageBps,
      deadline,
    }
    journal.recordSignedOrder({
      id: orderId,
      intentId: intent.id,
      mode: 'market',
      account: account.address,
      chainId: intent.chainId,
      nonce: BigInt(transaction.nonce),
      deadline,
      srcToken: intent.srcToken,
      destToken: intent.destToken,
      srcAmount: maxSrc,
      destAmount: minDest,
      side: intent.side,
      signedPayload: payload,
    })
    journal.recordTransaction({
      txHash: transaction.hash,
      orderId,
      purpose: 'swap',
      chainId: transaction.chainId,
      nonce: transaction.nonce,
      from: transaction.from,
      to: transaction.to,
      value: transaction.value,
      dataHash: dataHashOf(transaction.data),
    })
  }
  // Never reached a mempool: the order goes on in the transaction the queue signs next, at the next free nonce.
  const journalRefused = (transaction: SignedTransaction, refusal: string) => {
    const reason = `the node refused it (${refusal}) at nonce ${transaction.nonce}; the swap was signed again at the next free nonce`
    journal.dropTransaction({ txHash: transaction.hash, reason, orderCarriedOn: true })
  }
  try {
    await queue.send({
      to: envelope.to,
      data: envelope.data,
      value: envelope.value,
      fallbackGas: envelope.gas,
      from: envelope.from,
      chainId: envelope.chainId,
      purpose: 'swap',
      label: `Market swap ${intent.srcToken} → ${intent.destToken}`,
      beforeBroadcast: journalSigned,
      afterNonceRefusal: journalRefused,
    })
  } catch (error) {
    if (!journal.getOrder({ id: orderId })) {
      // Nothing was signed: the estimate reverted or the node was unreachable before signing.
      journal.failIntent(intent.id, reasonOf(error), 'chain')
      throw error
    }
    if (error instanceof TransactionRevertedError && error.receipt !== undefined) {
      return endReverted(context, { intentId: intent.id, orderId, error, receipt: error.receipt })
    }
    if (error instanceof TransactionDroppedError) return endDropped(context, intent.id, orderId, error)
    // Signed and journaled; whether the node took it is for recovery to find out (by hash, then by nonce).
    throw error
  }
  return journal.markSubmitted(orderId)
}

/** Mined and reverted: the receipt and its reason end the order, and the intent fails with the reason. */
function endReverted(
  context: ExecutorContext,
  {
    intentId,
    orderId,
    error,
    receipt,
  }: { intentId: string; orderId: string; error: TransactionRevertedError; receipt: TransactionReceipt },
): JournalOrder {
  const { journal } = context
  journal.updateTransaction({
    txHash: receipt.transactionHash,
    status: 'reverted',
    revertReason: error.reason,
    blockNumber: Number(receipt.blockNumber),
    gasUsed: receipt.gasUsed,
    effectiveGasPrice: receipt.effectiveGasPrice,
  })
  journal.failIntent(intentId, reasonOf(error), 'chain')
  context.logger?.warn({ intentId, orderId, txHash: receipt.transactionHash, reason: error.reason }, 'Market swap reverted on chain')
  return journal.markSubmitted(orderId)
}

/** Passed over for another transaction at its nonce: nothing of it was mined; the order ends dropped, the intent fails. */
function endDropped(context: ExecutorContext, intentId: string, orderId: string, error: TransactionDroppedError): JournalOrder {
  const { journal } = context
  journal.dropTransaction({ txHash: error.hash, reason: error.shortMessage })
  journal.failIntent(intentId, reasonOf(error), 'chain')
  return journal.markSubmitted(orderId)
}
