import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Abi, Hex } from 'viem'
import { z } from 'zod'
import { BaseError } from '../../errors/base.js'

export type ContractArtifact = {
  abi: Abi
  /** Creation code. */
  bytecode: Hex
  /** Runtime code, as placed by `anvil_setCode`. */
  deployedBytecode: Hex
}

export type ContractArtifacts = Record<string, ContractArtifact>

export class ContractCompileError extends BaseError {
  override name = 'ContractCompileError'
}

// The Solidity sources sit beside this module, in src/ and in the build's dist/src/ alike.
const sourcesDir = dirname(fileURLToPath(import.meta.url))

// Contracts are placed with anvil_setCode, so no immutables or constructor logic: state comes from initialize().
const settings = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
} as const

const artifactSchema = z.object({
  abi: z.array(z.looseObject({ type: z.string() })),
  bytecode: z.string().regex(/^0x[0-9a-f]*$/),
  deployedBytecode: z.string().regex(/^0x[0-9a-f]*$/),
})
const cacheSchema = z.record(z.string(), artifactSchema)

let memo: ContractArtifacts | undefined

/**
 * Compiles every Solidity source under src/sandbox/contracts with solc-js, once per source hash.
 * The result is cached in node_modules/.cache/deltaflow (see contractCacheDirectory), so only the first run after a
 * change pays for solc. A process reads, hashes and loads the sources once: the sandbox asks for an artifact at every
 * fill, swap check and arbitrage round, and the contracts it placed on its chains are those of its start.
 */
export function loadContractArtifacts(): ContractArtifacts {
  memo ??= readContractArtifacts()
  return memo
}

function readContractArtifacts(): ContractArtifacts {
  const sources = readSources()
  const solcVersion = readSolcVersion()
  const key = createHash('sha256').update(JSON.stringify({ solcVersion, settings, sources })).digest('hex').slice(0, 16)
  const cacheDir = contractCacheDirectory()
  const cacheFile = join(cacheDir, `contracts-${key}.json`)
  let artifacts: ContractArtifacts | undefined
  try {
    // The ABI entries are solc's own output, checked for shape here; viem's Abi type is narrower than zod can express.
    artifacts = cacheSchema.parse(JSON.parse(readFileSync(cacheFile, 'utf8'))) as unknown as ContractArtifacts
  } catch {
    artifacts = compile(sources)
    writeCache(cacheDir, cacheFile, artifacts)
  }
  return artifacts
}

/**
 * Where compiled contracts are cached: `DELTAFLOW_CACHE_DIR` if set; else, when deltaflow is installed as a package,
 * the `node_modules/.cache/deltaflow` of the project that installed it (as babel and eslint place their caches);
 * else, in a checkout, its own `node_modules/.cache/deltaflow`.
 */
export function contractCacheDirectory(env: NodeJS.ProcessEnv = process.env): string {
  if (env.DELTAFLOW_CACHE_DIR) return resolve(env.DELTAFLOW_CACHE_DIR)
  const packageRoot = findPackageRoot(sourcesDir)
  const installedIn = packageRoot.lastIndexOf(`${sep}node_modules${sep}`)
  const nodeModules = installedIn >= 0 ? packageRoot.slice(0, installedIn + `${sep}node_modules`.length) : join(packageRoot, 'node_modules')
  return join(nodeModules, '.cache', 'deltaflow')
}

/** The nearest folder at or above `directory` holding a package.json: deltaflow's own, from src/ or dist/src/. */
function findPackageRoot(directory: string): string {
  for (let current = directory; ; current = dirname(current)) {
    if (existsSync(join(current, 'package.json'))) return current
    if (dirname(current) === current) return directory
  }
}

/** A cache that cannot be written (a read-only install) costs a compile per process, not the run: warn and go on. */
function writeCache(cacheDir: string, cacheFile: string, artifacts: ContractArtifacts): void {
  try {
    mkdirSync(cacheDir, { recursive: true })
    const temporary = `${cacheFile}.${process.pid}.tmp`
    writeFileSync(temporary, JSON.stringify(artifacts))
    renameSync(temporary, cacheFile)
    // Older builds are never read again.
    for (const entry of readdirSync(cacheDir)) {
      if (/^contracts-[0-9a-f]{16}\.json$/.test(entry) && join(cacheDir, entry) !== cacheFile)
        rmSync(join(cacheDir, entry), { force: true })
    }
  } catch (error) {
    process.emitWarning(
      `deltaflow could not cache the compiled contracts in ${cacheDir} (${error instanceof Error ? error.message : String(error)}); ` +
        'set DELTAFLOW_CACHE_DIR to a writable folder so that later runs skip the compile',
    )
  }
}

/** The artifact of one contract, by its Solidity name. */
export function getContractArtifact(name: string): ContractArtifact {
  const artifact = loadContractArtifacts()[name]
  if (!artifact)
    throw new ContractCompileError(`No compiled contract named ${name}`, { details: { known: Object.keys(loadContractArtifacts()) } })
  return artifact
}

function readSources(): Record<string, { content: string }> {
  const sources: Record<string, { content: string }> = {}
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) visit(path)
      else if (entry.name.endsWith('.sol')) sources[relative(sourcesDir, path)] = { content: readFileSync(path, 'utf8') }
    }
  }
  visit(sourcesDir)
  return sources
}

function readSolcVersion(): string {
  const require = createRequire(import.meta.url)
  return (require('solc/package.json') as { version: string }).version
}

const solcOutputSchema = z.object({
  errors: z.array(z.object({ severity: z.string(), formattedMessage: z.string() })).optional(),
  contracts: z
    .record(
      z.string(),
      z.record(
        z.string(),
        z.object({
          abi: z.array(z.looseObject({ type: z.string() })),
          evm: z.object({ bytecode: z.object({ object: z.string() }), deployedBytecode: z.object({ object: z.string() }) }),
        }),
      ),
    )
    .optional(),
})

function compile(sources: Record<string, { content: string }>): ContractArtifacts {
  const require = createRequire(import.meta.url)
  const solc = require('solc') as { compile: (input: string) => string }
  const output = solcOutputSchema.parse(JSON.parse(solc.compile(JSON.stringify({ language: 'Solidity', sources, settings }))))
  const errors = (output.errors ?? []).filter((error) => error.severity === 'error')
  if (errors.length > 0) {
    throw new ContractCompileError('Solidity compilation failed', {
      details: { errors: errors.map((error) => error.formattedMessage).join('\n') },
    })
  }
  const artifacts: ContractArtifacts = {}
  for (const [file, contracts] of Object.entries(output.contracts ?? {})) {
    for (const [name, contract] of Object.entries(contracts)) {
      if (artifacts[name]) throw new ContractCompileError(`Two contracts are named ${name}`, { details: { file } })
      artifacts[name] = {
        abi: contract.abi as unknown as Abi,
        bytecode: `0x${contract.evm.bytecode.object}`,
        deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
      }
    }
  }
  return artifacts
}
