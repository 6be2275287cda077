import { mean, sampleKurtosis, sampleSkewness, sampleStandardDeviation } from 'simple-statistics'

// The Deflated Sharpe Ratio (Bailey and López de Prado, "The Deflated Sharpe Ratio: Correcting for Selection Bias,
// Backtest Overfitting and Non-Normality", 2014): the probability that the true Sharpe ratio of the selected strategy
// is above the Sharpe ratio the best of N unskilled trials would show by luck alone.

/** Moments of the period returns the metrics used (summary.metrics.returns.period). */
export type ReturnMoments = {
  count: number
  /** Mean over standard deviation, per period (not annualised); null without deviation. */
  sharpe: number | null
  skewness: number
  /** Kurtosis, not excess (3 for a normal distribution). */
  kurtosis: number
}

/** The Euler–Mascheroni constant. */
export const eulerGamma = 0.5772156649015329

/** Moments of a series of period returns (the Sharpe ratio with the sample standard deviation, as metrics.ts); undefined with fewer than 4 returns. */
export function momentsOf(returns: readonly number[]): ReturnMoments | undefined {
  if (returns.length < 4) return undefined
  const deviation = sampleStandardDeviation([...returns])
  if (!(deviation > 1e-12)) return { count: returns.length, sharpe: null, skewness: 0, kurtosis: 3 }
  return {
    count: returns.length,
    sharpe: mean([...returns]) / deviation,
    skewness: sampleSkewness([...returns]),
    // simple-statistics gives the excess kurtosis
    kurtosis: sampleKurtosis([...returns]) + 3,
  }
}

/** The standard normal distribution function Φ (Abramowitz–Stegun 7.1.26 through erf; absolute error below 1.5e-7). */
export function normalCdf(x: number): number {
  const z = Math.abs(x) / Math.SQRT2
  const t = 1 / (1 + 0.3275911 * z)
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-z * z)
  return x >= 0 ? (1 + erf) / 2 : (1 - erf) / 2
}

/** Φ⁻¹, the standard normal quantile (Acklam's rational approximation, relative error below 1.2e-9). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`expected a probability strictly between 0 and 1, received ${p}`)
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239]
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572]
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783]
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416]
  const [a0, a1, a2, a3, a4, a5] = a as [number, number, number, number, number, number]
  const [b0, b1, b2, b3, b4] = b as [number, number, number, number, number]
  const [c0, c1, c2, c3, c4, c5] = c as [number, number, number, number, number, number]
  const [d0, d1, d2, d3] = d as [number, number, number, number]
  const low = 0.02425
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p))
    return (((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) / ((((d0 * q + d1) * q + d2) * q + d3) * q + 1)
  }
  if (p > 1 - low) return -normalQuantile(1 - p)
  const q = p - 0.5
  const r = q * q
  return ((((((a0 * r + a1) * r + a2) * r + a3) * r + a4) * r + a5) * q) / (((((b0 * r + b1) * r + b2) * r + b3) * r + b4) * r + 1)
}

/**
 * The Sharpe ratio the best of `trials` independent unskilled trials reaches by chance: √V · ((1 − γ) Φ⁻¹(1 − 1/N) +
 * γ Φ⁻¹(1 − 1/(N e))), V the variance of the trials' Sharpe ratios (per period), γ Euler–Mascheroni. 0 for one trial.
 */
export function expectedMaximumSharpe(trials: number, sharpeVariance: number): number {
  if (trials <= 1 || sharpeVariance <= 0) return 0
  return (
    Math.sqrt(sharpeVariance) * ((1 - eulerGamma) * normalQuantile(1 - 1 / trials) + eulerGamma * normalQuantile(1 - 1 / (trials * Math.E)))
  )
}

export type DeflatedSharpeInputs = {
  /** The selected strategy's Sharpe ratio, per period (not annualised). */
  sharpe: number
  /** Number of returns it was measured on. */
  count: number
  skewness: number
  /** Not excess: 3 for normal returns. */
  kurtosis: number
  /** How many candidates were tried. */
  trials: number
  /** Variance of the per-period Sharpe ratios across the trials. */
  sharpeVariance: number
}

/**
 * DSR = Φ((SR − SR₀) √(T − 1) / √(1 − γ₃ SR + (γ₄ − 1)/4 SR²)), SR₀ = expectedMaximumSharpe: the probability (0 to 1)
 * that the strategy's Sharpe ratio is above what selection among `trials` alone explains. Null when it cannot be told
 * (fewer than 2 returns, a non-positive denominator).
 */
export function deflatedSharpeRatio(inputs: DeflatedSharpeInputs): { dsr: number | null; expectedMaximum: number } {
  const expectedMaximum = expectedMaximumSharpe(inputs.trials, inputs.sharpeVariance)
  const { sharpe, count, skewness, kurtosis } = inputs
  const spread = 1 - skewness * sharpe + ((kurtosis - 1) / 4) * sharpe * sharpe
  if (count < 2 || !(spread > 0)) return { dsr: null, expectedMaximum }
  return { dsr: normalCdf(((sharpe - expectedMaximum) * Math.sqrt(count - 1)) / Math.sqrt(spread)), expectedMaximum }
}
