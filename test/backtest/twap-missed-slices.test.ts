import { Writable } from 'node:stream'
import { afterAll, describe, expect, it } from 'vitest'
import { openQuoteReplay } from '../../src/backtest/quote-blocks.js'
import { runBacktest } from '../../src/backtest/run-backtest.js'
import { parseConfigDocument } from '../../src/config/load-config.js'
import { createLogger } from '../../src/log/logger.js'
import { createTempDirectory } from '../helpers/temp-directory.js'
import { usdc, weth, writeFlatCandleQuotes } from './fixtures/backtest-inputs.js'

const t0 = Date.UTC(2026, 0, 5, 12, 0, 0)
const minute = 60_000

const directory = createTempDirectory('deltaflow-twap-missed-')
afterAll(() => directory.cleanup())

/** 1-minute candles of WETH in USDC at `priceAt(minute)`, for the minutes `minutes` (a minute left out has no quotes), quoted for 100 USDC. */
async function quoteSet(name: string, minutes: readonly number[], priceAt: (minute: number) => string): Promise<string> {
  const prices = Array.from({ length: Math.max(...minutes) + 1 }, (): string | null => null)
  for (const index of minutes) prices[index] = priceAt(index)
  const size = { token: 'quote', amount: 100_000_000n } as const
  return writeFlatCandleQuotes(directory, name, { from: t0, prices, intervalMs: minute, size })
}

/**
 * One DCA order of 400 USDC into WETH as a TWAP of 4 slices, one every 900 s (slices due 0.5, 15.5, 30.5 and 45.5
 * minutes in; deadline 70 minutes in), with or without a guard whose maxPrice is signed into every slice.
 */
function dcaDocument(guard: string) {
  return parseConfigDocument(
    `
risk:
  maxSlippageBps: 100
  maxPriceImpactPercent: 3
backtest:
  balances:
    "1:${usdc.address}": "400000000"
strategies:
  - name: dca
    use: dca
    config:
      chainId: 1
      srcToken: "${usdc.address}"
      destToken: "${weth.address}"
      budget: "400000000"
      periodSeconds: 3600
      orders: 1
      slicesPerOrder: 4
${guard}
`,
    directory.path('dca.yaml'),
  )
}

/** Runs the backtest and collects the strategy's log lines (the DCA logs each final order with its status reason). */
async function runLogged(quotes: string, guard = '') {
  const lines: Record<string, unknown>[] = []
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line))
      done()
    },
  })
  const run = await runBacktest({
    document: dcaDocument(guard),
    source: await openQuoteReplay(quotes),
    logger: createLogger({ level: 'info', destination }),
  })
  const finals = lines.filter((line) => line.msg === 'dca order final')
  return { run, finals }
}

describe('runBacktest: TWAP slices that are missed say why', () => {
  it('expires an order whose slices fall in a stretch without quotes, and names the stretch and the slices', async () => {
    // Quotes for minutes 0-9 and 70-119: slices 3 and 4 (30.5 and 45.5 minutes in) find no quote of the last 900 s.
    const minutes = [...Array.from({ length: 10 }, (_, i) => i), ...Array.from({ length: 50 }, (_, i) => 70 + i)]
    const quotes = await quoteSet('gap', minutes, () => '2000')
    const { run, finals } = await runLogged(quotes)

    expect(run.ordersByStrategy.dca).toEqual({ EXPIRED: 1 })
    expect(run.venue.fills()).toHaveLength(2)
    expect(finals).toHaveLength(1)
    expect(finals[0]?.status).toBe('EXPIRED')
    expect(finals[0]?.reason).toBe(
      `backtest: deadline passed; 2 of 4 slices missed, the first slice 3 of 4 at ${new Date(t0 + 30.5 * minute).toISOString()}: no quote of the pair in the last 900 s`,
    )
    const gap = run.warnings.find((warning) => warning.startsWith('the quotes stop'))
    expect(gap).toContain(`${new Date(t0 + 9 * minute + 45_000).toISOString()} to ${new Date(t0 + 70 * minute).toISOString()}`)
    expect(run.warnings).toContain(
      `2 TWAP slices were missed (no quote), the first: order ${run.venue.fills()[0]?.orderId}, slice 3 of 4 at ${new Date(t0 + 30.5 * minute).toISOString()}: no quote of the pair in the last 900 s; an order with a missed slice expires at its deadline`,
    )
  })

  it('expires an order whose later slices are priced above the signed limit, and says by how much', async () => {
    // WETH at 2,000 for 20 minutes, then 2,400: above the guard's 2,200 signed into every slice.
    const quotes = await quoteSet(
      'rise',
      Array.from({ length: 80 }, (_, i) => i),
      (index) => (index < 20 ? '2000' : '2400'),
    )
    const guard = `      guard:
        maxPrice: { srcAmount: "2200000000", destAmount: "1000000000000000000" }`
    const { run, finals } = await runLogged(quotes, guard)

    expect(run.ordersByStrategy.dca).toEqual({ EXPIRED: 1 })
    expect(run.venue.fills()).toHaveLength(2)
    // The least WETH a 100 USDC slice may give at 2,200 USDC per WETH: ceil(100e6 × 1e18 / 2,200e6).
    const limit = (100_000_000n * 10n ** 18n + 2_200_000_000n - 1n) / 2_200_000_000n
    expect(finals[0]?.reason).toMatch(
      new RegExp(
        `^backtest: deadline passed; 2 of 4 slices missed, the first slice 3 of 4 at .*: the quote gives \\d+, below the signed ${limit} per slice$`,
      ),
    )
    expect(run.warnings.some((warning) => warning.startsWith('the quotes stop'))).toBe(false)
    expect(run.warnings).toContainEqual(expect.stringMatching(/^2 TWAP slices were missed \(limit\)/))
  })

  it('says nothing of missed slices when every slice settles', async () => {
    const quotes = await quoteSet(
      'flat',
      Array.from({ length: 80 }, (_, i) => i),
      () => '2000',
    )
    const { run, finals } = await runLogged(quotes)

    expect(run.ordersByStrategy.dca).toEqual({ COMPLETED: 1 })
    expect(finals[0]?.reason).toBe('backtest: every slice settled')
    expect(run.warnings.filter((warning) => warning.includes('TWAP slice') || warning.startsWith('the quotes stop'))).toEqual([])
  })
})
