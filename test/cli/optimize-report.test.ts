import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'
import type { Browser, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium, watchPage } from '../helpers/chromium.js'
import { runDeltaflow } from '../helpers/deltaflow-cli.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

// `deltaflow optimize --report` end to end: the ladder example's strategy with a small space (a log-scale range, a
// list of choices, and a pair of prices one candidate of which the ladder refuses, so that its trials fail) over one
// day of the recorded ETH quotes, on two workers. The page is loaded in Chromium (playwright-core): it asks for nothing,
// throws nothing, and shows the numbers of the --json document printed by the same run. A full-page screenshot is kept
// under .cache/test-artifacts/ (gitignored) for a person to look at. Fails, not skips, without Chromium.

const directory = createTempDirectory('deltaflow-optimize-report-')
const artifacts = fileURLToPath(new URL('../../.cache/test-artifacts/', import.meta.url))
const example = 'config/ladder-optimize.yaml'
const space = `optimize:
  space:
    strategies.0.config.lowerPrice:
      range: { min: 2000, max: 2250, step: 250 }
    strategies.0.config.upperPrice:
      range: { min: 2200, max: 2300, step: 100 }
    strategies.0.config.levels:
      range: { min: 3, max: 6, step: 2, scale: log, type: integer }
    strategies.0.config.spacing:
      choices: [linear, geometric]
  sampler: halton
  trials: 6
  seed: 1
  objective: sharpe
  walkForward: { folds: 2, inSample: 0.75, mode: rolling }
`
const period = ['--from', '2026-02-25T12:00Z', '--to', '2026-02-26T12:00Z']

type Figures = { score: number | null; return: number | null; sharpe: number | null; trades: number | null; excluded?: string }
type Report = {
  objective: string
  parameters: string[]
  candidates: { index: number; values: (string | number | boolean)[] }[]
  folds: { index: number; ranking: ({ candidate: number } & Figures)[]; inSampleScore: Figures | null; outOfSampleScore: Figures | null }[]
  recommendation: { values: Record<string, string | number | boolean>; neighbours: { meanScore: number | null }[] } | null
}

/** What the test reads of the page. */
type Shown = {
  script: string | undefined
  objectiveCharts: { points: number; drawn: number; guides: string[] }[]
  folds: { sample: string; cells: Record<string, { text: string; missing: string | null }> }[]
  recommended: [string, string][]
  failedCells: { text: string; title: string }[]
  neighbourScores: { text: string; title: string | null }[]
}

let config: string
let store: string
let report: Report
let stdout: string
let html: string
let browser: Browser
let page: Page
const requested: string[] = []
const pageErrors: string[] = []

beforeAll(async () => {
  store = directory.path('eth.sqlite')
  const packed = await runDeltaflow(['quotes', 'pack', 'test/fixtures/quotes/ethusdt-strategies.jsonl.gz', '--out', store])
  expect(packed.code, packed.stderr).toBe(0)
  const text = readFileSync(example, 'utf8')
  config = directory.path('ladder-report.yaml')
  writeFileSync(config, `${text.slice(0, text.indexOf('optimize:\n'))}${space}`)
  html = directory.path('report.html')
  const run = await runDeltaflow(['optimize', config, '--quotes', store, ...period, '--workers', '2', '--json', '--report', html])
  expect(run.code, run.stderr).toBe(0)
  stdout = run.stdout
  report = JSON.parse(stdout) as Report
  browser = await launchChromium()
  page = await browser.newPage({ viewport: { width: 1100, height: 900 } })
  watchPage(page, requested, pageErrors)
  await page.goto(pathToFileURL(html).href)
}, 60_000)
afterAll(async () => {
  await browser?.close()
  directory.cleanup()
})

/** A cell's text, and the tooltip of its dash when it shows one. */
async function cellOf(cell: Locator): Promise<{ text: string; missing: string | null }> {
  const dash = cell.locator('.na')
  return { text: ((await cell.textContent()) ?? '').trim(), missing: (await dash.count()) > 0 ? await dash.getAttribute('title') : null }
}

/** What the page shows, read through playwright locators (this test compiles without the DOM's types). */
async function readPage(): Promise<Shown> {
  const objectiveCharts = []
  for (const svg of await page.locator('svg[id^="chart-objective-"]').all()) {
    objectiveCharts.push({
      points: await svg.locator('.point').count(),
      drawn: Number(await svg.getAttribute('data-points')),
      guides: await svg.locator('.guide text').allTextContents(),
    })
  }
  const folds = []
  for (const row of await page.locator('table.folds tbody tr').all()) {
    const cells: Shown['folds'][number]['cells'] = {}
    for (const cell of await row.locator('td.num').all()) {
      const key = ((await cell.getAttribute('class')) ?? '').split(' ').find((name) => /^(is|oos)-/.test(name)) ?? ''
      cells[key] = await cellOf(cell)
    }
    folds.push({ sample: (await row.getAttribute('class')) ?? '', cells })
  }
  const recommended: [string, string][] = []
  for (const row of await page.locator('table.recommended-values tbody tr').all()) {
    recommended.push([((await row.locator('th').textContent()) ?? '').trim(), ((await row.locator('td').textContent()) ?? '').trim()])
  }
  const missingOf = async (selector: string) => Promise.all((await page.locator(selector).all()).map(async (cell) => cellOf(cell)))
  return {
    script: (await page.locator('html').getAttribute('data-report-script')) ?? undefined,
    objectiveCharts,
    folds,
    recommended,
    failedCells: (await missingOf('table.ranking td.is-score:has(.na)')).map((cell) => ({ text: cell.text, title: cell.missing ?? '' })),
    neighbourScores: (await missingOf('table.neighbours td.neighbour-score')).map((cell) => ({ text: cell.text, title: cell.missing })),
  }
}

/** The number a cell shows: `26.230`, `+3.10 %` (as a fraction), `1,234`. */
function numberShown(text: string): number {
  const number = Number(text.replace(/[,+\s%]/g, ''))
  return text.endsWith('%') ? number / 100 : number
}

describe('deltaflow optimize --report', () => {
  it('writes the report beside the JSON, which stays alone on stdout', () => {
    expect(stdout.trim().startsWith('{')).toBe(true)
    expect(stdout).not.toContain('report:')
    expect(readFileSync(html, 'utf8')).toMatch(/^<!doctype html>/)
  })

  it('loads in Chromium without an error and without asking for anything', async () => {
    const read = await readPage()
    mkdirSync(artifacts, { recursive: true })
    await page.screenshot({ path: `${artifacts}optimize-report.png`, fullPage: true })
    expect(read.script).toBe('ready')
    expect(pageErrors).toEqual([])
    expect(requested).toEqual([pathToFileURL(html).href])
  })

  it('draws one objective chart per parameter, one point per in-sample trial, the recommended value marked', async () => {
    const { objectiveCharts } = await readPage()
    const trials = report.folds.reduce((sum, fold) => sum + fold.ranking.length, 0)
    expect(trials).toBe(report.candidates.length * report.folds.length)
    expect(objectiveCharts).toHaveLength(report.parameters.length)
    for (const [at, chart] of objectiveCharts.entries()) {
      expect(chart.points, report.parameters[at]).toBe(trials)
      expect(chart.drawn).toBe(trials)
      const value = report.recommendation?.values[report.parameters[at] as string]
      expect(chart.guides).toEqual([`recommended ${String(value)}`])
    }
  })

  it("shows each fold's in-sample and out-of-sample figures as the JSON has them", async () => {
    const { folds } = await readPage()
    expect(folds.map((row) => row.sample)).toEqual(report.folds.flatMap(() => ['in-sample', 'out-of-sample']))
    for (const fold of report.folds) {
      for (const [prefix, figures] of [
        ['is', fold.inSampleScore],
        ['oos', fold.outOfSampleScore],
      ] as const) {
        const cells = folds[2 * fold.index + (prefix === 'is' ? 0 : 1)]?.cells ?? {}
        // the objective is sharpe: the score is the Sharpe ratio, which has no column of its own
        expect(Object.keys(cells).sort()).toEqual([`${prefix}-return`, `${prefix}-score`, `${prefix}-trades`])
        for (const key of ['score', 'return', 'trades'] as const) {
          const cell = cells[`${prefix}-${key}`]
          const expected = figures?.[key]
          const where = `fold ${fold.index + 1} ${prefix} ${key}: ${cell?.text}`
          if (expected === null || expected === undefined) {
            expect(cell?.text, where).toBe('–')
            expect(cell?.missing, where).toBeTruthy()
          } else {
            const unit = key === 'score' ? 0.0005 : key === 'return' ? 0.00005 : 0
            expect(Math.abs(numberShown(cell?.text ?? '') - expected), where).toBeLessThanOrEqual(unit)
          }
        }
      }
    }
  })

  it('shows the recommended values of the JSON', async () => {
    const { recommended } = await readPage()
    expect(report.recommendation).not.toBeNull()
    // the JSON's keys are sorted; the page lists the parameters in the space's order
    expect(recommended.map(([path]) => path)).toEqual(report.parameters)
    expect(Object.fromEntries(recommended)).toEqual(
      Object.fromEntries(Object.entries(report.recommendation?.values ?? {}).map(([path, value]) => [path, String(value)])),
    )
  })

  it('shows a figure a failed trial could not give as a dash with the reason as its tooltip', async () => {
    const failed = report.folds.flatMap((fold) => fold.ranking.filter((row) => row.score === null))
    // lowerPrice 2250 with upperPrice 2200: the ladder refuses it in every fold
    expect(failed.length).toBeGreaterThan(0)
    expect(failed.every((row) => row.excluded?.includes('expected upperPrice above lowerPrice'))).toBe(true)
    const { failedCells, neighbourScores } = await readPage()
    expect(failedCells).toHaveLength(failed.length)
    for (const cell of failedCells) {
      expect(cell.text).toBe('–')
      expect(cell.title).toMatch(/^The trial failed: .*expected upperPrice above lowerPrice/s)
    }
    // a neighbour with no mean score (its lowerPrice 2250 is refused against upperPrice 2200) too
    const nullNeighbours = report.recommendation?.neighbours.filter((neighbour) => neighbour.meanScore === null) ?? []
    expect(neighbourScores.filter((cell) => cell.text === '–' && cell.title)).toHaveLength(nullNeighbours.length)
    expect(await page.locator('main').textContent()).not.toMatch(/\bNaN\b|\bnull\b|\bundefined\b/)
  })

  it('prints report: FILE after the table without --json', async () => {
    const file = directory.path('again.html')
    const run = await runDeltaflow(['optimize', config, '--quotes', store, ...period, '--report', file])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toMatch(/recommended: #\d+[\s\S]*\nreport: .*again\.html\n$/)
    // the same run, the same page
    expect(readFileSync(file, 'utf8')).toBe(readFileSync(html, 'utf8'))
  })

  it('refuses a report path in a directory that does not exist, before anything runs', async () => {
    const garbage = directory.path('garbage.sqlite')
    writeFileSync(garbage, 'not a store')
    const missing = directory.path('no-such-directory/report.html')
    const run = await runDeltaflow(['optimize', config, '--quotes', garbage, '--report', missing])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(`--report: expected a file in an existing directory, received ${missing}`)
    expect(run.stderr).not.toContain('garbage')
  })
})
