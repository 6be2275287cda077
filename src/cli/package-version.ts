import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { z } from 'zod'

const packageSchema = z.object({ name: z.string(), version: z.string() })

/**
 * The version of deltaflow's package.json: the nearest one above this module (src/cli/ when run from source,
 * dist/src/cli/ when built).
 */
export function packageVersion(): string {
  let directory = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    const parsed = packageSchema.safeParse(readJson(join(directory, 'package.json')))
    if (parsed.success && parsed.data.name === 'deltaflow') return parsed.data.version
    const parent = dirname(directory)
    if (parent === directory) return 'unknown'
    directory = parent
  }
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'))
  } catch {
    return undefined
  }
}
