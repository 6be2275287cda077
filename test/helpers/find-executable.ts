import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'

export type FindExecutableParameters = {
  /** What the binary is, for messages: "Chromium", "redis-server". */
  label: string
  /** The variable that names the binary outright (CHROMIUM_PATH); when set, nothing else is looked at. */
  variable: string
  /** Names looked for on PATH, in order. */
  names: readonly string[]
  /** How to install it, appended to every message. */
  installHint: string
}

/** The binary `variable` names, else the first of `names` on PATH. Throws, naming where it looked and how to install it. */
export function findExecutable({ label, variable, names, installHint }: FindExecutableParameters): string {
  const configured = process.env[variable]
  if (configured) {
    if (isExecutable(configured)) return configured
    throw new Error(`${variable} is ${configured}, which is not an executable file. ${installHint}`)
  }
  const directories = (process.env.PATH ?? '').split(delimiter).filter(Boolean)
  for (const name of names) {
    for (const directory of directories) {
      const candidate = join(directory, name)
      if (isExecutable(candidate)) return candidate
    }
  }
  throw new Error(`${label} was not found (looked for $${variable}, then ${names.join(' and ')} on PATH). ${installHint}`)
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}
