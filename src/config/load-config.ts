import { isMap, isPair, isScalar, isSeq, type Node, visit } from 'yaml'
import type { z } from 'zod'
import { BaseError } from '../errors/base.js'
import { readConfigText } from './config-text.js'
import { configValuesOf, parseConfigYaml, parseYamlValue } from './config-yaml.js'
import { requireFile } from './file-not-found.js'
import { type DeltaflowConfig, deltaflowConfigSchema, renamedConfigKeys } from './schema.js'

/** A configuration that cannot be used: every problem with its YAML path and line. Operational: fix the file. */
export class ConfigError extends BaseError {
  override name = 'ConfigError'
  readonly problems: readonly string[]
  constructor(file: string, problems: readonly string[]) {
    super(`Invalid configuration ${file}:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`, {
      details: { file },
      hint: 'Correct the listed keys; `deltaflow --help` and the README describe each one.',
      errorClass: 'operational',
    })
    this.problems = problems
  }
}

export type LoadConfigParameters = {
  /** Environment for `${NAME}` interpolation (default: process.env). */
  env?: Readonly<Record<string, string | undefined>>
  /**
   * Values set over the file before it is validated, as `--set` gives them: a dotted path (`strategies.0.config.slices`)
   * and a YAML scalar (`8`, `true`, `"0x…"`); a value replacing a string in the file stays a string.
   */
  set?: readonly { path: string; value: string }[] | undefined
  /**
   * The command runs the config's strategies (`run`, `backtest`, `record`): a config without an enabled strategy is
   * refused at its `strategies` key instead of starting a bot that does nothing.
   */
  requireStrategies?: boolean | undefined
}

/**
 * Reads a YAML configuration file: `${NAME}` replaced from the environment, then validated (unknown keys refused).
 * A missing file throws FileNotFoundError; every problem of the file throws one ConfigError, including a file that is
 * not UTF-8, larger than 1 MiB, empty, or whose YAML uses an unknown tag, an alias without anchor or an alias bomb.
 */
export function loadConfig(file: string, parameters: LoadConfigParameters = {}): DeltaflowConfig {
  return loadConfigDocument(file, parameters).config
}

/** A configuration with where each of its keys sits in the file. */
export type ConfigDocument = {
  config: DeltaflowConfig
  file: string
  /** `file:line:col` of the value at `path` (e.g. ['strategies', 0, 'config', 'slices']), or of its nearest parent. */
  locate: (path: readonly PropertyKey[]) => string
  /** `file:line:col` of the key `key` of the map at `path` (an unknown key), or of the map. */
  locateKey: (path: readonly PropertyKey[], key: string) => string
}

/** As loadConfig, keeping the positions of the keys (for errors found later, such as a strategy's own config). */
export function loadConfigDocument(file: string, parameters: LoadConfigParameters = {}): ConfigDocument {
  return documentOrThrow(checkConfigFile(file, parameters))
}

/** As loadConfig, from text; `file` names the source in messages. */
export function parseConfig(text: string, file: string, parameters: LoadConfigParameters = {}): DeltaflowConfig {
  return parseConfigDocument(text, file, parameters).config
}

/** As parseConfig, keeping the positions of the keys. */
export function parseConfigDocument(text: string, file: string, parameters: LoadConfigParameters = {}): ConfigDocument {
  return documentOrThrow(checkConfigText(text, file, parameters))
}

/** What checking a configuration found: every problem of the file, and what later checks (a strategy's own config) read. */
export type ConfigCheck = {
  file: string
  /** Each problem as `file:line:col: path: message`, in no particular order. */
  problems: string[]
  /** The validated configuration, when the file has no problem. */
  document: ConfigDocument | undefined
  /** The file's values (after `${NAME}` and `--set`), schema or not; undefined when the YAML does not parse. */
  values: unknown
  locate: ConfigDocument['locate']
  locateKey: ConfigDocument['locateKey']
}

/** Checks a configuration file without throwing on its problems; a missing file throws FileNotFoundError. */
export function checkConfigFile(file: string, parameters: LoadConfigParameters = {}): ConfigCheck {
  requireFile(file, 'a YAML configuration')
  let read: ReturnType<typeof readConfigText>
  try {
    read = readConfigText(file)
  } catch (cause) {
    throw new ConfigError(file, [`${file}: cannot read the file: ${(cause as Error).message}`])
  }
  if ('problem' in read)
    return { file, problems: [read.problem], document: undefined, values: undefined, locate: () => file, locateKey: () => file }
  return checkConfigText(read.text, file, parameters)
}

/**
 * Checks a configuration's text: YAML syntax, `${NAME}` interpolation, `--set` values and the schema, every problem
 * collected (a key whose variable is missing is not reported a second time by the schema).
 */
export function checkConfigText(
  text: string,
  file: string,
  { env = process.env, set = [], requireStrategies = false }: LoadConfigParameters = {},
): ConfigCheck {
  const { document, where, problems: yamlProblems } = parseConfigYaml(text, file)
  const locate = (path: readonly PropertyKey[]) => where(rangeStart(nodeAt(document.contents, path.map(String))))
  const locateKey = (path: readonly PropertyKey[], key: string) => {
    const map = nodeAt(document.contents, path.map(String))
    return where(keyNodeAt(map, key)?.range?.[0] ?? rangeStart(map))
  }
  const check = (problems: string[], values: unknown, config?: DeltaflowConfig): ConfigCheck => ({
    file,
    problems,
    document: config && problems.length === 0 ? { config, file, locate, locateKey } : undefined,
    values,
    locate,
    locateKey,
  })
  if (yamlProblems.length > 0) return check(yamlProblems, undefined)
  const problems: string[] = []
  // Paths whose `${NAME}` is missing: the schema's complaint about the emptied value would say the same again.
  const unset = new Set<string>()
  visit(document, {
    Scalar(_key, node, path) {
      if (typeof node.value !== 'string' || !node.value.includes('${')) return
      node.value = node.value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, name: string) => {
        const value = env[name]
        if (value === undefined) {
          problems.push(`${where(node.range?.[0])} (${yamlPath(path)}): environment variable ${name} is not set`)
          unset.add(nodePath(path, node).join('.'))
          return ''
        }
        return value
      })
    },
  })
  for (const { path, value } of set) {
    const segments = path.split('.').map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment))
    if (path === '' || segments.some((segment) => segment === '')) {
      problems.push(`--set ${path}=${value}: expected a dotted path such as strategies.0.config.slices`)
      continue
    }
    try {
      // A value replacing a string stays a string (`lowerPrice=1900` where the file has "2100"); elsewhere YAML decides.
      const current = document.getIn(segments, true)
      const replacesString = isScalar(current) && typeof current.value === 'string'
      const parsed = replacesString ? { value } : parseYamlValue(value)
      if ('problem' in parsed) {
        problems.push(`--set ${path}=${value}: ${parsed.problem}`)
        continue
      }
      document.setIn(segments, parsed.value)
    } catch (cause) {
      problems.push(`--set ${path}=${value}: ${(cause as Error).message}`)
    }
  }
  let values: unknown
  try {
    values = configValuesOf(document)
  } catch (cause) {
    // parseConfigYaml bounds the aliases; yaml's own limit is the last guard.
    return check([...problems, `${file}: ${(cause as Error).message}`], undefined)
  }
  if (requireStrategies) problems.push(...missingStrategies(values, locate))
  const result = deltaflowConfigSchema.safeParse(values)
  if (result.success) return check(problems, values, result.data)
  for (const issue of result.error.issues) {
    if (!unset.has(issue.path.map(String).join('.'))) problems.push(describeIssue(issue, document.contents, where))
  }
  return check(problems, values)
}

/** The checked document, or one ConfigError with every problem in file order. */
export function documentOrThrow(check: ConfigCheck): ConfigDocument {
  if (check.document && check.problems.length === 0) return check.document
  throw new ConfigError(check.file, sortProblems(check.problems))
}

/** Problems sorted by their `file:line:col` (stable; those without a position first, as they concern the whole file). */
export function sortProblems(problems: readonly string[]): string[] {
  const position = (problem: string) => {
    const match = /^[^\n]*?:(\d+):(\d+)[: ]/.exec(problem)
    return match ? Number(match[1]) * 1e6 + Number(match[2]) : -1
  }
  return problems
    .map((problem, index) => ({ problem, index, at: position(problem) }))
    .sort((left, right) => left.at - right.at || left.index - right.index)
    .map(({ problem }) => problem)
}

/** The problem of a config that a command running strategies cannot use: none, or none enabled. */
function missingStrategies(values: unknown, locate: ConfigDocument['locate']): string[] {
  if (typeof values !== 'object' || values === null || Array.isArray(values)) return []
  const entries = (values as { strategies?: unknown }).strategies
  const expected = 'strategies: expected at least one enabled strategy for a command that runs strategies'
  if (entries === undefined) return [`${locate([])}: ${expected}, received a configuration without strategies`]
  // Anything else than a list (null included) is the schema's problem.
  if (!Array.isArray(entries)) return []
  if (entries.length === 0) return [`${locate(['strategies'])}: ${expected}, received an empty list`]
  const disabled = entries.filter(
    (entry) => typeof entry === 'object' && entry !== null && (entry as { enabled?: unknown }).enabled === false,
  )
  if (disabled.length < entries.length) return []
  return [`${locate(['strategies'])}: ${expected}, received ${entries.length}, each with enabled: false`]
}

function describeIssue(issue: z.core.$ZodIssue, root: unknown, where: (offset: number | undefined) => string): string {
  const path = issue.path.map(String)
  const node = nodeAt(root, path)
  const keyPath = path.length > 0 ? path.join('.') : '(top level)'
  if (issue.code === 'unrecognized_keys') {
    const keyNode = (issue.keys ?? []).map((key) => keyNodeAt(node, key)).find((found) => found !== undefined)
    const moved = issue.keys.flatMap((key) => {
      const now = renamedConfigKeys[[...path, key].join('.')]
      return now === undefined ? [] : [`"${key}" is now ${now}: rename it`]
    })
    return `${where(keyNode?.range?.[0] ?? rangeStart(node))}: unknown key ${issue.keys.map((key) => `"${key}"`).join(', ')} in ${keyPath}${moved.length > 0 ? `; ${moved.join('; ')}` : ''}`
  }
  if (path.length === 0 && issue.code === 'invalid_type') {
    return `${where(rangeStart(node))}: expected a deltaflow configuration (a mapping of sections such as venue, chains and strategies), received ${isSeq(node) ? 'a list' : isScalar(node) ? `the ${typeof node.value} ${JSON.stringify(node.value)}` : 'another value'}`
  }
  const message = issue.code === 'invalid_key' ? `invalid key: ${issue.issues[0]?.message ?? issue.message}` : issue.message
  return `${where(rangeStart(node))}: ${keyPath}: ${message}`
}

function nodeAt(root: unknown, path: readonly string[]): unknown {
  let node = root
  for (const segment of path) {
    if (isMap(node)) node = node.get(segment, true) ?? node
    else if (isSeq(node)) node = node.get(Number(segment), true) ?? node
    else break
  }
  return node
}

function keyNodeAt(map: unknown, key: string): Node | undefined {
  if (!isMap(map)) return undefined
  const pair = map.items.find((item) => isScalar(item.key) && item.key.value === key)
  return pair && isScalar(pair.key) ? pair.key : undefined
}

function rangeStart(node: unknown): number | undefined {
  return (node as { range?: [number, number, number] } | undefined)?.range?.[0]
}

/** The keys and indexes from the document's root down to `node` (its ancestors are `path`, as visit gives them). */
function nodePath(path: readonly unknown[], node: unknown): (string | number)[] {
  const keys: (string | number)[] = []
  path.forEach((ancestor, index) => {
    const child = path[index + 1] ?? node
    if (isPair(ancestor) && ancestor.value === child) keys.push(isScalar(ancestor.key) ? String(ancestor.key.value) : '?')
    else if (isSeq(ancestor)) keys.push(ancestor.items.indexOf(child as never))
  })
  return keys
}

function yamlPath(path: readonly unknown[]): string {
  const keys = path.filter(isPair).map((pair) => (isScalar(pair.key) ? String(pair.key.value) : '?'))
  return keys.join('.') || '(top level)'
}
