import { z } from 'zod'

/** Longest name a config may give (a strategy, the partner, the maker): names go into journal rows, metrics labels and logs. */
export const maxConfigNameLength = 64

/** Longest file path or strategy reference a config may give (the journal, a keystore, the kill-switch file). */
export const maxConfigPathLength = 1024

type Issue = { input?: unknown }

/** The received value for a message: JSON-quoted (a newline shows as \n), cut short when long. */
const received = ({ input }: Issue) => {
  if (typeof input !== 'string') return 'another value'
  const quoted = JSON.stringify(input)
  return quoted.length > 80 ? `${quoted.slice(0, 60)}…" (${input.length} characters)` : quoted
}

const atMost = (limit: number, what: string) => ({
  error: (issue: Issue) =>
    `expected ${what} of at most ${limit} characters, received ${typeof issue.input === 'string' ? issue.input.length : 'more'}`,
})

const made = (expected: string) => ({ error: (issue: Issue) => `expected ${expected}, received ${received(issue)}` })

/**
 * A name chosen in the config that other parts key things by: 1 to 64 letters, digits, "_", "-" or ".", starting with
 * a letter or digit (so it is never `.`, `..` or an option-looking `-x` where it becomes part of a path or a label).
 */
export const configNameSchema = z
  .string()
  .min(1, 'expected a name, received an empty string')
  .max(maxConfigNameLength, atMost(maxConfigNameLength, 'a name'))
  .regex(/^([A-Za-z0-9][A-Za-z0-9_.-]*)?$/, made('letters, digits, "_", "-" or ".", starting with a letter or digit'))

const noControlCharacters = /^[^\p{Cc}]*$/u

/** A file path from the config: no control characters (a newline or NUL in a file name), at most 1024 characters. */
export const configPathSchema = z
  .string()
  .min(1, 'expected a file path, received an empty string')
  .max(maxConfigPathLength, atMost(maxConfigPathLength, 'a path'))
  .regex(noControlCharacters, made('a file path without control characters (newline, tab, NUL)'))

/** What a strategy entry `use`s (a built-in name, a file path or an npm package). */
export const strategyReferenceSchema = z
  .string()
  .min(1, 'expected a built-in strategy, a file path or an npm package, received an empty string')
  .max(maxConfigPathLength, atMost(maxConfigPathLength, 'a strategy reference'))
  .regex(noControlCharacters, made('a strategy reference without control characters (newline, tab, NUL)'))

/** A token symbol for labels: 1 to 32 visible characters, no spaces. */
export const tokenSymbolSchema = z
  .string()
  .min(1, 'expected a token symbol, received an empty string')
  .max(32, atMost(32, 'a token symbol'))
  .regex(/^[^\s\p{C}]*$/u, made('a token symbol without spaces or control characters'))
