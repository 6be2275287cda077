import { existsSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { keptPromise } from '../domain/kept-promise.js'
import { checkStrategyDefinition } from './check-strategy-definition.js'
import type { StrategyDefinition } from './define-strategy.js'
import { resolveStrategyPackage } from './resolve-strategy-package.js'
import { StrategyLoadError } from './strategy-errors.js'

/** deltaflow's own strategies, shipped beside src/. */
export const bundledStrategiesDirectory = resolve(dirname(fileURLToPath(import.meta.url)), '../../strategies')

export type LoadStrategyParameters = {
  /** Where relative paths and npm packages are resolved from: the config file's directory. */
  baseDirectory: string
  /** Searched in order for built-in names. Default: `<baseDirectory>/strategies`, then deltaflow's own strategies/. */
  strategyDirectories?: readonly string[] | undefined
}

export type LoadedStrategy = {
  definition: StrategyDefinition
  source: { kind: 'built-in' | 'file' | 'package'; file: string }
}

const builtInNamePattern = /^[a-z0-9][a-z0-9._-]*$/
const entryFiles = ['index.ts', 'index.js']

/**
 * Loads a strategy named in the config: a built-in name (`strategies/<name>/index.ts` or `.js`), a file path (starting
 * with `.` or `/`, or ending in .ts/.js/.mjs), or an npm package installed beside the config. The module's default
 * export, or its export named `strategy`, must be a definition of a supported apiVersion. Throws StrategyLoadError.
 *
 * @example
 * const { definition } = await loadStrategy('twap', { baseDirectory: dirname(configFile) })
 */
export async function loadStrategy(reference: string, parameters: LoadStrategyParameters): Promise<LoadedStrategy> {
  const { exported, source } = await importStrategyModule(reference, parameters, {
    kind: 'a strategy',
    hint: 'export default defineStrategy({ apiVersion: 1, name, configSchema, subscriptions, ... })',
  })
  return { definition: checkStrategyDefinition(exported, reference), source }
}

/**
 * Finds a strategy reference (locateStrategy) and imports it: its default export, or its export named `strategy`,
 * unchecked. Shared by the bot's and the maker's strategy loaders, which each check the definition they expect.
 */
export async function importStrategyModule(
  reference: string,
  { baseDirectory, strategyDirectories }: LoadStrategyParameters,
  expected: { kind: string; hint: string },
): Promise<{ exported: unknown; source: LoadedStrategy['source'] }> {
  const source = locateStrategy(
    reference,
    baseDirectory,
    strategyDirectories ?? [join(baseDirectory, 'strategies'), bundledStrategiesDirectory],
  )
  let module: Record<string, unknown>
  try {
    module = await importModuleFile(source.file)
  } catch (error) {
    // defineStrategy refused the definition while the module was evaluated: that is the problem to name.
    if (error instanceof StrategyLoadError) {
      throw new StrategyLoadError({ reference, reason: `${source.file}: ${error.reason}`, hint: error.hint ?? '', cause: error })
    }
    throw new StrategyLoadError({
      reference,
      reason: `importing ${source.file} failed: ${error instanceof Error ? error.message : String(error)}`,
      hint: 'fix the error in the strategy module (TypeScript strategies are compiled by tsx, which does not type-check)',
      cause: error,
    })
  }
  const exported = module.default ?? module.strategy
  if (exported === undefined) {
    const names = Object.keys(module)
    throw new StrategyLoadError({
      reference,
      reason: `expected ${source.file} to export ${expected.kind} as default or as "strategy", received ${names.length > 0 ? `exports ${names.join(', ')}` : 'no exports'}`,
      hint: expected.hint,
    })
  }
  return { exported, source }
}

const typeScriptFilePattern = /\.[cm]?ts$/
let typeScriptLoader: Promise<void> | undefined

/**
 * Imports a module file; a TypeScript one (.ts, .mts, .cts) through tsx's loader, registered for the whole process
 * on the first such file, so that a run with only JavaScript strategies never loads tsx. Registered globally rather
 * than through tsImport's namespace, so that an ES module strategy's `import ... from 'deltaflow'` reaches the very
 * modules the CLI runs instead of a second copy.
 */
async function importModuleFile(file: string): Promise<Record<string, unknown>> {
  // A module that failed to import is tried again by the next load (the file may have been fixed or installed).
  return keptPromise(importedModules, file, () => importModuleFileOnce(file))
}

/**
 * The modules imported so far, by file: the process loads a module once anyway, and an optimiser's worker loads the
 * same strategy for every trial, where each import() would go through the loader's resolve hooks again (tsx's run
 * on a thread of their own when deltaflow runs from its sources).
 */
const importedModules = new Map<string, Promise<Record<string, unknown>>>()

async function importModuleFileOnce(file: string): Promise<Record<string, unknown>> {
  if (typeScriptFilePattern.test(file)) {
    typeScriptLoader ??= registerTypeScriptLoader()
    await typeScriptLoader
  }
  const module: Record<string, unknown> = await import(pathToFileURL(file).href)
  return compiledCommonJsExports(module) ?? module
}

/**
 * The exports of a CommonJS module compiled from ES module syntax, which marks them `__esModule` and which import()
 * hands over whole as `default`: a package built to CommonJS by tsc, or a .ts strategy outside a `"type": "module"`
 * package, which tsx compiles to CommonJS.
 */
function compiledCommonJsExports(module: Record<string, unknown>): Record<string, unknown> | undefined {
  const exports = module.default
  if (typeof exports !== 'object' || exports === null || Reflect.get(exports, '__esModule') !== true) return undefined
  return Object.fromEntries(Object.entries(exports))
}

/**
 * tsx's ES module and CommonJS hooks, as `node --import tsx` registers them: a .ts file in a package without
 * `"type": "module"` is compiled to CommonJS, and its imports become require() calls that need the CommonJS hook.
 */
async function registerTypeScriptLoader(): Promise<void> {
  // Running from src/ (tests, scripts) means a TypeScript loader is in place already; a second one would chain.
  if (typeScriptFilePattern.test(fileURLToPath(import.meta.url))) return
  const [esm, commonJs] = await Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')])
  esm.register()
  commonJs.register()
}

/** Where a strategy reference points: a built-in's entry file, a file, or an installed package's entry (StrategyLoadError if none). */
function locateStrategy(reference: string, baseDirectory: string, strategyDirectories: readonly string[]): LoadedStrategy['source'] {
  if (reference.startsWith('.') || isAbsolute(reference) || /\.(ts|js|mjs)$/.test(reference)) {
    const file = resolve(baseDirectory, reference)
    if (!existsSync(file)) {
      throw new StrategyLoadError({ reference, reason: `no file at ${file}`, hint: 'paths are relative to the config file' })
    }
    return { kind: 'file', file }
  }
  if (builtInNamePattern.test(reference)) {
    for (const directory of strategyDirectories) {
      const file = entryFiles.map((entry) => join(directory, reference, entry)).find((candidate) => existsSync(candidate))
      if (file !== undefined) return { kind: 'built-in', file }
    }
  }
  const file = resolveStrategyPackage(reference, baseDirectory)
  if (file !== undefined) return { kind: 'package', file }
  const searched = strategyDirectories.map((directory) => join(directory, reference, 'index.{ts,js}'))
  throw new StrategyLoadError({
    reference,
    reason: `expected a built-in strategy (${builtInNamePattern.test(reference) ? searched.join(' or ') : 'not a valid built-in name'}), a file path, or an npm package installed under ${baseDirectory}; found none`,
    hint: `check the spelling, start a file path with "./", or install the package (npm install ${reference})`,
  })
}
