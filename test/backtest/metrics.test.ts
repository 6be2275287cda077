import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { backtestMetricsSchema, type SeriesPoint } from '../../src/backtest/backtest-result.js'
import { dailyTableOf } from '../../src/backtest/daily-table.js'
import {
  annualisedVolatilityOf,
  backtestMetricsOf,
  calmarRatioOf,
  chooseReturnPeriod,
  compoundAnnualGrowthOf,
  drawdownSeriesOf,
  exposureOf,
  type MetricsInputs,
  marketChangeOf,
  maxDrawdownOf,
  periodRateOf,
  periodReturnsOf,
  periodsPerYearOf,
  shareOfVolume,
  sharpeRatioOf,
  sortinoRatioOf,
  totalReturnOf,
} from '../../src/backtest/metrics.js'
import { roundTripProfitsOf, summarizeRoundTrips } from '../../src/backtest/round-trips.js'

const minute = 60_000
const hour = 3_600_000
const day = 86_400_000
const t0 = Date.UTC(2026, 1, 25)

/** The metrics of an equity curve alone: price flat, no base token held, no trades, risk-free rate 0. */
function inputsOf(equity: SeriesPoint[], more: Partial<MetricsInputs> = {}): MetricsInputs {
  return {
    equity,
    price: equity.map(([t]): SeriesPoint => [t, 2000]),
    exposure: equity.map(([t, value]) => ({ t, equity: value, baseValue: value / 2 })),
    startValue: equity[0]?.[1] ?? 0,
    endValue: equity[equity.length - 1]?.[1] ?? 0,
    riskFreeRate: 0,
    fees: 1,
    gas: 0.5,
    volume: 1000,
    roundTrips: null,
    ...more,
  }
}

/** Positive values at increasing times (gaps of a minute to six hours). */
const equityCurve = fc
  .array(fc.record({ gap: fc.integer({ min: minute, max: 6 * hour }), value: fc.double({ min: 1, max: 1e6, noNaN: true }) }), {
    minLength: 2,
    maxLength: 300,
  })
  .map((steps) => {
    let t = t0
    return steps.map(({ gap, value }): SeriesPoint => {
      t += gap
      return [t, value]
    })
  })

describe('returns', () => {
  it('gives the total return as end over start minus 1, and 0 without a positive start', () => {
    expect(totalReturnOf(100, 110)).toBeCloseTo(0.1, 12)
    expect(totalReturnOf(1000, 968.11)).toBeCloseTo(-0.03189, 12)
    expect(totalReturnOf(0, 10)).toBe(0)
  })

  it('annualises over a year of 365 days, not under 30 days', () => {
    // 100 → 121 over two years: 10 % a year
    expect(compoundAnnualGrowthOf(100, 121, 2 * 365 * day)).toBeCloseTo(0.1, 12)
    // +1 % over 36.5 days: ten such periods a year
    expect(compoundAnnualGrowthOf(100, 101, 36.5 * day)).toBeCloseTo(1.01 ** 10 - 1, 12)
    expect(compoundAnnualGrowthOf(100, 121, 30 * day - 1)).toBeNull()
    expect(compoundAnnualGrowthOf(0, 121, 60 * day)).toBeNull()
    expect(compoundAnnualGrowthOf(100, -5, 60 * day)).toBeNull()
    // a growth that overflows a double is not a number to print
    expect(compoundAnnualGrowthOf(1, 1e300, 30 * day)).toBeNull()
  })

  it("gives the market's change from the first and last price", () => {
    expect(
      marketChangeOf([
        [0, 2000],
        [1, 1900],
        [2, 2190],
      ]),
    ).toBeCloseTo(0.095, 12)
    expect(marketChangeOf([])).toBeNull()
  })

  it('takes the longest period giving at least 30 returns', () => {
    expect(chooseReturnPeriod(30 * day)).toBe('day')
    expect(chooseReturnPeriod(30 * day - 1)).toBe('hour')
    expect(chooseReturnPeriod(2 * day)).toBe('hour')
    expect(chooseReturnPeriod(30 * hour)).toBe('hour')
    expect(chooseReturnPeriod(29 * hour)).toBe('minute')
    expect(chooseReturnPeriod(5 * minute)).toBe('minute')
    expect(periodsPerYearOf(day)).toBe(365)
    expect(periodsPerYearOf(hour)).toBe(8760)
    expect(periodsPerYearOf(minute)).toBe(525_600)
  })

  it('reads the value at each period boundary as the last point at or before it, leaving out a part period', () => {
    const series: SeriesPoint[] = [
      [0, 100],
      [30 * minute, 105],
      [60 * minute, 110],
      [90 * minute, 99],
      [120 * minute, 121],
      [130 * minute, 500],
    ]
    const returns = periodReturnsOf(series, hour)
    expect(returns).toHaveLength(2)
    expect(returns[0]).toBeCloseTo(0.1, 12)
    expect(returns[1]).toBeCloseTo(0.1, 12)
    // a period without a point carries the last value: a 0 return
    expect(
      periodReturnsOf(
        [
          [0, 100],
          [10 * minute, 120],
          [3 * hour, 60],
        ],
        hour,
      ),
    ).toEqual([0.19999999999999996, 0, -0.5])
  })
})

describe('risk ratios', () => {
  const returns = [0.01, -0.01, 0.02, 0]

  it('annualises the sample standard deviation of the period returns', () => {
    // sd = √((0.005² + 0.015² + 0.015² + 0.005²) / 3) = 0.0129099…
    expect(annualisedVolatilityOf(returns, 365)).toBeCloseTo(0.012909944487358056 * Math.sqrt(365), 12)
    expect(annualisedVolatilityOf([0.01], 365)).toBeNull()
  })

  it('gives Sharpe as mean excess return over its deviation, annualised', () => {
    expect(sharpeRatioOf(returns, 0, 365)).toBeCloseTo(7.399324293474371, 9)
    // 5 % a year risk-free: 1.05^(1/365) − 1 a day off every return
    const riskFree = periodRateOf(0.05, 365)
    expect(riskFree).toBeCloseTo(0.00013368061711349633, 15)
    expect(sharpeRatioOf(returns, riskFree, 365)).toBeCloseTo(7.201495045919463, 9)
    expect(sharpeRatioOf([0.01, 0.01, 0.01], 0, 365)).toBeNull()
  })

  it('gives Sortino over the deviation of the returns below the risk-free rate only', () => {
    // downside deviation √(0.01² / 4) = 0.005; mean 0.005
    expect(sortinoRatioOf(returns, 0, 365)).toBeCloseTo(Math.sqrt(365), 9)
    expect(sortinoRatioOf(returns, periodRateOf(0.05, 365), 365)).toBeCloseTo(18.347294803821736, 9)
    expect(sortinoRatioOf([0.01, 0.02, 0], 0, 365)).toBeNull()
  })

  it('gives Calmar as CAGR over the maximum drawdown', () => {
    expect(calmarRatioOf(0.5, 0.25)).toBe(2)
    expect(calmarRatioOf(0.5, 0)).toBeNull()
    expect(calmarRatioOf(null, 0.25)).toBeNull()
  })
})

describe('drawdown', () => {
  // 25 % from 120 (1 h) to 90 (2 h), back at 120 at 4 h; then 10 % from 130 (5 h), not recovered by the end (7 h)
  const equity: SeriesPoint[] = [
    [0, 100],
    [hour, 120],
    [2 * hour, 90],
    [3 * hour, 96],
    [4 * hour, 120],
    [5 * hour, 130],
    [6 * hour, 117],
    [7 * hour, 125],
  ]

  it('finds the deepest fall, its peak, trough and recovery, and the longest time under water', () => {
    expect(maxDrawdownOf(equity)).toEqual({
      depth: 0.25,
      window: { from: hour, to: 2 * hour, recoveredAt: 4 * hour },
      longestUnderwaterMs: 3 * hour,
    })
  })

  it('counts a fall not recovered by the end to the end', () => {
    const falling: SeriesPoint[] = [
      [0, 100],
      [hour, 80],
      [5 * hour, 90],
    ]
    expect(maxDrawdownOf(falling)).toEqual({ depth: 0.2, window: { from: 0, to: hour, recoveredAt: null }, longestUnderwaterMs: 5 * hour })
  })

  it('draws the fall from the running peak at every point', () => {
    expect(drawdownSeriesOf(equity).map(([, value]) => value)).toEqual([0, 0, 0.25, 0.2, 0, 0, 0.1, 5 / 130])
  })

  it('is the largest point of the drawdown curve, for any curve', () => {
    fc.assert(
      fc.property(equityCurve, (curve) => {
        const deepest = Math.max(...drawdownSeriesOf(curve).map(([, value]) => value))
        const { depth, window } = maxDrawdownOf(curve)
        expect(depth).toBe(deepest)
        expect(window === null).toBe(depth === 0)
      }),
    )
  })
})

describe('exposure and costs', () => {
  it('is the share of time with at least 1 % of equity in the base token', () => {
    const samples = [
      { t: 0, equity: 100, baseValue: 50 },
      { t: 10, equity: 100, baseValue: 0.5 },
      { t: 30, equity: 100, baseValue: 1 },
      { t: 40, equity: 100, baseValue: 1 },
    ]
    expect(exposureOf(samples)).toBe(0.5)
    expect(exposureOf([])).toBe(0)
    expect(exposureOf([{ t: 0, equity: 100, baseValue: 100 }])).toBe(1)
  })

  it('gives fees and gas as a share of volume, null without volume', () => {
    expect(shareOfVolume(5, 1000)).toBe(0.005)
    expect(shareOfVolume(5, 0)).toBeNull()
  })
})

describe('backtestMetricsOf', () => {
  it('gives return 0, volatility 0, no Sharpe, no Sortino and no drawdown for a constant curve', () => {
    fc.assert(
      fc.property(equityCurve, fc.double({ min: 0.01, max: 1e9, noNaN: true }), (curve, value) => {
        const constant = curve.map(([t]): SeriesPoint => [t, value])
        const metrics = backtestMetricsSchema.parse(backtestMetricsOf(inputsOf(constant)))
        expect(metrics.totalReturn).toBe(0)
        expect(metrics.volatility).toBe(metrics.returns.count >= 2 ? 0 : null)
        expect(metrics.sharpe).toBeNull()
        expect(metrics.sortino).toBeNull()
        expect(metrics.calmar).toBeNull()
        expect(metrics.maxDrawdown).toBe(0)
        expect(metrics.maxDrawdownWindow).toBeNull()
        expect(metrics.maxDrawdownDurationMs).toBe(0)
        expect(drawdownSeriesOf(constant).every(([, drawdown]) => drawdown === 0)).toBe(true)
      }),
    )
  })

  it('is the same for a curve with every value doubled', () => {
    fc.assert(
      fc.property(equityCurve, (curve) => {
        const doubled = curve.map(([t, value]): SeriesPoint => [t, value * 2])
        const metrics = backtestMetricsOf(inputsOf(curve))
        const twice = backtestMetricsOf(inputsOf(doubled, { fees: 2, gas: 1, volume: 2000 }))
        expect(twice).toEqual(metrics)
        expect(backtestMetricsSchema.safeParse(metrics).success).toBe(true)
      }),
    )
  })

  it('is the same for a curve shifted in time, but for the times of its drawdown', () => {
    fc.assert(
      fc.property(equityCurve, fc.integer({ min: -t0 + 1, max: 10 * 365 * day }), (curve, shift) => {
        const shifted = curve.map(([t, value]): SeriesPoint => [t + shift, value])
        const { maxDrawdownWindow: window, ...figures } = backtestMetricsOf(inputsOf(curve))
        const { maxDrawdownWindow: shiftedWindow, ...shiftedFigures } = backtestMetricsOf(inputsOf(shifted))
        expect(shiftedFigures).toEqual(figures)
        expect(shiftedWindow).toEqual(
          window && {
            from: window.from + shift,
            to: window.to + shift,
            recoveredAt: window.recoveredAt === null ? null : window.recoveredAt + shift,
          },
        )
      }),
    )
  })

  it('states the period, periods per year, risk-free rate and count of the returns behind its ratios', () => {
    // two days sampled every 10 minutes, rising 0.01 % a sample: hourly returns
    const curve = Array.from({ length: 289 }, (_, index): SeriesPoint => [t0 + index * 10 * minute, 1000 * 1.0001 ** index])
    const metrics = backtestMetricsOf(inputsOf(curve, { riskFreeRate: 0.04 }))
    expect(metrics.returns).toEqual({ period: 'hour', periodMs: hour, periodsPerYear: 8760, riskFreeRate: 0.04, count: 48 })
    expect(metrics.totalReturn).toBeCloseTo(1.0001 ** 288 - 1, 12)
    // two days are too short to annualise a growth rate, and so to give a Calmar ratio
    expect(metrics.cagr).toBeNull()
    expect(metrics.calmar).toBeNull()
    expect(metrics.maxDrawdown).toBe(0)
    expect(metrics.exposure).toBe(1)
    expect(metrics.feesShareOfVolume).toBe(0.001)
    expect(metrics.gasShareOfVolume).toBe(0.0005)
  })
})

describe('round trips', () => {
  const fills = [
    { side: 'BUY', baseAmount: 1, quoteAmount: 100, gas: 1 },
    { side: 'BUY', baseAmount: 1, quoteAmount: 110, gas: 1 },
    // closes the first buy (+20 − gas 1 − gas 1) and half the second (+5 − 0.5 − 0.5)
    { side: 'SELL', baseAmount: 1.5, quoteAmount: 180, gas: 1.5 },
    // closes the rest of the second (0.5 × (95 − 110) − 0.5 gas) and opens a short of 0.5 at 95
    { side: 'SELL', baseAmount: 1, quoteAmount: 95, gas: 0 },
    // closes the short: 0.5 × (95 − 90)
    { side: 'BUY', baseAmount: 0.5, quoteAmount: 45, gas: 0 },
  ] as const

  it('matches lots first-in first-out, net of gas', () => {
    const profits = roundTripProfitsOf(fills)
    expect(profits).toHaveLength(4)
    expect(profits[0]).toBeCloseTo(18, 12)
    expect(profits[1]).toBeCloseTo(4, 12)
    expect(profits[2]).toBeCloseTo(-8, 12)
    expect(profits[3]).toBeCloseTo(2.5, 12)
  })

  it('sums up wins, losses, profit factor and expectancy', () => {
    const summary = summarizeRoundTrips(roundTripProfitsOf(fills))
    expect(summary).not.toBeNull()
    expect(summary?.trades).toBe(4)
    expect(summary?.wins).toBe(3)
    expect(summary?.losses).toBe(1)
    expect(summary?.winRate).toBe(0.75)
    expect(summary?.averageWin).toBeCloseTo(24.5 / 3, 12)
    expect(summary?.averageLoss).toBeCloseTo(8, 12)
    expect(summary?.profitFactor).toBeCloseTo(24.5 / 8, 12)
    // 0.75 × 8.1667 − 0.25 × 8
    expect(summary?.expectancy).toBeCloseTo(4.125, 12)
  })

  it('has no trip without a closing trade, and no profit factor without a loss', () => {
    expect(summarizeRoundTrips(roundTripProfitsOf(fills.filter((fill) => fill.side === 'BUY')))).toBeNull()
    expect(summarizeRoundTrips([1, 2])?.profitFactor).toBeNull()
  })

  it('adds up to what the trades earned when the position is closed', () => {
    const buys = fc.array(
      fc.record({ baseAmount: fc.double({ min: 0.001, max: 10, noNaN: true }), price: fc.double({ min: 100, max: 5000, noNaN: true }) }),
      { minLength: 1, maxLength: 30 },
    )
    fc.assert(
      fc.property(buys, fc.double({ min: 100, max: 5000, noNaN: true }), (lots, sellPrice) => {
        const bought = lots.map(({ baseAmount, price }) => ({
          side: 'BUY' as const,
          baseAmount,
          quoteAmount: baseAmount * price,
          gas: 0.1,
        }))
        const base = bought.reduce((sum, fill) => sum + fill.baseAmount, 0)
        const sold = { side: 'SELL' as const, baseAmount: base, quoteAmount: base * sellPrice, gas: 0.2 }
        const profits = roundTripProfitsOf([...bought, sold])
        expect(profits).toHaveLength(lots.length)
        const earned = sold.quoteAmount - bought.reduce((sum, fill) => sum + fill.quoteAmount + fill.gas, 0) - sold.gas
        expect(profits.reduce((sum, profit) => sum + profit, 0)).toBeCloseTo(earned, 6)
      }),
    )
  })
})

describe('dailyTableOf', () => {
  const at = (dayOfMonth: number, hours: number) => Date.UTC(2026, 1, dayOfMonth, hours)
  const equity: SeriesPoint[] = [
    [at(25, 0), 100],
    [at(25, 12), 110],
    [at(26, 0), 120],
    [at(26, 6), 90],
    [at(28, 3), 99],
  ]

  it('gives each UTC day its start and end value, return, trades, fees and gas', () => {
    const days = dailyTableOf(equity, [
      { t: at(25, 10), trade: true, fee: 1, gas: 0.5 },
      { t: at(25, 11), trade: true, fee: 1, gas: 0 },
      { t: at(27, 5), trade: false, fee: 2, gas: 0 },
    ])
    expect(days.map(({ day, startValue, endValue, trades, fees, gas }) => ({ day, startValue, endValue, trades, fees, gas }))).toEqual([
      { day: '2026-02-25', startValue: 100, endValue: 120, trades: 2, fees: 2, gas: 0.5 },
      { day: '2026-02-26', startValue: 120, endValue: 90, trades: 0, fees: 0, gas: 0 },
      { day: '2026-02-27', startValue: 90, endValue: 90, trades: 0, fees: 2, gas: 0 },
      { day: '2026-02-28', startValue: 90, endValue: 99, trades: 0, fees: 0, gas: 0 },
    ])
    expect(days.map((row) => row.return)).toEqual([0.19999999999999996, -0.25, 0, 0.10000000000000009])
  })

  it("compounds to the run's return", () => {
    fc.assert(
      fc.property(equityCurve, (curve) => {
        const growth = dailyTableOf(curve, []).reduce((product, row) => product * (1 + row.return), 1)
        const [, first] = curve[0] as SeriesPoint
        const [, last] = curve[curve.length - 1] as SeriesPoint
        expect(growth / (last / first)).toBeCloseTo(1, 9)
      }),
    )
  })
})
