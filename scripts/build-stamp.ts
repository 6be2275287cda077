import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'

/** The file in dist/ where the build records the stamp of the sources it was made from. */
export const stampName = 'build-stamp.txt'

/** What dist/ is made of: every file of src/ and strategies/ and the build's own settings. */
const inputs = ['src', 'strategies']
const settings = ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/build.ts']

/** A SHA-256 over the path and content of every build input: equal stamps, equal dist/. */
export function sourceStamp(root: string): string {
  const files = inputs
    .flatMap((directory) =>
      readdirSync(join(root, directory), { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => relative(root, join(entry.parentPath, entry.name))),
    )
    .concat(settings)
    .sort()
  const hash = createHash('sha256')
  for (const file of files)
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(root, file)))
      .update('\0')
  return hash.digest('hex')
}

/** The stamp dist/ was built with, or undefined when there is no build. */
export function builtStamp(root: string): string | undefined {
  const file = join(root, 'dist', stampName)
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined
}
