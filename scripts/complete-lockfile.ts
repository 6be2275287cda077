// Records platform packages that the registry reachable here does not serve (darwin, win32, musl builds of biome
// and anvil) in package-lock.json, as optional entries with their os / cpu / libc, so that `npm ci` accepts the lock
// on every platform. Without them npm ci reports "Missing: <package> from lock file". Run after `npm install`.
import { readFileSync, writeFileSync } from 'node:fs'
import { z } from 'zod'

const lockPath = new URL('../package-lock.json', import.meta.url)
const entrySchema = z.looseObject({ version: z.string().optional(), optionalDependencies: z.record(z.string(), z.string()).optional() })
const lockSchema = z.looseObject({ packages: z.record(z.string(), entrySchema) })
const raw: { packages: Record<string, Record<string, unknown>> } = JSON.parse(readFileSync(lockPath, 'utf8'))
const lock = lockSchema.parse(raw)

const platformOf = (name: string) => {
  const os = ['darwin', 'win32', 'linux', 'android', 'freebsd', 'openbsd', 'netbsd', 'sunos', 'aix'].find((candidate) =>
    name.includes(candidate),
  )
  const cpu = name.includes('arm64') ? 'arm64' : /x64|amd64/.test(name) ? 'x64' : name.includes('ia32') ? 'ia32' : undefined
  if (!os || !cpu) return undefined
  return { os: [os], cpu: [cpu], ...(os === 'linux' ? { libc: [name.includes('musl') ? 'musl' : 'glibc'] } : {}) }
}

const added: string[] = []
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`
    if (lock.packages[key] || lock.packages[`${path}/${key}`]) continue
    const platform = platformOf(name)
    if (!platform) throw new Error(`${name} (optional dependency of ${path}) is missing from the lock and names no platform`)
    raw.packages[key] = { version, ...(raw.packages[path]?.dev === true ? { dev: true } : {}), optional: true, ...platform }
    added.push(`${name}@${version}`)
  }
}

// npm keeps the root entry first and the rest sorted by path.
const sorted = Object.fromEntries(
  Object.entries(raw.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0)),
)
writeFileSync(lockPath, `${JSON.stringify({ ...raw, packages: sorted }, null, 2)}\n`)
console.log(added.length > 0 ? `recorded ${added.length} platform packages: ${added.join(', ')}` : 'package-lock.json already complete')
