import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A fresh temp directory (for journal files and the like); `cleanup` removes it. */
export function createTempDirectory(prefix: string): { path: (name: string) => string; cleanup: () => void } {
  const directory = mkdtempSync(join(tmpdir(), prefix))
  return { path: (name) => join(directory, name), cleanup: () => rmSync(directory, { recursive: true, force: true }) }
}
