import { statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { CommandUsageError } from './command-errors.js'

/**
 * Refuses a path to write a result to (a report, a JSON result, a trades file) when its directory does not exist or
 * the path is a directory, before the command runs anything: a backtest or an optimisation would otherwise run for
 * minutes and then fail to write what it found.
 */
export function requireOutputPath(path: string, option = '--report'): void {
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
