import { z } from 'zod'
import { intentAddressSchema } from '../../domain/intents/intent-fields.js'
import { issueMessage } from '../../domain/wire-fields.js'
import { type DeepReadonly, freezeCopy } from '../../strategy/frozen-copy.js'
import { StrategyConfigError, StrategyError } from '../../strategy/strategy-errors.js'
import type {
  MakerBalance,
  MakerBalanceRequest,
  MakerFirmQuote,
  MakerStrategyDefinition,
  ReferencePrice,
  ReferenceRequest,
} from '../maker-strategy.js'

const chainIdSchema = z.number().int().positive()
const referenceRequestSchema = z.discriminatedUnion('source', [
  z.object({
    id: z.string().min(1).max(200),
    chainId: chainIdSchema,
    base: intentAddressSchema,
    quote: intentAddressSchema,
    source: z.literal('market'),
    size: z.bigint().positive(),
    sides: z.enum(['both', 'sell', 'buy']).optional(),
  }),
  z.object({
    id: z.string().min(1).max(200),
    chainId: chainIdSchema,
    base: intentAddressSchema,
    quote: intentAddressSchema,
    source: z.literal('fixed'),
    price: z.string().regex(/^\d{1,40}(\.\d{1,40})?$/, 'expected a decimal string such as "1850.25"'),
  }),
])
const balanceRequestSchema = z.object({ chainId: chainIdSchema, token: intentAddressSchema })

export type MakerQuoteInput = {
  now: number
  references: Readonly<Record<string, ReferencePrice>>
  balances: readonly MakerBalance[]
  firmQuotes: readonly MakerFirmQuote[]
}

export type MakerQuoteOutcome = { ok: true; output: unknown } | { ok: false; error: StrategyError }

export type SafeMakerStrategy = {
  name: string
  config: DeepReadonly<unknown>
  /** Validated; ids unique. */
  references: readonly ReferenceRequest[]
  /** Validated; each token once per chain. */
  balances: readonly MakerBalanceRequest[]
  /** 0 when the strategy reads no firm quotes. */
  firmWindowSeconds: number
  /** Runs `quote` on frozen copies of its inputs; whatever it throws comes back as a StrategyError, never thrown. */
  quote: (input: MakerQuoteInput) => MakerQuoteOutcome
}

/**
 * A maker strategy in quarantine: its config parsed by its schema (StrategyConfigError naming the fields), its
 * references and balances asked once and validated (StrategyError), its `quote` given frozen inputs and contained.
 * The offer it returns is checked by the runtime (checkMakerOffer) before anything is served.
 */
export function createSafeMakerStrategy(definition: MakerStrategyDefinition, { config }: { config: unknown }): SafeMakerStrategy {
  const { name } = definition
  const parsed = definition.configSchema.safeParse(config)
  if (!parsed.success) {
    throw new StrategyConfigError({
      strategy: name,
      problems: parsed.error.issues.map((issue) => `${issue.path.map(String).join('.') || '(config)'}: ${issueMessage(issue)}`),
    })
  }
  const frozenConfig = freezeCopy(parsed.data)
  const fail = (handler: 'subscriptions' | 'balances', reason: string, cause?: unknown): never => {
    throw new StrategyError({ strategy: name, handler, reason, cause })
  }
  const call = <T>(handler: 'subscriptions' | 'balances', run: () => T): T => {
    try {
      return run()
    } catch (error) {
      return fail(handler, error instanceof Error ? error.message : String(error), error)
    }
  }
  const references = z.array(referenceRequestSchema).safeParse(call('subscriptions', () => definition.references(frozenConfig)))
  if (!references.success)
    fail(
      'subscriptions',
      `references: ${references.error.issues.map((issue) => `${issue.path.join('.')}: ${issueMessage(issue)}`).join('; ')}`,
    )
  const ids = references.data?.map((reference) => reference.id) ?? []
  const repeated = ids.find((id, index) => ids.indexOf(id) !== index)
  if (repeated !== undefined) fail('subscriptions', `references: the id "${repeated}" is used twice`)
  const balances = z.array(balanceRequestSchema).safeParse(call('balances', () => definition.balances(frozenConfig)))
  if (!balances.success)
    fail('balances', balances.error.issues.map((issue) => `${issue.path.join('.')}: ${issueMessage(issue)}`).join('; '))
  const window = definition.firmWindowSeconds ? call('balances', () => definition.firmWindowSeconds?.(frozenConfig) ?? 0) : 0
  if (!(Number.isFinite(window) && window >= 0)) fail('balances', `firmWindowSeconds: expected a number of seconds, received ${window}`)

  return {
    name,
    config: frozenConfig,
    references: (references.data ?? []) as ReferenceRequest[],
    balances: uniqueBalances(balances.data ?? []),
    firmWindowSeconds: window,
    quote: (input) => {
      try {
        const output = definition.quote({
          config: frozenConfig,
          now: input.now,
          references: freezeCopy({ ...input.references }),
          balances: freezeCopy([...input.balances]),
          firmQuotes: freezeCopy([...input.firmQuotes]),
        })
        return { ok: true, output }
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error)
        return { ok: false, error: new StrategyError({ strategy: name, handler: 'onQuote', reason, cause: error }) }
      }
    },
  }
}

function uniqueBalances(requests: readonly MakerBalanceRequest[]): MakerBalanceRequest[] {
  const seen = new Set<string>()
  return requests.filter(({ chainId, token }) => {
    const key = `${chainId}:${token.toLowerCase()}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
