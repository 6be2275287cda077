import { describe, expect, it } from 'vitest'
import {
  deflatedSharpeRatio,
  expectedMaximumSharpe,
  momentsOf,
  normalCdf,
  normalQuantile,
} from '../../../src/backtest/optimize/deflated-sharpe.js'

describe('the Deflated Sharpe Ratio', () => {
  it('has the normal quantiles and distribution it is built from', () => {
    expect(normalQuantile(0.9)).toBeCloseTo(1.2815516, 6)
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 6)
    expect(normalQuantile(0.01)).toBeCloseTo(-2.326348, 6)
    expect(normalCdf(0)).toBeCloseTo(0.5, 7)
    expect(normalCdf(1.959964)).toBeCloseTo(0.975, 6)
    expect(normalCdf(-1)).toBeCloseTo(0.158655, 6)
    expect(() => normalQuantile(1)).toThrow('strictly between 0 and 1')
  })

  it('expects the best of 10 trials with Sharpe variance 0.01 at 0.157460 by luck', () => {
    // √0.01 × ((1 − 0.5772157) × Φ⁻¹(0.9) + 0.5772157 × Φ⁻¹(1 − 1/(10e)))
    // = 0.1 × (0.4227843 × 1.2815516 + 0.5772157 × 1.7892418) = 0.1 × (0.5418200 + 1.0327773) = 0.157460
    expect(expectedMaximumSharpe(10, 0.01)).toBeCloseTo(0.15746, 5)
    expect(expectedMaximumSharpe(1, 0.01)).toBe(0)
  })

  it('deflates a Sharpe of 0.3 over 100 skewed, fat-tailed returns to 0.9007', () => {
    // z = (0.3 − 0.157460) × √99 / √(1 − (−0.5)(0.3) + (4 − 1)/4 × 0.09) = 1.418255 / √1.2175 = 1.285347; Φ(z) = 0.900664
    const { dsr, expectedMaximum } = deflatedSharpeRatio({
      sharpe: 0.3,
      count: 100,
      skewness: -0.5,
      kurtosis: 4,
      trials: 10,
      sharpeVariance: 0.01,
    })
    expect(expectedMaximum).toBeCloseTo(0.15746, 5)
    expect(dsr).toBeCloseTo(0.900664, 5)
  })

  it('is the probabilistic Sharpe ratio against 0 for one trial', () => {
    // Φ(0.1 × √251 / √(1 + 0.5 × 0.01)) = Φ(1.580350) = 0.942987
    const { dsr } = deflatedSharpeRatio({ sharpe: 0.1, count: 252, skewness: 0, kurtosis: 3, trials: 1, sharpeVariance: 0.04 })
    expect(dsr).toBeCloseTo(0.942987, 5)
  })

  it('falls as more trials are tried', () => {
    const at = (trials: number) =>
      deflatedSharpeRatio({ sharpe: 0.2, count: 200, skewness: 0, kurtosis: 3, trials, sharpeVariance: 0.005 }).dsr ?? 0
    expect(at(2)).toBeGreaterThan(at(20))
    expect(at(20)).toBeGreaterThan(at(2_000))
  })

  it('reads the moments of returns: kurtosis not excess, none with fewer than 4 returns', () => {
    expect(momentsOf([0.01, 0.02, 0.03])).toBeUndefined()
    expect(momentsOf([0.01, 0.01, 0.01, 0.01])).toEqual({ count: 4, sharpe: null, skewness: 0, kurtosis: 3 })
    const moments = momentsOf([0.01, -0.02, 0.03, 0.0, 0.02, -0.01])
    expect(moments?.count).toBe(6)
    // mean 0.005, sample standard deviation 0.0187083
    expect(moments?.sharpe).toBeCloseTo(0.005 / 0.0187083, 4)
    expect(moments?.kurtosis).toBeGreaterThan(0)
  })
})
