import { z } from 'zod'
import { type BalancesEvent, type DeepReadonly, defineStrategy, isFinalStatus, type StrategyContext } from '../../src/index.js'
import { planRebalance } from './plan-rebalance.js'
import { type RebalancerConfig, rebalancerConfigSchema } from './rebalancer-config.js'
import {
  type FailedTransfer,
  type FinishedTransfer,
  failedTransferSchema,
  finishedTransferSchema,
  nextGeneration,
  readTransfer,
  retryDelayMs,
  stateKeys,
  type TransferIntent,
  transferIntentId,
} from './transfer-state.js'

type Context = StrategyContext<RebalancerConfig>

/**
 * Crosschain rebalancer: keeps one token (e.g. USDC) spread over several chains at target weights, moving the surplus
 * with crosschain Delta orders.
 *
 * Config: `chains` (at least 2 of `{ chainId, token, weight }`; the token's address on each chain, relative integer
 * weights; the same token in the same raw units everywhere), `bandBps` (default 200: nothing is done while every
 * chain's share is within ±2 percentage points of its target), `minTradeAmount` (raw units; a smaller gap is left
 * alone), `maxSlippageBps` (default 50), `maxPriceImpactPercent` (default 1; the bridge fee counts), `retryMs` (default
 * 60000 clock ms: the first wait after a transfer that failed without an order) and `placementTimeoutMs` (default 600000
 * clock ms: a planned transfer whose order never appears, and whose intent no result said failed, is forgotten after
 * that).
 *
 * Behaviour: on every balances event (after start and after each reconciliation pass), unless a transfer is in flight,
 * plans with planRebalance and asks for one `crosschain` SELL from the chain furthest above its target to the one
 * furthest below, under the key `transfer-<n>` (a new generation each time). At most one transfer is in flight: tokens
 * on the bridge are in neither chain's balance, so nothing is planned until its order is final. COMPLETED ends it; so
 * does REFUNDED (the bridge returned the tokens at the source), FAILED, EXPIRED or CANCELLED; the next balances event
 * then plans anew with the next generation, so a refunded transfer is retried as a new intent. A transfer whose intent
 * the executor ends `failed` or `refused` without an order (a 5xx after the retries, an unreadable answer, an RPC
 * fault, a risk limit) is forgotten at once, and the first balances `retryMs` later plan anew, as a new intent; the
 * wait doubles with each such failure in a row, up to `placementTimeoutMs`, so a lasting fault or limit costs few
 * intents. A failed intent that names an order keeps the transfer in flight until that order is final (the executor
 * looks it up at each pass).
 *
 * Restart: the transfer in flight, the generation and the last outcome live in the journal state. A transfer whose
 * order had not yet been seen is asked for again at start with the same key and content, hence the same intent id:
 * the executor resumes or reports it and never places it twice. Order updates missed while stopped are delivered by
 * the runtime on its first pass, before the balances that follow.
 */
export default defineStrategy({
  apiVersion: 1,
  name: 'rebalancer',
  configSchema: rebalancerConfigSchema,
  subscriptions: () => [],
  balances: (config) => config.chains.map(({ chainId, token }) => ({ chainId, token })),
  onStart: ({ state, logger }) => {
    const transfer = readTransfer(state)
    if (!transfer) return
    logger.info({ key: transfer.key, orderId: transfer.orderId, status: transfer.status }, 'a transfer is in flight since before the start')
    // Not seen placed: the intent may never have reached the executor. The same key and content are the same intent.
    if (transfer.orderId === null) return { key: transfer.key, intent: transfer.intent }
  },
  onBalances: (event, context) => evaluate(event, context),
  onOrderUpdate: ({ order, reason }, { state, logger, now }) => {
    const transfer = readTransfer(state)
    if (!transfer || order.intentId !== transfer.intentId) {
      // The last transfer's final status again (delivery is at least once): already handled.
      if (state.get(stateKeys.lastTransfer, finishedTransferSchema)?.orderId === order.id) return
      logger.warn({ orderId: order.id, status: order.status }, 'update for an order that is not the transfer in flight; ignored')
      return
    }
    // A transfer got an order: the failures in a row are over.
    state.delete(stateKeys.lastFailure)
    if (!isFinalStatus(order.mode, order.status)) {
      state.set(stateKeys.transfer, { ...transfer, orderId: order.id, status: order.status })
      return
    }
    const finished: FinishedTransfer = {
      key: transfer.key,
      orderId: order.id,
      status: order.status,
      fromChainId: transfer.intent.chainId,
      toChainId: transfer.intent.destChainId,
      amount: transfer.intent.amount,
      finishedAt: now(),
    }
    state.set(stateKeys.lastTransfer, finished)
    state.delete(stateKeys.transfer)
    const log = order.status === 'COMPLETED' ? logger.info.bind(logger) : logger.warn.bind(logger)
    log({ ...finished, reason }, 'transfer finished; the next balances plan anew')
  },
  onIntentResult: (event, { config, state, logger, now }) => {
    const transfer = readTransfer(state)
    if (!transfer || event.intentId !== transfer.intentId) return
    if (event.orderId !== null) {
      // Its order is journaled (or in doubt, looked up at each pass): its updates end the transfer, so the placement
      // timeout must not forget it meanwhile.
      if (transfer.orderId === null) state.set(stateKeys.transfer, { ...transfer, orderId: event.orderId })
      state.delete(stateKeys.lastFailure)
      return
    }
    if (event.status !== 'failed' && event.status !== 'refused') return
    const before = state.get(stateKeys.lastFailure, failedTransferSchema)
    const failure: FailedTransfer = {
      key: transfer.key,
      intentId: transfer.intentId,
      status: event.status,
      reason: event.reason ?? 'no reason given',
      failedAt: now(),
      inARow: (before?.inARow ?? 0) + 1,
    }
    state.set(stateKeys.lastFailure, failure)
    state.delete(stateKeys.transfer)
    logger.warn({ ...failure, retryInMs: retryDelayMs(config, failure.inARow) }, 'transfer failed without an order; planning anew later')
  },
  onRefund: ({ order, refund }, { state, logger }) => {
    state.set(stateKeys.refunds, (state.get(stateKeys.refunds, z.number().int()) ?? 0) + 1)
    logger.warn({ orderId: order.id, chainId: refund.chainId, amount: refund.amount }, 'the bridge refunded a transfer at its source')
  },
})

function evaluate(event: DeepReadonly<BalancesEvent>, { config, state, logger, strategy }: Context) {
  const transfer = readTransfer(state)
  if (transfer) {
    if (transfer.orderId !== null || event.now - transfer.plannedAt < config.placementTimeoutMs) return
    logger.warn({ key: transfer.key, plannedAt: transfer.plannedAt }, 'no order appeared for the planned transfer; planning anew')
    state.delete(stateKeys.transfer)
  }
  const failure = state.get(stateKeys.lastFailure, failedTransferSchema)
  if (failure && event.now - failure.failedAt < retryDelayMs(config, failure.inARow)) {
    logger.debug({ key: failure.key, failedAt: failure.failedAt, inARow: failure.inARow }, 'a transfer failed lately; not planning yet')
    return
  }
  const balances = new Map<number, bigint>()
  for (const { chainId, token } of config.chains) {
    const held = event.balances.find((balance) => balance.chainId === chainId && balance.token.toLowerCase() === token.toLowerCase())
    if (!held) {
      logger.warn({ chainId, token }, 'no balance given for a configured chain; not planning')
      return
    }
    balances.set(chainId, held.amount)
  }
  const plan = planRebalance({ targets: config.chains, balances, bandBps: config.bandBps, minTradeAmount: config.minTradeAmount })
  const shares = plan.shares.map(({ chainId, shareBps, targetBps }) => ({ chainId, shareBps, targetBps }))
  if (plan.action === 'none') {
    logger.debug({ reason: plan.reason, shares }, 'no transfer')
    return
  }
  const tokenOn = (chainId: number) => config.chains.find((chain) => chain.chainId === chainId)?.token
  const srcToken = tokenOn(plan.fromChainId)
  const destToken = tokenOn(plan.toChainId)
  if (!srcToken || !destToken) return
  const intent: TransferIntent = {
    kind: 'crosschain',
    chainId: plan.fromChainId,
    destChainId: plan.toChainId,
    srcToken,
    destToken,
    amount: plan.amount.toString(),
    side: 'SELL',
    maxSlippageBps: config.maxSlippageBps,
    maxPriceImpactPercent: config.maxPriceImpactPercent,
  }
  const key = `transfer-${nextGeneration(state)}`
  state.set(stateKeys.transfer, {
    key,
    intentId: transferIntentId(strategy, key, intent),
    intent,
    plannedAt: event.now,
    orderId: null,
    status: null,
  })
  logger.info({ key, from: plan.fromChainId, to: plan.toChainId, amount: intent.amount, shares }, 'planned a transfer')
  return { key, intent }
}
