import { type Address, parseEther } from 'viem'
import { createApiClient } from '../../src/api/client.js'
import { buildDeltaOrder } from '../../src/api/delta/build-delta-order.js'
import { getDeltaPrices } from '../../src/api/delta/get-delta-prices.js'
import { signDeltaOrder } from '../../src/chain/sign-delta-order.js'
import { resolveSpender } from '../../src/chain/spender.js'
import { createIntent } from '../../src/domain/intents/create-intent.js'
import { orderIdOf } from '../../src/domain/order-id.js'
import { createExecutor } from '../../src/exec/executor/executor.js'
import type { ExecutorContext } from '../../src/exec/executor/executor-context.js'
import { submitStoredDeltaOrder } from '../../src/exec/executor/submit-stored.js'
import type { JournalOrder } from '../../src/journal/orders.js'
import { unixSeconds } from '../../src/time/clock.js'

export type PlaceOpenLimitOrdersOptions = {
  count: number
  /** Prefix of the intents' keys (one intent per order). */
  key: string
  tokens: { usdc: Address; weth: Address }
  strategy?: string
  /** Orders built, signed and submitted at once. */
  concurrency?: number
}

/**
 * Places `count` USDC → WETH LIMIT orders of 1 USDC each on chain 1, asking 1 WETH (far from any market: they stay
 * open), journaled as the executor journals them. The first goes through the executor, which approves the Delta
 * contract (give the context `approvalPolicy: 'unlimited'`); the others reuse its quote and are built, signed, journaled
 * and submitted as the executor's Delta flow does, a few at a time and without the API client's rate limit (the sandbox
 * at `url` has none). Returns the journal's orders, all submitted (else it throws).
 */
export async function placeOpenLimitOrders(
  context: ExecutorContext,
  url: string,
  options: PlaceOpenLimitOrdersOptions,
): Promise<JournalOrder[]> {
  const { count, key, tokens, strategy = 'ladder', concurrency = 16 } = options
  const api = createApiClient({ baseUrl: url, rateLimit: false, retry: { retries: 2 } })
  const fast: ExecutorContext = { ...context, api }
  const srcAmount = 1_000_000n
  const destAmount = parseEther('1')
  const intentOf = (index: number) =>
    createIntent({
      clock: context.clock,
      key: `${key}-${index}`,
      content: {
        strategy,
        kind: 'limit',
        chainId: 1,
        srcToken: tokens.usdc,
        destToken: tokens.weth,
        srcAmount: srcAmount.toString(),
        destAmount: destAmount.toString(),
        validitySeconds: 3600,
      },
    })
  const first = await createExecutor(fast).execute(intentOf(0))
  if (first.status !== 'accepted' || !first.order?.venueId) throw new Error(`the first LIMIT order was not placed: ${first.reason}`)

  const delta = resolveSpender({ contracts: context.contracts, chainId: 1, mode: 'delta' })
  const owner = context.account.address
  const price = await getDeltaPrices(api, {
    chainId: 1,
    srcToken: tokens.usdc,
    destToken: tokens.weth,
    amount: srcAmount,
    srcDecimals: 6,
    destDecimals: 18,
    userAddress: owner,
  })
  const place = async (index: number): Promise<JournalOrder> => {
    const intent = intentOf(index)
    const deadline = unixSeconds(context.clock) + 3600
    const built = await buildDeltaOrder(api, {
      route: price.route,
      side: 'SELL',
      owner,
      deadline,
      limitAmount: destAmount,
      partiallyFillable: false,
      type: 'LIMIT',
      slippage: 0,
    })
    const signed = await signDeltaOrder(context.account, { toSign: built.toSign, delta, orderHash: built.orderHash })
    context.journal.recordIntent({ id: intent.id, strategy, kind: 'limit', intent })
    const order = context.journal.recordSignedOrder({
      id: orderIdOf(intent.id),
      intentId: intent.id,
      mode: 'delta',
      account: owner,
      chainId: 1,
      orderHash: signed.orderHash,
      deadline,
      srcToken: tokens.usdc,
      destToken: tokens.weth,
      srcAmount,
      destAmount,
      side: 'SELL',
      signedPayload: {
        chainId: 1,
        order: built.toSign.value,
        signature: signed.signature,
        primaryType: signed.primaryType,
        type: 'LIMIT',
        partiallyFillable: false,
      },
    })
    const submitted = await submitStoredDeltaOrder(fast, order)
    if (!submitted.venueId) throw new Error(`open LIMIT order ${index} not submitted: ${submitted.status}`)
    return submitted
  }
  const orders: JournalOrder[] = [first.order]
  let next = 1
  const worker = async () => {
    while (next < count) {
      const index = next++
      orders[index] = await place(index)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return orders
}
