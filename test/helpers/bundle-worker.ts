import { createRequire } from 'node:module'
import { build } from 'esbuild'

const require = createRequire(import.meta.url)

/**
 * Bundles a worker script and everything it imports into one ES module at `outfile`, once per test file: a child
 * process then starts in a fraction of the time tsx takes to transform hundreds of modules at each start. Native
 * modules (better-sqlite3) stay outside, imported by absolute path, so the bundle may live in any temp directory.
 */
export async function bundleWorker({ entry, outfile }: { entry: string; outfile: string }): Promise<string> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    logLevel: 'error',
    // CommonJS dependencies bundled into an ES module still call require.
    banner: {
      js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);",
    },
    plugins: [
      {
        name: 'native-modules-by-path',
        setup(plugin) {
          plugin.onResolve({ filter: /^better-sqlite3$/ }, (args) => ({ path: require.resolve(args.path), external: true }))
        },
      },
    ],
  })
  return outfile
}
