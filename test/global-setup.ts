import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { builtStamp, sourceStamp } from '../scripts/build-stamp.js'
import { loadContractArtifacts } from '../src/sandbox/contracts/compile.js'

const runMarker = `DELTAFLOW_TEST_RUN=${randomUUID()}`

const root = fileURLToPath(new URL('..', import.meta.url))

/**
 * Compiles the contracts once, before the workers start; builds dist/ when the sources changed since it was built (the
 * CLI tests run the compiled CLI, as users do); tags this run's processes through the environment.
 */
export function setup(): void {
  loadContractArtifacts()
  if (builtStamp(root) !== sourceStamp(root)) {
    execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts'], { cwd: root, stdio: 'inherit' })
  }
  const [key, value] = runMarker.split('=') as [string, string]
  process.env[key] = value
}

/** Fails the run when an anvil, redis-server or `deltaflow worker` process started by this run outlived it. */
export async function teardown(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 200))
  for (const [kind, matches] of survivorKinds) {
    const survivors = readdirSync('/proc').filter((pid) => /^\d+$/.test(pid) && isOurs(pid, matches))
    if (survivors.length > 0) throw new Error(`${kind} processes survived the test run: pids ${survivors.join(', ')}`)
  }
}

/** Processes a test starts and must stop, by their command line (redis-server rewrites its own into a title). */
const survivorKinds: [string, (argv: string[]) => boolean][] = [
  ['anvil', (argv) => (argv[0] ?? '').endsWith('/anvil')],
  ['redis-server', (argv) => /(^|\/)redis-server\b/.test(argv[0] ?? '')],
  ['deltaflow worker', (argv) => (argv[1] ?? '').endsWith('deltaflow.js') && argv[2] === 'worker'],
]

function isOurs(pid: string, matches: (argv: string[]) => boolean): boolean {
  try {
    if (!matches(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'))) return false
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(runMarker)
  } catch {
    return false
  }
}
