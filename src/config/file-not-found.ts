import { statSync } from 'node:fs'
import { BaseError } from '../errors/base.js'

/** A file named on the command line or in the config that does not exist. Operational: fix the path. */
export class FileNotFoundError extends BaseError {
  override name = 'FileNotFoundError'
  readonly path: string
  constructor(path: string, what: string, directory = false) {
    super(directory ? `not a file: ${path} is a directory` : `file not found: ${path}`, {
      details: { expected: what },
      hint: 'Check the path (a relative path starts at the current directory).',
      errorClass: 'operational',
    })
    this.path = path
  }
}

/** Throws FileNotFoundError unless `path` is an existing file; `what` says what the file was to hold. */
export function requireFile(path: string, what: string): void {
  const stat = statSync(path, { throwIfNoEntry: false })
  if (stat === undefined) throw new FileNotFoundError(path, what)
  if (stat.isDirectory()) throw new FileNotFoundError(path, what, true)
}
