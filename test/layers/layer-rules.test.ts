import { execFile } from 'node:child_process'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'

// The repo's own rules, pointed at a tiny tree laid out like the repo (test/fixtures/layers), where each
// `breach-*` file (and the feed cycle) breaks one rule on purpose and every other import is allowed.
const root = fileURLToPath(new URL('../..', import.meta.url))
const fixture = fileURLToPath(new URL('../fixtures/layers', import.meta.url))
const configFile = `${root}.dependency-cruiser.cjs`
const depcruise = `${root}node_modules/dependency-cruiser/bin/dependency-cruise.mjs`
const run = promisify(execFile)

const ruleSchema = z.object({ name: z.string(), comment: z.string() })
const configSchema = z.object({ forbidden: z.array(ruleSchema) })
const rules = configSchema.parse(createRequire(import.meta.url)(configFile)).forbidden

const violationSchema = z.object({
  from: z.string(),
  to: z.string(),
  rule: z.object({ name: z.string(), severity: z.string() }),
  cycle: z.array(z.object({ name: z.string() })).optional(),
})
const moduleSchema = z.object({ source: z.string(), dependencies: z.array(z.object({ resolved: z.string() })) })
const cruiseResultSchema = z.object({ modules: z.array(moduleSchema), summary: z.object({ violations: z.array(violationSchema) }) })
type Violation = z.infer<typeof violationSchema>

/** The check as `npm run layers` runs it, started in the fixture; resolves with its exit code and output (never rejects). */
async function checkFixture(outputType: 'json' | 'err-long') {
  const args = [depcruise, '--config', configFile, '--output-type', outputType, 'src', 'strategies']
  try {
    const { stdout } = await run(process.execPath, args, { cwd: fixture, maxBuffer: 16 * 1024 * 1024 })
    return { code: 0, stdout }
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    if (typeof failed.code !== 'number') throw error
    return { code: failed.code, stdout: failed.stdout }
  }
}

/** A package by its name (`node_modules/zod`), wherever it resolved to; anything else as it is. */
const shortPath = (path: string) => path.replace(/^.*node_modules\/([^/]+)\/.*$/, 'node_modules/$1')

/** `rule: from → to`, with a cycle shown by its members (which of its edges reports it is not fixed). */
function describeViolation(violation: Violation): string {
  if (!violation.cycle) return `${violation.rule.name}: ${violation.from} → ${shortPath(violation.to)}`
  const members = [...new Set([violation.from, ...violation.cycle.map((step) => step.name)])].sort()
  return `${violation.rule.name}: cycle ${members.join(' ↔ ')}`
}

const breaches = [
  ['domain-is-pure', 'the domain calls the API', 'src/domain/breach-calls-api.ts → src/api/fetch-quote.ts'],
  ['domain-is-pure', 'the domain uses a package other than zod and viem', 'src/domain/breach-uses-rxjs.ts → node_modules/rxjs'],
  [
    'strategies-use-public-entry',
    'a strategy takes a type from the journal (type-only import)',
    'strategies/grid/breach-reads-journal.ts → src/journal/breach-order-row.ts',
  ],
  [
    'protocol-imports-nothing-of-the-bot',
    'the protocol reads the chain module',
    'src/protocol/breach-reads-chain.ts → src/chain/client.ts',
  ],
  [
    'bot-never-imports-sandbox',
    'the runtime loads the sandbox (dynamic import())',
    'src/runtime/breach-start-sandbox.ts → src/sandbox/venue.ts',
  ],
  ['sandbox-never-imports-bot', 'the sandbox uses the executor', 'src/sandbox/breach-uses-exec.ts → src/exec/submit-intent.ts'],
  [
    'journal-never-imports-exec',
    'the journal takes a type from the executor (type-only import)',
    'src/journal/breach-order-row.ts → src/exec/submit-intent.ts',
  ],
  ['nothing-imports-cli', 'the backtest imports a command', 'src/backtest/breach-report.ts → src/cli/main.ts'],
  [
    'console-ui-is-a-browser-app',
    'the web console takes a type from the executor (type-only import)',
    'src/console-ui/breach-reads-exec.ts → src/exec/submit-intent.ts',
  ],
  ['nothing-imports-console-ui', 'the runtime imports the web console', 'src/runtime/breach-imports-console-ui.ts → src/console-ui/app.ts'],
  ['no-cycles', 'two feed modules import each other (one way type-only)', 'cycle src/feed/quotes.ts ↔ src/feed/replay.ts'],
  ['imports-resolve', 'an import points at no file', 'src/api/breach-unresolved.ts → ./missing.js'],
] as const

const allowed = [
  ['strategies/grid/index.ts', 'src/index.ts'],
  ['strategies/grid/index.ts', 'src/domain/intent.ts'],
  ['strategies/grid/index.ts', 'strategies/grid/grid-levels.ts'],
  ['strategies/grid/index.ts', 'node_modules/zod'],
  ['src/domain/intent.ts', 'src/protocol/order-hash.ts'],
  ['src/domain/intent.ts', 'src/errors/base-error.ts'],
  ['src/domain/intent.ts', 'src/time/clock.ts'],
  ['src/domain/intent.ts', 'node_modules/zod'],
  ['src/domain/intent.ts', 'crypto'],
  ['src/protocol/order-hash.ts', 'node_modules/viem'],
  ['src/sandbox/venue.ts', 'src/domain/intent.ts'],
  ['src/sandbox/venue.ts', 'src/protocol/order-hash.ts'],
  ['src/cli/main.ts', 'src/sandbox/venue.ts'],
  ['src/cli/main.ts', 'src/exec/submit-intent.ts'],
  ['src/index.ts', 'src/domain/intent.ts'],
  ['src/console-ui/app.ts', 'src/domain/intent.ts'],
  ['src/console-ui/app.ts', 'src/runtime/console/status-answer.ts'],
  ['src/console-ui/app.ts', 'node_modules/zod'],
] as const

describe('layer rules (.dependency-cruiser.cjs) on a fixture tree', () => {
  let reported: string[] = []
  let violations: Violation[] = []
  let edges: string[] = []
  let printedCheck = { code: 0, stdout: '' }
  beforeAll(async () => {
    const [json, errLong] = await Promise.all([checkFixture('json'), checkFixture('err-long')])
    const result = cruiseResultSchema.parse(JSON.parse(json.stdout))
    violations = result.summary.violations
    edges = result.modules.flatMap((module) =>
      module.dependencies.map((dependency) => `${module.source} → ${shortPath(dependency.resolved)}`),
    )
    reported = violations.map(describeViolation)
    printedCheck = errLong
  })

  it.each(breaches)('reports %s when %s', (rule, _case, edge) => {
    expect(reported).toContain(`${rule}: ${edge}`)
  })

  it('reports nothing but the deliberate breaches, all as errors', () => {
    expect([...reported].sort()).toEqual(breaches.map(([rule, , edge]) => `${rule}: ${edge}`).sort())
    expect(violations.every((violation) => violation.rule.severity === 'error')).toBe(true)
  })

  it.each(allowed)('resolves the allowed import %s → %s and does not report it', (from, to) => {
    expect(edges).toContain(`${from} → ${to}`)
    expect(reported.filter((line) => line.endsWith(`: ${from} → ${to}`))).toEqual([])
  })

  it('has a test case for every rule in the config', () => {
    expect(rules.map((rule) => rule.name).sort()).toEqual([...new Set(breaches.map(([rule]) => rule))].sort())
  })

  it('fails the check, printing each violation with its rule name and reason', () => {
    expect(printedCheck.code).not.toBe(0)
    const printed = printedCheck.stdout.replace(/\s+/g, ' ')
    for (const rule of rules) {
      expect(printed).toContain(`error ${rule.name}:`)
      expect(printed).toContain(rule.comment.replace(/\s+/g, ' '))
    }
    expect(printed).toContain('error domain-is-pure: src/domain/breach-calls-api.ts → src/api/fetch-quote.ts')
  })
})
