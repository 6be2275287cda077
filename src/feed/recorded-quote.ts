import { z } from 'zod'
import { type DeltaPrice, deltaPriceSchema } from '../api/delta/delta-price-schema.js'
import { marketPriceRouteSchema } from '../api/market/price-route-schema.js'
import {
  describeReceived,
  integerSchema,
  issueMessage,
  wireAddressSchema,
  wireAmountSchema,
  wireChainIdSchema,
  wireSideSchema,
} from '../domain/wire-fields.js'
import { BaseError } from '../errors/base.js'
import { nativeTokenPlaceholder } from '../protocol/addresses.js'
import { type Quote, type QuoteRequest, quoteRequestKey } from './quote.js'
import type { TokenDecimals } from './token-decimals.js'

// The recorded-quote format (src/feed/recorded-quotes.md): JSON Lines, a header line, then one quote per line. A change
// that an older reader would misread bumps `version`; readers ignore fields they do not know.

export const recordedQuotesFormat = 'deltaflow-quotes'
export const recordedQuotesVersion = 1

const expecting = (what: string) => ({
  error: (issue: { input?: unknown }) => `expected ${what}, received ${describeReceived(issue.input)}`,
})

export const recordedQuotesHeaderSchema = z.object({
  format: z.literal(recordedQuotesFormat, expecting(`"${recordedQuotesFormat}" (the first line of a recording is its header)`)),
  version: z.literal(recordedQuotesVersion, expecting(`${recordedQuotesVersion} (the version this deltaflow reads)`)),
  /** Clock ms when the recording started. */
  startedAt: integerSchema,
  /** Free facts about the recording (API url, interval, command line), for people. */
  meta: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
})

export type RecordedQuotesHeader = z.output<typeof recordedQuotesHeaderSchema>

const usdSchema = z.string(expecting('a decimal string of USD'))

const answerSchema = z.discriminatedUnion(
  'source',
  [
    z.object({ source: z.literal('delta'), price: deltaPriceSchema }),
    z.object({ source: z.literal('market'), route: marketPriceRouteSchema }),
  ],
  {
    // The issue sits at answer.source but its input is the whole answer.
    error: (issue: { input?: unknown }) => {
      const input = issue.input
      const source = typeof input === 'object' && input !== null && 'source' in input ? input.source : undefined
      return `expected "delta" (with price) or "market" (with route), received ${describeReceived(source)}`
    },
  },
)

/** One line after the header. Amounts are decimal strings of raw units, times clock ms. */
export const recordedQuoteLineSchema = z.object({
  /** Clock ms when the answer arrived (Quote.receivedAt). */
  time: integerSchema,
  requestedAt: integerSchema,
  key: z.string(),
  source: z.enum(['delta', 'market', 'unified'], expecting('delta, market or unified')),
  chainId: wireChainIdSchema,
  /** Present on crosschain quotes only. */
  destChainId: wireChainIdSchema.optional(),
  srcToken: wireAddressSchema,
  srcDecimals: integerSchema,
  destToken: wireAddressSchema,
  destDecimals: integerSchema,
  side: wireSideSchema,
  /** The request's fixed amount. */
  amount: wireAmountSchema,
  srcAmount: wireAmountSchema,
  destAmount: wireAmountSchema,
  gas: z.object({ usd: usdSchema.optional(), wei: wireAmountSchema.optional(), units: wireAmountSchema.optional() }).optional(),
  fees: z
    .object({
      partnerPercent: z.number().optional(),
      bridge: z
        .array(z.object({ chainId: wireChainIdSchema, token: wireAddressSchema, amount: wireAmountSchema, usd: usdSchema }))
        .optional(),
      destAmountAfterFee: wireAmountSchema.optional(),
    })
    .optional(),
  /** The service's answer as it was parsed, so the quote can be acted on or replayed exactly. */
  answer: answerSchema,
})

/** A line as written (JSON): the input side of recordedQuoteLineSchema. */
export type RecordedQuoteJson = z.input<typeof recordedQuoteLineSchema>

/** A quote read back, with the decimals of its tokens, which the Quote itself does not carry. */
export type RecordedQuote = { quote: Quote; srcDecimals: number; destDecimals: number }

/** A recording that cannot be read, at a line. Operational: fix or cut the file. */
export class RecordedQuotesError extends BaseError {
  override name = 'RecordedQuotesError' as const
  constructor(file: string, line: number | undefined, problems: readonly string[], cause?: unknown) {
    const where = line === undefined ? file : `${file}:${line}`
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''
    super(`${where}: ${problems[0] ?? 'unreadable'}${more}`, {
      details: { file, ...(line === undefined ? {} : { line }), problems },
      cause,
      errorClass: 'operational',
      hint: `Each line must be a quote of format "${recordedQuotesFormat}" version ${recordedQuotesVersion} (the recorded-quotes format, src/feed/recorded-quotes.md in the repository); a line cut short by a crash can be deleted.`,
    })
  }
}

/** The line of `quote`; the decimals come from `decimalsOf` (a Delta answer does not state them). */
export function toRecordedQuoteJson(quote: Quote, decimalsOf: TokenDecimals): RecordedQuoteJson {
  const { request, answer } = quote
  const destChainId = request.destChainId ?? request.chainId
  return {
    time: quote.receivedAt,
    requestedAt: quote.requestedAt,
    key: quote.key,
    source: request.source,
    chainId: request.chainId,
    ...(destChainId !== request.chainId ? { destChainId } : {}),
    srcToken: request.srcToken,
    srcDecimals: decimalsOf(request.chainId, request.srcToken),
    destToken: request.destToken,
    destDecimals: decimalsOf(destChainId, request.destToken),
    side: request.side,
    amount: request.amount.toString(),
    srcAmount: quote.srcAmount.toString(),
    destAmount: quote.destAmount.toString(),
    ...(answer.source === 'delta' ? deltaCosts(answer.price) : marketCosts(answer.route)),
    answer:
      answer.source === 'delta' ? { source: 'delta', price: deltaPriceJson(answer.price) } : { source: 'market', route: answer.route.raw },
  }
}

/** Parses one line (already JSON-parsed) into a quote; throws RecordedQuotesError naming `file:line`. */
export function parseRecordedQuoteLine(json: unknown, file: string, line: number): RecordedQuote {
  const parsed = recordedQuoteLineSchema.safeParse(json, { reportInput: true })
  if (!parsed.success) throw new RecordedQuotesError(file, line, parsed.error.issues.map(describeIssue))
  const record = parsed.data
  const request: QuoteRequest = {
    source: record.source,
    chainId: record.chainId,
    ...(record.destChainId !== undefined && record.destChainId !== record.chainId ? { destChainId: record.destChainId } : {}),
    srcToken: record.srcToken,
    destToken: record.destToken,
    amount: record.amount,
    side: record.side,
  }
  const answer: Quote['answer'] = record.answer
  const answered = answeredAmounts(answer)
  const problems = [
    ...mismatch('key', quoteRequestKey(request), record.key, 'the key of the line’s request'),
    ...mismatch('srcAmount', answered.srcAmount.toString(), record.srcAmount.toString(), 'the source amount of the answer'),
    ...mismatch('destAmount', answered.destAmount.toString(), record.destAmount.toString(), 'the destination amount of the answer'),
    ...(record.source !== 'unified' && record.source !== answer.source
      ? [`answer.source: expected ${record.source} (the line’s source), received ${answer.source}`]
      : []),
  ]
  if (problems.length > 0) throw new RecordedQuotesError(file, line, problems)
  const quote: Quote = {
    request,
    key: record.key,
    srcAmount: record.srcAmount,
    destAmount: record.destAmount,
    answer,
    requestedAt: record.requestedAt,
    receivedAt: record.time,
  }
  return { quote, srcDecimals: record.srcDecimals, destDecimals: record.destDecimals }
}

/** Parses the header line (already JSON-parsed); throws RecordedQuotesError naming `file:line`. */
export function parseRecordedQuotesHeader(json: unknown, file: string, line = 1): RecordedQuotesHeader {
  const parsed = recordedQuotesHeaderSchema.safeParse(json, { reportInput: true })
  if (!parsed.success) throw new RecordedQuotesError(file, line, parsed.error.issues.map(describeIssue))
  return parsed.data
}

function answeredAmounts(answer: Quote['answer']): { srcAmount: bigint; destAmount: bigint } {
  return answer.source === 'market'
    ? { srcAmount: answer.route.srcAmount, destAmount: answer.route.destAmount }
    : { srcAmount: answer.price.route.origin.input.amount, destAmount: answer.price.route.destination.output.amount }
}

function mismatch(path: string, expected: string, received: string, what: string): string[] {
  return expected === received ? [] : [`${path}: expected ${JSON.stringify(expected)} (${what}), received ${JSON.stringify(received)}`]
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.map((part, index) => (typeof part === 'number' ? `[${part}]` : `${index > 0 ? '.' : ''}${String(part)}`)).join('')
  return path ? `${path}: ${issueMessage(issue)}` : issueMessage(issue)
}

function deltaCosts(price: DeltaPrice): Pick<RecordedQuoteJson, 'gas' | 'fees'> {
  const { gas, bridge } = price.route.fees
  const inWei = gas.token.address.toLowerCase() === nativeTokenPlaceholder.toLowerCase()
  return {
    gas: { usd: gas.amountUSD, ...(inWei ? { wei: gas.amount.toString() } : {}) },
    fees: {
      partnerPercent: price.partner.feePercent,
      ...(bridge.length > 0
        ? {
            bridge: bridge.map((fee) => ({
              chainId: fee.token.chainId,
              token: fee.token.address,
              amount: fee.amount.toString(),
              usd: fee.amountUSD,
            })),
          }
        : {}),
    },
  }
}

function marketCosts(route: Extract<Quote['answer'], { source: 'market' }>['route']): Pick<RecordedQuoteJson, 'gas' | 'fees'> {
  return {
    gas: { usd: route.gasCostUSD, units: route.gasCost.toString() },
    fees: {
      partnerPercent: route.partnerFee,
      ...(route.destAmountAfterFee !== undefined ? { destAmountAfterFee: route.destAmountAfterFee.toString() } : {}),
    },
  }
}

/** A parsed Delta price back in the service's JSON: the routes verbatim, the other fields are plain JSON already. */
export function deltaPriceJson(price: DeltaPrice): z.input<typeof deltaPriceSchema> {
  return {
    id: price.id,
    side: price.side,
    inputToken: price.inputToken,
    outputToken: price.outputToken,
    route: price.route.raw,
    alternatives: price.alternatives.map((route) => route.raw),
    partner: price.partner,
    spender: price.spender,
  }
}
