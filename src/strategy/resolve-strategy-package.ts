import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

/**
 * The entry file of an installed npm package, looked up in `node_modules` from `baseDirectory` upwards (as Node
 * does), or undefined when no such package is installed. Reads `exports` (the `import` or `default` condition of
 * ".") then `main`, so ESM-only packages resolve too.
 */
export function resolveStrategyPackage(name: string, baseDirectory: string): string | undefined {
  for (let directory = baseDirectory; ; directory = dirname(directory)) {
    const packageDirectory = join(directory, 'node_modules', name)
    const manifestFile = join(packageDirectory, 'package.json')
    if (existsSync(manifestFile)) return join(packageDirectory, packageEntry(JSON.parse(readFileSync(manifestFile, 'utf8'))))
    if (dirname(directory) === directory) return undefined
  }
}

function packageEntry(manifest: unknown): string {
  const field = (value: unknown, key: string): unknown =>
    typeof value === 'object' && value !== null ? Reflect.get(value, key) : undefined
  let exported = field(manifest, 'exports')
  if (typeof exported === 'object' && exported !== null && '.' in exported) exported = field(exported, '.')
  for (const candidate of [exported, field(exported, 'import'), field(exported, 'default'), field(manifest, 'main')]) {
    if (typeof candidate === 'string') return candidate
  }
  return 'index.js'
}
