// `npm run build` (and `npm ci` / `npm pack` through `prepare`): the package as Node runs it, in dist/.
// - JavaScript for every module of src/ and strategies/ (built-ins are loaded by name from dist/strategies), by
//   esbuild: the transform tsx applies when running from source, in about a second (tsc takes ~20 s to emit it).
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
import { join, relative } from 'node:path'
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

const { build } = await import('esbuild')
try {
  const transpiled = await timed(() =>
    build({
      absWorkingDir: root,
      entryPoints: modules,
      outdir: outDir,
      outbase: '.',
      format: 'esm',
      platform: 'node',
      target: 'node20.19',
      logLevel: 'warning',
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
    `build: dist/ with ${modules.length} modules (esbuild, ${transpiled} s), the web console (esbuild, ${bundled} s), declarations (tsc, ${declared} s), ${assets.length} assets`,
  )
} finally {
  rmSync(outDir, { recursive: true, force: true })
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
