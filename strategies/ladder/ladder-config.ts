import { z } from 'zod'
import { describeReceived, intentAddressSchema, intentChainIdSchema } from '../../src/index.js'
import { levelIndices, levelOrder } from './ladder-orders.js'
import { formatPrice, gridPrice, parseDecimalPrice, priceDecimals, priceScale } from './ladder-prices.js'

/** Most levels one ladder may have: every level is an open order, and a restart re-emits them all. */
export const maxLevels = 100

const expecting = (what: string) => ({
  error: (issue: { input?: unknown }) => `expected ${what}, received ${describeReceived(issue.input)}`,
})

const priceText = `a positive price as a decimal string such as "2450.5" (quote per base, at most ${priceDecimals} decimals; quote it in YAML)`

const priceSchema = z
  .custom<string>((value) => typeof value === 'string' && (parseDecimalPrice(value) ?? 0n) > 0n, expecting(priceText))
  .transform((value) => parseDecimalPrice(value) as bigint)

const rawAmountSchema = z
  .custom<string>(
    (value) => typeof value === 'string' && /^\d{1,78}$/.test(value) && BigInt(value) > 0n,
    expecting('a positive raw amount (decimal integer string such as "100000000000000000", in the token\'s smallest units)'),
  )
  .transform((value) => BigInt(value))

const tokenSchema = z.strictObject({
  address: intentAddressSchema,
  decimals: z.custom<number>(
    (value) => typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 36,
    expecting('the token decimals (an integer from 0 to 36, e.g. 18 for WETH, 6 for USDC)'),
  ),
})

const integerFrom = (minimum: number, maximum: number, unit: string) =>
  z.custom<number>(
    (value) => typeof value === 'number' && Number.isSafeInteger(value) && value >= minimum && value <= maximum,
    expecting(`an integer number of ${unit} from ${minimum} to ${maximum}`),
  )

/** The ladder's configuration; see the strategy's doc comment for what each key does. */
export const ladderConfigSchema = z
  .strictObject({
    chainId: intentChainIdSchema,
    side: z.enum(['sell', 'buy'], expecting('sell (sell base above the market) or buy (buy base below it)')),
    base: tokenSchema,
    quote: tokenSchema,
    lowerPrice: priceSchema,
    upperPrice: priceSchema,
    levels: integerFrom(2, maxLevels, 'levels'),
    spacing: z.enum(['linear', 'geometric'], expecting('linear or geometric')).default('linear'),
    sizePerLevel: rawAmountSchema,
    validitySeconds: integerFrom(60, 365 * 86_400, 'seconds').default(86_400),
    retrySeconds: integerFrom(1, 86_400, 'seconds').default(60),
    onFill: z.enum(['flip', 'retire'], expecting('flip or retire')).default('flip'),
    cancelOnStop: z.boolean(expecting('true or false')).default(false),
  })
  .superRefine((config, context) => {
    const refuse = (path: string, message: string, input: unknown) => context.addIssue({ code: 'custom', message, path: [path], input })
    if (config.base.address === config.quote.address) {
      refuse('quote', `expected a quote token other than the base token, received ${config.quote.address} for both`, config.quote)
      return
    }
    if (config.upperPrice <= config.lowerPrice) {
      const shown = (scaled: bigint) => formatPrice({ numerator: scaled, denominator: priceScale }, priceDecimals)
      refuse(
        'upperPrice',
        `expected upperPrice above lowerPrice (${shown(config.lowerPrice)}), received ${shown(config.upperPrice)}`,
        config.upperPrice,
      )
      return
    }
    // Every order the ladder can place must have a positive price and non-zero amounts.
    for (const { index, side } of levelIndices(config)) {
      const order = levelOrder(config, index, side)
      if (order === undefined) {
        const beyond = config.side === 'sell' ? 'lowerPrice' : 'upperPrice'
        refuse(
          beyond,
          `expected a positive price one grid step beyond ${beyond}, where level ${index} trades once flipped; ` +
            `with these prices and ${config.levels} ${config.spacing} levels it is 0 or less: use more levels, ` +
            'spacing geometric, or onFill retire',
          config[beyond],
        )
        return
      }
      if (order.srcAmount === 0n || order.destAmount === 0n) {
        const price = gridPrice(config, order.gridIndex)
        refuse(
          'sizePerLevel',
          `expected a size worth at least 1 raw unit of the quote token at every level; level ${index} (${side} at ` +
            `${price ? formatPrice(price) : '?'}) gives 0`,
          config.sizePerLevel,
        )
        return
      }
    }
  })

export type LadderConfig = z.output<typeof ladderConfigSchema>
