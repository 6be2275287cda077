import { z } from 'zod'
import { defineStrategy, intentAddressSchema, intentChainIdSchema } from '../../src/index.js'

const rawAmount = z.string().regex(/^\d+$/, 'expected raw units as a decimal integer string').transform(BigInt)

/**
 * Take profit once: sells `amount` of srcToken for destToken the first time a quote gives at least `minDestAmount`.
 * Remembers in its journal state that it sold, so a restart does not sell again.
 */
export default defineStrategy({
  apiVersion: 1,
  name: 'example',
  configSchema: z.object({
    chainId: intentChainIdSchema,
    srcToken: intentAddressSchema,
    destToken: intentAddressSchema,
    amount: rawAmount,
    minDestAmount: rawAmount,
    maxSlippageBps: z.number().int().min(0).max(10_000).default(50),
  }),
  subscriptions: (config) => [
    {
      source: 'market',
      chainId: config.chainId,
      srcToken: config.srcToken,
      destToken: config.destToken,
      amount: config.amount,
      side: 'SELL',
    },
  ],
  onQuote: (quote, { config, state, now }) => {
    if (state.get('soldAt') !== undefined || quote.destAmount < config.minDestAmount) return
    state.set('soldAt', now())
    return {
      key: 'take-profit',
      intent: {
        kind: 'swap',
        chainId: config.chainId,
        srcToken: config.srcToken,
        destToken: config.destToken,
        amount: config.amount,
        side: 'SELL',
        maxSlippageBps: config.maxSlippageBps,
        maxPriceImpactPercent: 2,
      },
    }
  },
})
