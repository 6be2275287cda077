import { execFile } from 'node:child_process'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { isFinalStatus, type OrderMode, orderModes } from '../../src/domain/order-status.js'

// The package as a user gets it: packed, installed into a folder outside the repository, and used from there as the
// README guide says ("Writing a strategy"): its strategy, config, tsconfig and unit test are read from the README's
// code blocks, so this test fails when the guide does.
//
// Install time is most of this test, and CI has a budget:
// - dist/ is built only when stale (`scripts/build.ts --if-stale`; the global setup builds it before the run), then
//   packed with --ignore-scripts instead of letting `npm pack` build it again.
// - better-sqlite3's install script (prebuild-install) downloads a prebuilt binary from github.com, which CI cannot
//   reach, so a plain install compiles it with node-gyp (2–3 min). prebuild-install also accepts a local prebuild: the
//   binary the repository's own `npm ci` built for this very Node ABI, platform and arch, packed under the name it
//   looks for. Nothing is skipped: the install script runs and installs that binary.
// - `--prefer-offline`: the npm cache that the repository's `npm ci` filled holds every dependency.
// - The guide's dev tools (vitest, typescript, @types/node) are the repository's own, linked into the folder rather than
//   installed (which would double the install time); the package under test is the one installed from the tarball.
// - DELTAFLOW_CACHE_DIR points the installed package at the contracts the global setup compiled (same sources, same
//   cache key), so it does not spend ~15 s compiling them again.
// Measured on 2 cores: the install 13 s idle, 20–40 s beside other suites (a plain one: 2 min 20 s); the file 55–90 s.

const root = fileURLToPath(new URL('../..', import.meta.url))
const runFile = promisify(execFile)
const contractCache = join(root, 'node_modules', '.cache', 'deltaflow')
const quotesFixture = join(root, 'test', 'fixtures', 'quotes', 'ethusdt-strategies.jsonl.gz')

let folder = ''
/** The folder the package is installed in, outside the repository. */
const inFolder = (name: string) => join(folder, name)

/** Fails with the command's output, so a broken install or run says why. */
async function run(file: string, args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number }) {
  try {
    return await runFile(file, args, {
      cwd: options.cwd,
      env: options.env ?? userEnvironment(),
      timeout: options.timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
    })
  } catch (error) {
    const failed = error as { message: string; stdout?: string; stderr?: string }
    throw new Error(`${file} ${args.join(' ')} failed: ${failed.message}\n${failed.stdout ?? ''}\n${(failed.stderr ?? '').slice(-4000)}`)
  }
}

/** The npm settings kept from the environment: where packages come from (the cache the repository's `npm ci` filled). */
const npmSourceSettings = /^npm_config_(cache|registry|userconfig|globalconfig|cafile|proxy|https_proxy|noproxy)$/

/**
 * The environment of a user's shell: without the npm variables of the command that started vitest (`npm test` sets
 * npm_config_local_prefix and npm_package_* to the repository's) except npmSourceSettings, without this vitest worker's
 * and without DELTAFLOW_FROM_SOURCE; the run marker of the global setup stays, so an anvil that outlives the run is
 * reported.
 */
function userEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const environment = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) =>
        (!name.startsWith('npm_') || npmSourceSettings.test(name)) && !name.startsWith('VITEST') && name !== 'DELTAFLOW_FROM_SOURCE',
    ),
  )
  return { ...environment, DELTAFLOW_CACHE_DIR: contractCache, DELTAFLOW_LOG_LEVEL: 'info', ...extra }
}

/** The fenced block of the README whose first line names the file: `// steady-buyer.ts`, `# bot.yaml`, `// tsconfig.json (…)`. */
function readmeFile(comment: string): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  const blocks = [...readme.matchAll(/^```\w*\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '')
  const block = blocks.find((body) => {
    const firstLine = body.slice(0, body.indexOf('\n'))
    return firstLine === comment || firstLine.startsWith(`${comment} `)
  })
  if (block === undefined) throw new Error(`README.md has no code block starting with "${comment}" (the guide in "Writing a strategy")`)
  return block
}

/** Packs better-sqlite3's binary from the repository's install into `into`, under the name prebuild-install looks for. */
function packLocalPrebuild(into: string): Promise<unknown> {
  const betterSqlite = join(root, 'node_modules', 'better-sqlite3')
  const { version } = z.object({ version: z.string() }).parse(JSON.parse(readFileSync(join(betterSqlite, 'package.json'), 'utf8')))
  const header = z.object({ header: z.object({ glibcVersionRuntime: z.string().optional() }) }).parse(process.report.getReport())
  const libc = process.platform === 'linux' && header.header.glibcVersionRuntime === undefined ? 'musl' : ''
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}${libc}-${process.arch}.tar.gz`
  return run('tar', ['czf', join(into, name), '-C', betterSqlite, 'build/Release/better_sqlite3.node'], { cwd: root, timeoutMs: 30_000 })
}

const runSummarySchema = z.object({
  summary: z.object({
    orders: z.object({ byStatus: z.record(z.string(), z.number()), open: z.number(), total: z.number() }),
    fills: z.number(),
  }),
  stats: z.object({ executions: z.object({ accepted: z.number() }) }),
})

const backtestSummarySchema = z.object({
  summary: z.object({ trades: z.number(), ordersByStatus: z.record(z.string(), z.number()) }),
  strategies: z.array(z.object({ name: z.string(), fills: z.number(), bought: z.number() })),
})

const logLineSchema = z.object({
  msg: z.string(),
  strategy: z.string().optional(),
  mode: z.string().optional(),
  status: z.string().optional(),
})

/** `mode:STATUS` keys of the summary's orders by status, when the status is final for that mode. */
function isFinalKey(key: string): boolean {
  const [mode, status] = key.split(':')
  return orderModes.includes(mode as OrderMode) && status !== undefined && isFinalStatus(mode as OrderMode, status)
}

describe('the packed package, installed in a folder of its own', () => {
  beforeAll(async () => {
    folder = realpathSync(mkdtempSync(join(tmpdir(), 'deltaflow-package-')))
    if (!relative(root, folder).startsWith('..')) throw new Error(`expected a folder outside ${root}, received ${folder}`)
    await run(process.execPath, ['--import', 'tsx', 'scripts/build.ts', '--if-stale'], { cwd: root, env: process.env, timeoutMs: 120_000 })
    const packs = inFolder('packs')
    mkdirSync(packs)
    await run('npm', ['pack', '--ignore-scripts', '--pack-destination', packs], { cwd: root, env: userEnvironment(), timeoutMs: 60_000 })
    const tarball = readdirSync(packs).find((name) => /^deltaflow-.*\.tgz$/.test(name))
    if (tarball === undefined) throw new Error(`npm pack wrote no deltaflow-*.tgz in ${packs}`)
    const prebuilds = inFolder('prebuilds')
    mkdirSync(prebuilds)
    await packLocalPrebuild(prebuilds)

    writeFileSync(inFolder('package.json'), `${JSON.stringify({ name: 'my-bot', private: true, type: 'module' }, null, 2)}\n`)
    await run('npm', ['install', join(packs, tarball), 'zod', '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: folder,
      env: userEnvironment({ npm_config_better_sqlite3_local_prebuilds: prebuilds }),
      timeoutMs: 240_000,
    })
    mkdirSync(inFolder('node_modules/@types'), { recursive: true })
    for (const tool of ['vitest', 'typescript', '@types/node']) {
      const link = inFolder(`node_modules/${tool}`)
      if (!existsSync(link)) symlinkSync(join(root, 'node_modules', tool), link, 'dir')
    }
    for (const file of ['steady-buyer.ts', 'steady-buyer.test.ts', 'tsconfig.json']) writeFileSync(inFolder(file), readmeFile(`// ${file}`))
    writeFileSync(inFolder('bot.yaml'), readmeFile('# bot.yaml'))
    copyFileSync(quotesFixture, inFolder('quotes.jsonl.gz'))
  }, 300_000)

  afterAll(() => {
    if (folder !== '') rmSync(folder, { recursive: true, force: true })
  })

  it('installs the compiled CLI, its declarations and the native module of better-sqlite3', () => {
    expect(existsSync(inFolder('node_modules/deltaflow/dist/src/cli/main.js'))).toBe(true)
    expect(existsSync(inFolder('node_modules/deltaflow/dist/src/index.d.ts'))).toBe(true)
    expect(existsSync(inFolder('node_modules/better-sqlite3/build/Release/better_sqlite3.node'))).toBe(true)
  })

  it("runs the guide's strategy on the embedded sandbox: its orders are placed, reconciled and heard", async () => {
    // The embedded sandbox's throwaway journal goes to a fresh folder under TMPDIR and stays there: this folder's.
    mkdirSync(inFolder('tmp'))
    const { stdout, stderr } = await run(inFolder('node_modules/.bin/deltaflow'), ['run', 'bot.yaml', '--for', '15', '--json'], {
      cwd: folder,
      env: userEnvironment({ TMPDIR: inFolder('tmp') }),
      timeoutMs: 90_000,
    })
    const { summary, stats } = runSummarySchema.parse(JSON.parse(stdout.trim().split('\n').at(-1) ?? ''))
    expect(stats.executions.accepted).toBeGreaterThanOrEqual(1)
    const reconciled = Object.entries(summary.orders.byStatus).filter(([key]) => isFinalKey(key))
    expect(
      reconciled.reduce((count, [, orders]) => count + orders, 0),
      JSON.stringify(summary.orders),
    ).toBeGreaterThanOrEqual(1)
    expect(summary.fills).toBeGreaterThanOrEqual(1)
    // The strategy, loaded from this folder through the installed package, heard an order reach a final status.
    const settled = stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => logLineSchema.safeParse(JSON.parse(line)))
      .flatMap((line) => (line.success && line.data.msg === 'buy settled' ? [line.data] : []))
    expect(settled.length, stderr.slice(-4000)).toBeGreaterThanOrEqual(1)
    expect(settled.every((line) => line.strategy === 'buy-weth' && isFinalKey(`${line.mode}:${line.status}`))).toBe(true)
  }, 120_000)

  it("backtests the guide's config over recorded quotes and reports its fills", async () => {
    const { stdout } = await run(
      inFolder('node_modules/.bin/deltaflow'),
      // The set's first three hours (of two days: replaying them all takes 12 s), in which the five buys fall.
      ['backtest', 'bot.yaml', '--quotes', 'quotes.jsonl.gz', '--to', '2026-02-25T03:00:00Z', '--json'],
      {
        cwd: folder,
        timeoutMs: 60_000,
      },
    )
    const result = backtestSummarySchema.parse(JSON.parse(stdout))
    // maxBuys: 5 in the guide's config, one every 600 s, each a swap that fills.
    expect(result.summary.trades).toBe(5)
    expect(result.summary.ordersByStatus).toEqual({ COMPLETED: 5 })
    expect(result.strategies).toEqual([expect.objectContaining({ name: 'buy-weth', fills: 5 })])
    expect(result.strategies[0]?.bought).toBeGreaterThan(0)
  }, 90_000)

  it("passes the guide's unit test and type check against the installed declarations", async () => {
    await run(process.execPath, [inFolder('node_modules/vitest/vitest.mjs'), 'run'], { cwd: folder, timeoutMs: 60_000 })
    // The strategy's files type-check with `skipLibCheck` (as the guide's tsconfig says): a declaration of deltaflow's that
    // did not resolve would turn its types into `any` without an error. This file fails to compile unless they are real.
    writeFileSync(
      inFolder('declarations-probe.ts'),
      [
        "import type { StrategyIntentContent } from 'deltaflow'",
        '// @ts-expect-error: no such intent kind',
        "export const unknownKind: StrategyIntentContent = { kind: 'teleport' }",
        '',
      ].join('\n'),
    )
    await run(process.execPath, [inFolder('node_modules/typescript/bin/tsc')], { cwd: folder, timeoutMs: 60_000 })
  }, 120_000)
})
