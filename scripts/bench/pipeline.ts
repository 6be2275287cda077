import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Address } from 'viem'
import { z } from 'zod'
import { marketPriceRouteSchema } from '../../src/api/market/price-route-schema.js'
import { type Quote, type QuoteRequest, quoteRequestKey } from '../../src/feed/quote.js'
import { openJournal } from '../../src/journal/journal.js'
import { createLogger } from '../../src/log/logger.js'
import { defineStrategy } from '../../src/strategy/define-strategy.js'
import { frozenQuote } from '../../src/strategy/frozen-copy.js'
import { createSafeStrategy, type SafeStrategy } from '../../src/strategy/safe-strategy.js'
import { systemClock } from '../../src/time/clock.js'
import { type BenchResult, summarize } from './summary.js'

const fixture = new URL('../../test/fixtures/velora/market-priceRoute-v62-usdc-eth-uniswapv3-docs-1.json', import.meta.url)

/**
 * Quotes per second from the feed's output to the strategies' handlers, as the bot delivers them: each quote (a fresh
 * copy of a real Market price route as the API client parses it) frozen once and handed to every subscribed strategy
 * through its safe wrapper (the handler called in turn, its output validated, its state buffered), with the
 * strategies' state in a real journal file. Timed from the first delivery of a batch of 1000 quotes until every
 * strategy has handled all of them; building the fresh quotes is not timed.
 */
export async function benchPipeline({ runs = 7, quotesPerRun = 200_000, strategyCount = 1 } = {}): Promise<BenchResult> {
  const directory = mkdtempSync(join(tmpdir(), 'deltaflow-bench-pipeline-'))
  const journal = openJournal({ file: join(directory, 'journal.sqlite'), clock: systemClock })
  try {
    const route = marketPriceRouteSchema.parse((JSON.parse(readFileSync(fixture, 'utf8')) as { priceRoute: unknown }).priceRoute)
    const request: QuoteRequest = {
      source: 'market',
      chainId: 1,
      srcToken: route.srcToken as Address,
      destToken: route.destToken as Address,
      amount: BigInt(route.srcAmount),
      side: 'SELL',
    }
    const logger = createLogger({ level: 'silent' })
    let destSeen = 0n
    const strategies: SafeStrategy[] = Array.from({ length: strategyCount }, (_, index) =>
      createSafeStrategy(
        defineStrategy({
          apiVersion: 1,
          name: `bench-${index}`,
          configSchema: z.object({}),
          subscriptions: () => [request],
          // Reads the quote as a strategy would, and decides to do nothing.
          onQuote: (quote) => {
            destSeen += quote.destAmount
          },
        }),
        { config: {}, clock: systemClock, journal, logger },
      ),
    )
    const samples: number[] = []
    for (let run = 0; run < runs + 1; run++) {
      let elapsed = 0
      for (let sent = 0; sent < quotesPerRun; sent += 1_000) {
        // Fresh quotes, as the feed makes them: built outside the timed part (the answer is not walked on delivery).
        const quotes: Quote[] = Array.from({ length: 1_000 }, () => ({
          request,
          key: quoteRequestKey(request),
          srcAmount: request.amount,
          destAmount: BigInt(route.destAmount),
          answer: { source: 'market', route: { ...route } },
          requestedAt: 0,
          receivedAt: 0,
        }))
        const started = performance.now()
        const handled: Promise<unknown>[] = []
        for (const fresh of quotes) {
          // What the bot does with each quote of the feed: one read-only view, handed to every subscriber.
          const quote = frozenQuote(fresh) as Quote
          for (const strategy of strategies) handled.push(strategy.handleQuote(quote))
        }
        await Promise.all(handled)
        elapsed += performance.now() - started
      }
      if (run > 0) samples.push(quotesPerRun / (elapsed / 1000))
    }
    const expected = BigInt(route.destAmount) * BigInt(quotesPerRun * (runs + 1) * strategyCount)
    if (destSeen !== expected) throw new Error(`the strategies saw ${destSeen}, expected ${expected}`)
    return summarize('quotes delivered to strategy handlers', 'quotes/s', samples, {
      target: '>= 200000 quotes/s',
      strategies: String(strategyCount),
      'handler calls per quote': String(strategyCount),
      quote: 'a real Market price route',
    })
  } finally {
    journal.close()
    rmSync(directory, { recursive: true, force: true })
  }
}
