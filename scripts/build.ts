// `npm run build` (and `npm ci` / `npm pack` through `prepare`): the package as Node runs it, in dist/.
// - JavaScript for every module of src/ and strategies/ (built-ins are loaded by name from dist/strategies), by
//   esbuild: the transform tsx applies when running from source, in about a second (tsc takes ~20 s to emit it).
// - viem, the @noble/curves entries, rxjs and yaml bundled into dist/vendor/, which those modules import (see
//   `vendored`).
// - Declarations for the public entry and the modules its types reach, by tsc (tsconfig.build.json).
// - The files modules read beside themselves (Solidity sources, market data): everything but .ts and .md.
// - The web console (src/console-ui/, a browser app): one bundle with its charting library and CSS, in
//   dist/console-ui/, which the ops server serves; nothing is fetched from a CDN at run time.
// Type checking is `npm run typecheck`'s job, not the install's.
// `--if-stale` builds only when dist/ was not built from the sources as they are now (its stamp is a hash of them):
// `npm start` and the test run use it, so a checkout never runs a stale dist/.

import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { builtStamp, sourceStamp, stampName } from './build-stamp.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const distDir = join(root, 'dist')
// Built beside dist/ and swapped in at the end: a failed build keeps the last one, and a CLI starting meanwhile
// sees one whole build or the other.
const outDir = join(root, `dist.building-${process.pid}`)

const files = ['src', 'strategies'].flatMap((directory) =>
  readdirSync(join(root, directory), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name))),
)
const stamp = sourceStamp(root)
if (process.argv.includes('--if-stale') && builtStamp(root) === stamp) process.exit(0)

const consoleUi = 'src/console-ui/'
const serverFiles = files.filter((file) => !file.startsWith(consoleUi))
const modules = serverFiles.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
const assets = serverFiles.filter((file) => !file.endsWith('.ts') && !file.endsWith('.md'))

// viem (with ox, abitype and @noble) is ~400 ES modules, and Node's loader spends about a millisecond on each: 0.35 s
// of every CLI start before a line of deltaflow runs. Bundled into dist/vendor/ (one file per entry below, their
// shared code in chunks) it loads in ~0.03 s. Every module of dist/ imports these from dist/vendor/, so the CLI, the
// public entry and the strategies it loads share one copy; a user's own code that imports viem gets the package's
// (values and types are the same; an error class from one copy is not `instanceof` the other's).
// rxjs and yaml are bundled for the same reason: as Node resolves them they are CommonJS, 223 and 72 modules that
// cost ~0.05 s of every command that reads a config or runs a feed. Neither appears in the public entry's types.
const vendored: Record<string, string> = {
  viem: 'viem',
  'viem/actions': 'viem-actions',
  'viem/accounts': 'viem-accounts',
  '@noble/curves/secp256k1': 'noble-curves-secp256k1',
  '@noble/curves/abstract/modular': 'noble-curves-modular',
  rxjs: 'rxjs',
  yaml: 'yaml',
}
/** The ES module build of the packages whose `node` export is CommonJS (the same code): bundled from CommonJS, an entry would have only a default export. */
const esModuleBuilds: Record<string, string> = { rxjs: 'dist/esm/index.js', yaml: 'browser/index.js' }
/** dist/vendor/ in the sources' layout: dist/ mirrors the root (outbase '.'), so an import relative to a source file is right in dist/. */
const vendorDir = join(root, 'vendor')

const { build } = await import('esbuild')
try {
  const vendorBuilt = await timed(() =>
    build({
      absWorkingDir: root,
      entryPoints: Object.fromEntries(Object.entries(vendored).map(([specifier, name]) => [name, vendoredEntry(specifier)])),
      outdir: join(outDir, 'vendor'),
      bundle: true,
      splitting: true,
      chunkNames: 'chunks/[name]-[hash]',
      format: 'esm',
      platform: 'node',
      target: 'node20.19',
      legalComments: 'eof',
      logLevel: 'warning',
    }),
  )
  const transpiled = await timed(() =>
    build({
      absWorkingDir: root,
      entryPoints: modules,
      outdir: outDir,
      outbase: '.',
      // Bundling with every import external: each module is transpiled alone, as without bundling, and the plugin
      // below can point the vendored packages' imports at dist/vendor/.
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20.19',
      logLevel: 'warning',
      plugins: [
        {
          name: 'imports-stay-imports',
          setup(plugin) {
            plugin.onResolve({ filter: /.*/ }, (args) => {
              if (args.kind === 'entry-point') return undefined
              const name = vendored[args.path]
              if (name === undefined) return { path: args.path, external: true }
              const path = relative(dirname(args.importer), join(vendorDir, `${name}.js`))
              return { path: path.startsWith('.') ? path : `./${path}`, external: true }
            })
          },
        },
      ],
    }),
  )
  const bundled = await timed(() =>
    build({
      absWorkingDir: root,
      entryPoints: { app: `${consoleUi}main.ts` },
      outdir: join(outDir, 'console-ui'),
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: ['chrome111', 'firefox115', 'safari16.4'],
      minify: true,
      legalComments: 'eof',
      logLevel: 'warning',
    }),
  )
  cpSync(join(root, consoleUi, 'index.html'), join(outDir, 'console-ui', 'index.html'))
  const declared = await timed(async () => emitDeclarations())
  for (const asset of assets) cpSync(join(root, asset), join(outDir, asset))
  writeFileSync(join(outDir, stampName), `${stamp}\n`)
  const previous = `${outDir}.previous`
  if (existsSync(distDir)) renameSync(distDir, previous)
  renameSync(outDir, distDir)
  rmSync(previous, { recursive: true, force: true })
  console.log(
    `build: dist/ with ${modules.length} modules (esbuild, ${transpiled} s; ${Object.keys(vendored).length} vendored entries, ${vendorBuilt} s), the web console (esbuild, ${bundled} s), declarations (tsc, ${declared} s), ${assets.length} assets`,
  )
} finally {
  rmSync(outDir, { recursive: true, force: true })
}

function vendoredEntry(specifier: string): string {
  const resolved = fileURLToPath(import.meta.resolve(specifier))
  const esModuleBuild = esModuleBuilds[specifier]
  if (esModuleBuild === undefined) return resolved
  const packageDir = join(resolved.slice(0, resolved.lastIndexOf(`${sep}node_modules${sep}`)), 'node_modules', specifier)
  const entry = join(packageDir, esModuleBuild)
  if (!existsSync(entry)) throw new Error(`${specifier} has no ES module build at ${entry}; its layout changed`)
  return entry
}

function emitDeclarations(): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  const args = [tsc, '-p', 'tsconfig.build.json', '--noCheck', '--outDir', outDir]
  const { status, signal } = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' })
  if (status !== 0) throw new Error(`tsc could not emit the declarations (exit ${status ?? signal}); dist/ is left as it was`)
}

async function timed(step: () => Promise<unknown>): Promise<string> {
  const started = performance.now()
  await step()
  return ((performance.now() - started) / 1000).toFixed(1)
}
