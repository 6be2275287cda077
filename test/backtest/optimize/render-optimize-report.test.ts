import { describe, expect, it } from 'vitest'
import type { BacktestSummary } from '../../../src/backtest/backtest-result.js'
import { type OptimizeReport, runOptimization } from '../../../src/backtest/optimize/optimize.js'
import { renderOptimizeReport } from '../../../src/backtest/optimize/render-optimize-report.js'
import type { TrialExecutor, TrialResult, TrialSpec } from '../../../src/backtest/optimize/trial.js'
import { type OptimizeConfig, optimizeConfigSchema } from '../../../src/config/optimize-schema.js'
import { syntheticBacktestResult } from '../synthetic-backtest-result.js'

// The optimisation report as HTML, from the real optimiser on a scripted executor: whatever the YAML holds (a choice
// or a path with markup) and whatever a failed trial says comes out as text, and a figure a trial could not give is a
// dash with its reason, never NaN or null.

const hostile = '<script>document.title="pwned"</script>'
const hostilePath = 'strategies.0.config.<img src=x onerror=alert(1)>'
const base = syntheticBacktestResult({ points: 20 }).summary

function summaryWith(sharpe: number): BacktestSummary {
  return { ...base, trades: 3, metrics: { ...base.metrics, sharpe, totalReturn: sharpe / 100, maxDrawdown: 0.01 } }
}

/** x = 3 fails (with markup in its message); the hostile choice scores best everywhere. */
function scripted(spec: TrialSpec): TrialResult {
  const x = Number(spec.overrides[0]?.value)
  const mode = spec.overrides[1]?.value
  if (x === 3) return { id: spec.id, tradesHash: '', error: `the config refuses x = 3 <b>${hostile}</b>` }
  return { id: spec.id, summary: summaryWith(x + (mode === hostile ? 1 : 0)), tradesHash: 'ab' }
}

const executor: TrialExecutor = {
  async run(specs) {
    return specs.map(scripted)
  },
  async close() {},
}

function optimizeConfig(): OptimizeConfig {
  return optimizeConfigSchema.parse({
    space: {
      x: { range: { min: 1, max: 4, step: 1, type: 'integer' } },
      [hostilePath]: { choices: ['plain', hostile] },
    },
    walkForward: { folds: 2, inSample: 0.5, mode: 'rolling' },
  })
}

async function reportOf(chosen: TrialExecutor): Promise<OptimizeReport> {
  return runOptimization({
    configFile: '/configs/x.yaml',
    quotes: '/quotes/q.sqlite',
    optimize: optimizeConfig(),
    constraints: [],
    fixedValueOf: () => Number.NaN,
    period: { from: 0, to: 30 * 86_400_000 },
    seed: 3,
    executor: chosen,
  })
}

function render(report: OptimizeReport): string {
  return renderOptimizeReport({
    report,
    optimize: optimizeConfig(),
    config: `/configs/${hostile}.yaml`,
    quotes: '/quotes/q.sqlite',
    period: { from: 0, to: 30 * 86_400_000 },
  })
}

/** The page's text without tags and without its scripts. */
function visibleText(html: string): string {
  return html
    .replace(/<script[\s\S]*?<\/script>/g, '')
    .replace(/<style[\s\S]*?<\/style>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
}

describe('renderOptimizeReport', () => {
  it('escapes choice values, parameter paths, file names and error messages from outside', async () => {
    const report = await reportOf(executor)
    expect(report.recommendation?.values[hostilePath]).toBe(hostile)
    const html = render(report)
    // the page's own two scripts, and no other element from the data
    expect(html.match(/<script/g)).toHaveLength(2)
    expect(html).not.toContain('<img')
    expect(html).not.toContain('<b><script')
    expect(html).toContain('&lt;script&gt;document.title=&quot;pwned&quot;&lt;/script&gt;')
    expect(html).toContain('strategies.0.config.&lt;img src=x onerror=alert(1)&gt;')
    // the recommended value, as text, in the recommendation's table
    expect(html).toMatch(/<td class="recommended-value">&lt;script&gt;document\.title=&quot;pwned&quot;&lt;\/script&gt;<\/td>/)
  })

  it('shows a figure a trial could not give as a dash whose tooltip says why, never NaN or null', async () => {
    const html = render(await reportOf(executor))
    expect(visibleText(html)).not.toMatch(/\bNaN\b|\bnull\b|\bundefined\b/)
    // x = 3 failed: its figures in the ranking are dashes with the trial's error as the reason
    expect(html).toContain(
      '<span class="na" title="The trial failed: the config refuses x = 3 &lt;b&gt;&lt;script&gt;document.title=&quot;pwned&quot;&lt;/script&gt;&lt;/b&gt;">–</span>',
    )
  })

  it('says plainly why there is no recommendation when every trial failed', async () => {
    const failing: TrialExecutor = {
      async run(specs) {
        return specs.map((spec) => ({ id: spec.id, tradesHash: '', error: 'the config refuses x' }))
      },
      async close() {},
    }
    const report = await reportOf(failing)
    expect(report.recommendation).toBeNull()
    const html = render(report)
    expect(html).toContain('<p class="verdict">No recommendation</p>')
    expect(visibleText(html)).toContain('No recommendation. No fold has an in-sample winner: in every fold every candidate failed')
    expect(visibleText(html)).not.toMatch(/\bNaN\b|\bnull\b|\bundefined\b/)
  })

  it('gives the same bytes for the same report', async () => {
    expect(render(await reportOf(executor))).toBe(render(await reportOf(executor)))
  })
})
