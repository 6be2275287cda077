import { statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { CommandUsageError } from './command-errors.js'

/**
 * Refuses a path to write a report to when its directory does not exist or the path is a directory, before the
 * command runs anything (an optimisation would otherwise run for minutes and then fail to write its result).
 */
export function requireReportPath(path: string, option = '--report'): void {
  const directory = dirname(resolve(path))
  const parent = statSync(directory, { throwIfNoEntry: false })
  if (!parent?.isDirectory()) {
    throw new CommandUsageError(
      `${option}: expected a file in an existing directory, received ${path} (${directory} ${parent ? 'is not a directory' : 'does not exist'})`,
      'Create the directory first, or give a path in one that exists.',
    )
  }
  if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) {
    throw new CommandUsageError(
      `${option}: expected a file, received ${path}, which is a directory`,
      'Give a file name such as report.html.',
    )
  }
}
