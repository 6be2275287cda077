import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadStrategy } from '../../src/strategy/load-strategy.js'
import { StrategyLoadError } from '../../src/strategy/strategy-errors.js'

const repository = resolve(import.meta.dirname, '../..')
const outside = mkdtempSync(join(tmpdir(), 'deltaflow-strategies-'))
afterAll(() => rmSync(outside, { recursive: true, force: true }))

/** An ESM-only npm package (exports with an `import` condition only) installed under `outside`, using zod from the repository. */
function installPackage(name: string, source: string): void {
  const modules = join(outside, 'node_modules')
  mkdirSync(join(modules, name), { recursive: true })
  try {
    symlinkSync(join(repository, 'node_modules', 'zod'), join(modules, 'zod'), 'dir')
  } catch {}
  writeFileSync(join(modules, name, 'package.json'), JSON.stringify({ name, type: 'module', exports: { '.': { import: './main.js' } } }))
  writeFileSync(join(modules, name, 'main.js'), source)
}

async function loadError(reference: string, baseDirectory = repository): Promise<StrategyLoadError> {
  const error = await loadStrategy(reference, { baseDirectory }).catch((caught: unknown) => caught)
  if (!(error instanceof StrategyLoadError)) throw new Error(`expected a StrategyLoadError, received ${String(error)}`)
  return error
}

describe('loadStrategy', () => {
  it('loads a built-in strategy by name from strategies/<name>/index.ts', async () => {
    const loaded = await loadStrategy('example', { baseDirectory: repository })
    expect(loaded.source).toEqual({ kind: 'built-in', file: join(repository, 'strategies/example/index.ts') })
    expect(loaded.definition.name).toBe('example')
  })

  it('finds deltaflow’s own strategies when the config directory has none', async () => {
    const loaded = await loadStrategy('example', { baseDirectory: outside })
    expect(loaded.source.kind).toBe('built-in')
    expect(loaded.definition.apiVersion).toBe(1)
  })

  it('loads a file path relative to the base directory, taking the export named strategy', async () => {
    const loaded = await loadStrategy('./test/strategy/fixtures/named-export.ts', { baseDirectory: repository })
    expect(loaded.source).toEqual({ kind: 'file', file: join(repository, 'test/strategy/fixtures/named-export.ts') })
    expect(loaded.definition.name).toBe('named-export')
  })

  it('loads a plugin that imports everything from the public entry (import ... from "deltaflow")', async () => {
    const loaded = await loadStrategy('./test/strategy/fixtures/public-entry.ts', { baseDirectory: repository })
    expect(loaded.definition.name).toBe('public-entry')
    expect(loaded.definition.configSchema.safeParse({ chainId: 1, srcToken: '0x', destToken: '0x', amount: '1' }).success).toBe(false)
  })

  it('loads an ESM-only npm package installed beside the config', async () => {
    installPackage(
      'deltaflow-strategy-fixture',
      `import { z } from 'zod'
export default { apiVersion: 1, name: 'from-npm', configSchema: z.object({ size: z.number() }), subscriptions: () => [] }
`,
    )
    const loaded = await loadStrategy('deltaflow-strategy-fixture', { baseDirectory: outside })
    expect(loaded.source).toEqual({ kind: 'package', file: join(outside, 'node_modules/deltaflow-strategy-fixture/main.js') })
    expect(loaded.definition.name).toBe('from-npm')
    expect(loaded.definition.configSchema.safeParse({ size: 'big' }).success).toBe(false)
  })

  it('refuses a definition of an unsupported apiVersion, saying what was expected and received', async () => {
    const error = await loadError('./test/strategy/fixtures/future-api-version.ts')
    expect(error.shortMessage).toBe(
      'cannot load strategy "./test/strategy/fixtures/future-api-version.ts": expected apiVersion 1, received 2',
    )
  })

  it('names the file and the problem when defineStrategy refuses the definition as the module loads', async () => {
    const error = await loadError('./test/strategy/fixtures/defined-future-api-version.ts')
    expect(error.shortMessage).toBe(
      `cannot load strategy "./test/strategy/fixtures/defined-future-api-version.ts": ${join(repository, 'test/strategy/fixtures/defined-future-api-version.ts')}: expected apiVersion 1, received 2`,
    )
    expect(error.hint).toContain('plugin API version 1')
  })

  it('refuses a module without a default or strategy export, listing what it exports', async () => {
    const error = await loadError('./test/strategy/fixtures/no-strategy.ts')
    expect(error.shortMessage).toMatch(
      /expected .*no-strategy\.ts to export a strategy as default or as "strategy", received exports somethingElse$/,
    )
  })

  it('refuses a package whose export is not a strategy definition', async () => {
    installPackage('deltaflow-strategy-broken', `export default { apiVersion: 1, name: 'broken', configSchema: {}, subscriptions: [] }\n`)
    const error = await loadError('deltaflow-strategy-broken', outside)
    expect(error.shortMessage).toBe(
      'cannot load strategy "deltaflow-strategy-broken": expected configSchema to be a zod schema, received an object',
    )
  })

  it('says where it looked for a name that is neither built in nor installed', async () => {
    const error = await loadError('no-such-strategy')
    expect(error.shortMessage).toContain(join(repository, 'strategies/no-such-strategy/index.{ts,js}'))
    expect(error.shortMessage).toContain(`an npm package installed under ${repository}`)
    expect(error.hint).toContain('npm install no-such-strategy')
  })

  it('names the missing file of a path', async () => {
    const error = await loadError('./strategies/missing.ts')
    expect(error.shortMessage).toBe(
      `cannot load strategy "./strategies/missing.ts": no file at ${join(repository, 'strategies/missing.ts')}`,
    )
  })

  it('reports a module that fails to import', async () => {
    installPackage('deltaflow-strategy-throws', `throw new Error('plugin exploded at import')\n`)
    const error = await loadError('deltaflow-strategy-throws', outside)
    expect(error.shortMessage).toMatch(/importing .*main\.js failed: plugin exploded at import/)
  })
})
