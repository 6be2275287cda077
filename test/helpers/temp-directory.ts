import { mkdtempSync, rmSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A fresh temp directory (for journal files and the like); `cleanup` removes it. */
export function createTempDirectory(prefix: string): { path: (name: string) => string; cleanup: () => void } {
  const directory = mkdtempSync(join(tmpdir(), prefix))
  return { path: (name) => join(directory, name), cleanup: () => rmSync(directory, { recursive: true, force: true }) }
}

/**
 * Fresh temp directories for a test file, each made by `make(prefix)`; `cleanup` removes every one of them (call it
 * in afterAll).
 */
export function createTempDirectories(): { make: (prefix: string) => Promise<string>; cleanup: () => Promise<void> } {
  const directories: string[] = []
  return {
    make: async (prefix) => {
      const directory = await mkdtemp(join(tmpdir(), prefix))
      directories.push(directory)
      return directory
    },
    cleanup: async () => {
      await Promise.all(directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })))
    },
  }
}
