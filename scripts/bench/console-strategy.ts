import { z } from 'zod'
import { defineStrategy, type IntentRequest, intentAddressSchema, intentChainIdSchema } from '../../src/index.js'

const stateSchema = z.object({ placed: z.number().int(), open: z.array(z.string()) })

/**
 * The console bench's trader: at every quote it places a limit order selling 0.01 WETH far above any price
 * (it stays open), and at every `cancelEvery`-th quote it also cancels the ones it placed since the last cancel, so
 * open orders stay few while the journal sees a steady flow of intents, status changes and cancellations. `round`
 * keeps the intents of each round of the bench distinct.
 */
export default defineStrategy({
  apiVersion: 1,
  name: 'console-bench',
  configSchema: z.object({
    chainId: intentChainIdSchema,
    weth: intentAddressSchema,
    usdc: intentAddressSchema,
    round: z.string(),
    cancelEvery: z.number().int().min(1).default(10),
  }),
  subscriptions: (config) => [
    { source: 'market', chainId: config.chainId, srcToken: config.usdc, destToken: config.weth, amount: 1_000_000_000n, side: 'SELL' },
  ],
  onQuote: (_quote, { config, state, intentIdOf }) => {
    const { placed, open } = state.get('orders', stateSchema) ?? { placed: 0, open: [] }
    const limit: IntentRequest = {
      key: `${config.round}-${placed}`,
      intent: {
        kind: 'limit',
        chainId: config.chainId,
        srcToken: config.weth,
        destToken: config.usdc,
        srcAmount: 10_000_000_000_000_000n,
        // 0.01 WETH for 1,000 USDC: 100,000 dollars per WETH, never filled.
        destAmount: 1_000_000_000n,
        validitySeconds: 3_600,
      },
    }
    const opened = [...open, intentIdOf(limit)]
    if (opened.length < config.cancelEvery) {
      state.set('orders', { placed: placed + 1, open: opened })
      return limit
    }
    state.set('orders', { placed: placed + 1, open: [] })
    return [limit, { key: `${config.round}-cancel-${placed}`, intent: { kind: 'cancel', intentIds: opened } }]
  },
})
