import {
  type Alias,
  type Document,
  isAlias,
  isCollection,
  isPair,
  isScalar,
  LineCounter,
  type Node,
  parseDocument,
  visit,
  type YAMLError,
} from 'yaml'

/** The most values that aliases may add to a configuration once expanded (a shared strategy config uses a few dozen). */
export const maxAliasedValues = 10_000

/**
 * How configurations are parsed: YAML 1.2's core schema whatever the file's `%YAML` directive says, so only strings,
 * numbers, booleans, null, lists and mappings exist; tags of other types (`!!binary`, `!!set`, `!foo`) are left
 * unresolved, which yaml reports as a warning that the loader makes an error.
 */
const parseOptions = { schema: 'core', resolveKnownTags: false, merge: false, uniqueKeys: true, prettyErrors: false } as const

/** A parsed configuration document with its line positions, and what makes it unusable. */
export type ConfigYaml = {
  document: Document.Parsed
  /** `file:line:col` of a character offset of the text, or `file` without one. */
  where: (offset: number | undefined) => string
  /** Each problem as `file:line:col: message`; none when the document can be read as values. */
  problems: string[]
}

/**
 * Parses a configuration's text and checks what the schema cannot see: YAML errors, warnings (an unknown tag, an
 * unsupported directive), aliases naming no anchor or expanding past maxAliasedValues, and a file with no
 * configuration in it (empty, only comments, `---` or `null`).
 */
export function parseConfigYaml(text: string, file: string): ConfigYaml {
  const lineCounter = new LineCounter()
  const document = parseDocument(text, { ...parseOptions, lineCounter })
  const where = (offset: number | undefined) => {
    if (offset === undefined) return file
    const { line, col } = lineCounter.linePos(offset)
    return `${file}:${line}:${col}`
  }
  const problems = [...document.errors, ...document.warnings].map(
    (error) => `${where(error.pos[0])}: ${describeYamlError(error, text, document)}`,
  )
  if (problems.length > 0) return { document, where, problems }
  const contents = document.contents
  if (contents === null || (isScalar(contents) && contents.value === null)) {
    const written = contents === null ? '' : text.slice(...rangeOf(contents)).trim()
    const received =
      contents === null
        ? 'an empty file (nothing but comments or blank lines)'
        : written === ''
          ? 'an empty document'
          : written === 'null'
            ? 'null'
            : `null (written ${written})`
    problems.push(
      `${where(contents?.range?.[0] ?? 0)}: expected a deltaflow configuration (a mapping of sections such as venue, chains ` +
        `and strategies), received ${received}`,
    )
    return { document, where, problems }
  }
  return { document, where, problems: aliasProblems(document, where) }
}

/** A YAML value parsed as the configuration's own values are (`--set` values): its value, or why it cannot be one. */
export function parseYamlValue(text: string): { value: unknown } | { problem: string } {
  const document = parseDocument(text, parseOptions)
  const [error] = [...document.errors, ...document.warnings]
  if (error) return { problem: describeYamlError(error, text, document) }
  let aliases = 0
  visit(document, {
    Alias() {
      aliases += 1
    },
  })
  if (aliases > 0) return { problem: 'expected a plain value, received an alias' }
  return { value: document.toJS() }
}

/** The values of a document that parseConfigYaml found no problem in (its aliases are known to be bounded). */
export function configValuesOf(document: Document.Parsed): unknown {
  return document.toJS({ maxAliasCount: maxAliasedValues })
}

/** yaml's message, in the words of a configuration error where yaml's own would leave the reader guessing. */
function describeYamlError(error: YAMLError, text: string, document: Document.Parsed): string {
  const written = text.slice(error.pos[0], error.pos[1])
  switch (error.code) {
    case 'TAG_RESOLVE_FAILED':
      return `unsupported YAML tag ${written}: expected plain strings, numbers, booleans, lists and mappings; remove the tag`
    case 'DUPLICATE_KEY': {
      const key = keyAt(document, error.pos[0])
      return `duplicate key${key === undefined ? '' : ` "${key}"`}: a key may appear only once in a mapping`
    }
    case 'TAB_AS_INDENT':
      return 'a tab indents this line: YAML indents with spaces only'
    case 'MULTIPLE_DOCS':
      return 'a second YAML document starts here: expected one configuration per file (remove the `---` line)'
    case 'RESOURCE_EXHAUSTION':
      return `the values nest too deeply to read (${error.message.split('\n')[0]}): expected a configuration a few levels deep`
    case 'BAD_DIRECTIVE':
      return `unsupported directive ${written}: ${error.message.split('\n')[0]}`
    default:
      return error.message.split('\n')[0] ?? error.code
  }
}

function keyAt(document: Document.Parsed, offset: number): string | undefined {
  let key: string | undefined
  visit(document, {
    Pair(_key, pair) {
      if (isScalar(pair.key) && pair.key.range?.[0] === offset) {
        key = String(pair.key.value)
        return visit.BREAK
      }
      return undefined
    },
  })
  return key
}

/**
 * Aliases that name no anchor before them, that sit inside the collection they name (a loop), or that make the
 * document expand past maxAliasedValues (a "billion laughs": each level repeats the one before, a few lines growing to
 * millions of values). The expansion is counted without building it; the alias that crosses the limit is named.
 */
function aliasProblems(document: Document.Parsed, where: (offset: number | undefined) => string): string[] {
  // An alias names the last anchor of that name before it, as yaml resolves it (an anchored collection comes before
  // its items, so an alias inside it can name it).
  const anchors = new Map<string, Node>()
  const targets = new Map<Alias, Node>()
  const problems: string[] = []
  visit(document, {
    Node(_key, node) {
      if (isAlias(node)) {
        const target = anchors.get(node.source)
        if (target) targets.set(node, target)
        else
          problems.push(`${where(node.range?.[0])}: alias *${node.source} names no anchor: expected &${node.source} on a value before it`)
      } else if (node.anchor) {
        anchors.set(node.anchor, node)
      }
    },
  })
  if (problems.length > 0) return problems
  const sizes = new Map<Node, number>()
  const expanding = new Set<Node>()
  /** Values in `node` once its aliases are expanded; undefined once a loop is found. */
  const sizeOf = (node: unknown): number | undefined => {
    if (isAlias(node)) {
      const target = targets.get(node) as Node
      if (!expanding.has(target)) return sizeOf(target)
      problems.push(`${where(node.range?.[0])}: alias *${node.source} is inside the value it names, which would contain itself forever`)
      return undefined
    }
    if (isPair(node)) return sum(sizeOf(node.key), () => sizeOf(node.value))
    if (!isCollection(node)) return 1
    const known = sizes.get(node)
    if (known !== undefined) return known
    expanding.add(node)
    let size: number | undefined = 1
    for (const item of node.items) {
      size = sum(size, () => sizeOf(item))
      if (size === undefined) break
    }
    expanding.delete(node)
    if (size !== undefined) sizes.set(node, size)
    return size
  }
  let added = 0
  for (const [alias] of targets) {
    const size = sizeOf(alias)
    if (size === undefined) break
    added += size
    if (added > maxAliasedValues) {
      problems.push(
        `${where(alias.range?.[0])}: alias *${alias.source} makes the aliases expand to more than ${maxAliasedValues} values ` +
          '(an alias bomb?): repeat fewer aliases, or write the values out',
      )
      break
    }
  }
  return problems
}

function sum(left: number | undefined, right: () => number | undefined): number | undefined {
  if (left === undefined) return undefined
  const value = right()
  return value === undefined ? undefined : left + value
}

function rangeOf(node: Node): [number, number] {
  return [node.range?.[0] ?? 0, node.range?.[1] ?? 0]
}
