import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { gunzipSync } from 'node:zlib'
import type { Address } from 'viem'
import { afterAll, describe, expect, it } from 'vitest'
import { deltaPriceSchema, isCrosschainRoute } from '../../src/api/delta/delta-price-schema.js'
import { marketPriceRouteSchema } from '../../src/api/market/price-route-schema.js'
import { openQuoteReplay, QuoteReplayFileError } from '../../src/backtest/quote-blocks.js'
import { createQuoteStore } from '../../src/backtest/quote-store.js'
import type { QuoteBlock, ReplayRequest } from '../../src/backtest/replay-source.js'
import { synthesizeAnswer } from '../../src/backtest/synthesize-answer.js'
import { type QuoteRequest, quoteRequestKey } from '../../src/feed/quote.js'
import { readRecordedQuotes } from '../../src/feed/read-recorded-quotes.js'
import {
  deltaPriceJson,
  type RecordedQuote,
  type RecordedQuoteJson,
  RecordedQuotesError,
  toRecordedQuoteJson,
} from '../../src/feed/recorded-quote.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

const sample = fileURLToPath(new URL('../fixtures/quotes/ethusdt-sample.jsonl.gz', import.meta.url))
const sampleLines = gunzipSync(readFileSync(sample)).toString('utf8').trimEnd().split('\n')
const directory = createTempDirectory('deltaflow-quote-blocks-')
afterAll(() => directory.cleanup())

const weth: Address = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'
const usdc: Address = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
const usdcOnBase: Address = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'

function writeJsonl(name: string, lines: readonly unknown[]): string {
  const file = directory.path(name)
  writeFileSync(file, lines.map((line) => `${typeof line === 'string' ? line : JSON.stringify(line)}\n`).join(''))
  return file
}

function line(index: number, overrides: Partial<RecordedQuoteJson> = {}): RecordedQuoteJson {
  return { ...(JSON.parse(sampleLines[index] as string) as RecordedQuoteJson), ...overrides }
}

function replayRequest(request: QuoteRequest, srcDecimals: number, destDecimals: number, id = 0): ReplayRequest {
  return { id, key: quoteRequestKey(request), request, srcDecimals, destDecimals }
}

/** toRecordedQuoteJson's flat fields of a quote made of the request and the answer. */
function flatFieldsOf(request: ReplayRequest, answer: RecordedQuote['quote']['answer'], srcAmount: bigint, destAmount: bigint) {
  const { answer: _, ...flat } = toRecordedQuoteJson(
    { request: request.request, key: request.key, srcAmount, destAmount, answer, requestedAt: 0, receivedAt: 0 },
    (chainId, token) =>
      chainId === request.request.chainId && token === request.request.srcToken ? request.srcDecimals : request.destDecimals,
  )
  return flat
}

describe('openQuoteReplay on a JSONL recording', () => {
  it('gives the quotes readRecordedQuotes reads, in blocks, each named by file:line', async () => {
    const source = await openQuoteReplay(sample)
    expect(source.header).toEqual(await readRecordedQuotes(sample).header())
    const recorded: RecordedQuote[] = []
    for await (const quote of readRecordedQuotes(sample)) recorded.push(quote)
    let index = 0
    let blocks = 0
    for await (const block of source.blocks()) {
      blocks++
      for (let inBlock = 0; inBlock < block.length; inBlock++) {
        const { quote, srcDecimals, destDecimals } = recorded[index] as RecordedQuote
        expect(block.quote(inBlock)).toEqual(quote)
        expect([block.time(inBlock), block.requestedAt(inBlock), block.srcAmount(inBlock), block.destAmount(inBlock)]).toEqual([
          quote.receivedAt,
          quote.requestedAt,
          quote.srcAmount,
          quote.destAmount,
        ])
        expect(block.answer(inBlock)).toEqual(quote.answer)
        expect(block.request(inBlock)).toMatchObject({ key: quote.key, request: quote.request, srcDecimals, destDecimals })
        expect(block.where(inBlock)).toBe(`${sample}:${index + 2}`)
        index++
      }
    }
    expect(index).toBe(2304)
    expect(blocks).toBeGreaterThan(1)
  })

  it('reads the costs from the flat fields', async () => {
    const source = await openQuoteReplay(sample)
    const blocks: QuoteBlock[] = []
    for await (const block of source.blocks({ to: Number(line(1).time) + 1 })) blocks.push(block)
    const block = blocks[0] as QuoteBlock
    expect(blocks.length === 1 && block.length).toBe(12)
    expect([block.request(0).request.source, block.request(11).request.source]).toEqual(['market', 'delta'])
    expect(block.costs(0)).toEqual({ gasUsd: '0.30', gasUnits: 150_000n, partnerPercent: 0.01 })
    expect(block.costs(11)).toEqual({ gasUsd: '0', gasWei: 0n, partnerPercent: 0.01 })
  })

  it('shares one request object per key, ids dense from 0, the same on every iteration', async () => {
    const source = await openQuoteReplay(sample)
    const ids = async (range?: { from?: number }) => {
      const seen = new Map<string, ReplayRequest>()
      for await (const block of source.blocks(range)) {
        for (let index = 0; index < block.length; index++) {
          const request = block.request(index)
          expect(seen.get(request.key) ?? request).toBe(request)
          seen.set(request.key, request)
          expect(block.quote(index).request).toBe(request.request)
        }
      }
      return [...seen.values()].map((request) => [request.key, request.id])
    }
    const first = await ids()
    expect(first.map(([, id]) => id)).toEqual([...Array(12).keys()])
    expect(await ids({ from: Number(line(500).time) })).toEqual(first)
  })

  it('refuses a bad line and a quote earlier than the one before, naming file:line', async () => {
    const bad = writeJsonl('bad.jsonl', [sampleLines[0], line(1), line(2, { srcAmount: '-5' })])
    const source = await openQuoteReplay(bad)
    const read = async (file: string) => {
      for await (const _ of (await openQuoteReplay(file)).blocks()) {
        // reading is enough
      }
    }
    await expect(read(bad)).rejects.toThrow(RecordedQuotesError)
    await expect(read(bad)).rejects.toThrow(`${bad}:3: srcAmount: expected a decimal integer string, received "-5"`)
    expect(source.file).toBe(bad)
    const backwards = writeJsonl('backwards.jsonl', [sampleLines[0], line(1), '', line(2, { time: 1 })])
    await expect(read(backwards)).rejects.toThrow(`${backwards}:4: time: expected 1772452800000 or later (the time of line 2`)
    const empty = writeJsonl('empty.jsonl', [])
    await expect(openQuoteReplay(empty)).rejects.toThrow(`${empty}: the file is empty`)
  })

  it('refuses a file it cannot tell the kind of', async () => {
    await expect(openQuoteReplay('quotes.csv')).rejects.toThrow(QuoteReplayFileError)
    await expect(openQuoteReplay('quotes.csv')).rejects.toThrow(
      'quotes.csv: expected a quote store (*.sqlite) or a recording (*.jsonl, *.jsonl.gz)',
    )
  })
})

describe('synthesizeAnswer', () => {
  it('makes a Market priceRoute that parses and carries the amounts, gas, partner fee and destAmountAfterFee', () => {
    const request = replayRequest(
      { source: 'market', chainId: 1, srcToken: weth, destToken: usdc, amount: 10n ** 18n, side: 'SELL' },
      18,
      6,
    )
    const costs = { gasUsd: '0.42', gasUnits: 180_000n, partnerPercent: 0.05, destAmountAfterFee: 1_999_000_000n }
    const answer = synthesizeAnswer({ request, source: 'market', srcAmount: 10n ** 18n, destAmount: 2_000_000_000n, costs, time: 5 })
    if (answer.source !== 'market') throw new Error('expected a Market answer')
    expect(marketPriceRouteSchema.parse(answer.route.raw)).toEqual(answer.route)
    expect(answer.route).toMatchObject({
      srcAmount: 10n ** 18n,
      destAmount: 2_000_000_000n,
      network: 1,
      srcDecimals: 18,
      destDecimals: 6,
      side: 'SELL',
    })
    expect(flatFieldsOf(request, answer, 10n ** 18n, 2_000_000_000n)).toMatchObject({
      gas: { usd: '0.42', units: '180000' },
      fees: { partnerPercent: 0.05, destAmountAfterFee: '1999000000' },
    })
  })

  it('makes a crosschain Delta price that parses and carries the amounts, gas and bridge fees', () => {
    const request = replayRequest(
      { source: 'unified', chainId: 1, destChainId: 8453, srcToken: usdc, destToken: usdcOnBase, amount: 1_000_000_000n, side: 'SELL' },
      6,
      6,
      3,
    )
    const costs = {
      gasUsd: '0.10',
      gasWei: 40_000_000_000_000n,
      partnerPercent: 0.01,
      bridge: [{ chainId: 8453, token: usdcOnBase, amount: 500_000n, usd: '0.50' }],
    }
    const answer = synthesizeAnswer({ request, source: 'delta', srcAmount: 1_000_000_000n, destAmount: 999_500_000n, costs, time: 7 })
    if (answer.source !== 'delta') throw new Error('expected a Delta answer')
    expect(deltaPriceSchema.parse(deltaPriceJson(answer.price))).toEqual(answer.price)
    expect(isCrosschainRoute(answer.price.route)).toBe(true)
    expect(answer.price.route.origin.input).toMatchObject({ amount: 1_000_000_000n, token: { chainId: 1 } })
    expect(answer.price.route.destination.output).toMatchObject({ amount: 999_500_000n, token: { chainId: 8453 } })
    expect(answer.price.id).toBe('deltaflow-replay-7-3')
    expect(flatFieldsOf(request, answer, 1_000_000_000n, 999_500_000n)).toMatchObject({
      gas: { usd: '0.10', wei: '40000000000000' },
      fees: { partnerPercent: 0.01, bridge: [{ chainId: 8453, token: usdcOnBase.toLowerCase(), amount: '500000', usd: '0.50' }] },
    })
  })

  it('answers a unified quote of a store without answers in the mode that answered it', async () => {
    const file = directory.path('unified.sqlite')
    const store = createQuoteStore({ file, header: { format: 'deltaflow-quotes', version: 1, startedAt: 0 }, keepAnswers: false })
    const unified = (index: number) => {
      const recorded = line(index)
      const request: QuoteRequest = {
        source: 'unified',
        chainId: 1,
        srcToken: recorded.srcToken,
        destToken: recorded.destToken,
        amount: BigInt(recorded.amount),
        side: recorded.side,
      }
      return { ...recorded, source: 'unified' as const, key: quoteRequestKey(request) }
    }
    const market = unified(1)
    const delta = { ...unified(7), key: market.key, time: market.time + 1 }
    expect(delta.answer.source).toBe('delta')
    store.write(market)
    store.write({
      ...delta,
      srcToken: market.srcToken,
      destToken: market.destToken,
      side: market.side,
      amount: market.amount,
      srcDecimals: 6,
      destDecimals: 18,
    })
    await store.close()
    const blocks: QuoteBlock[] = []
    for await (const block of (await openQuoteReplay(file)).blocks()) blocks.push(block)
    const block = blocks[0] as QuoteBlock
    expect([block.answer(0).source, block.answer(1).source]).toEqual(['market', 'delta'])
    expect(block.request(0)).toBe(block.request(1))
  })
})
