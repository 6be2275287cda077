import { readFileSync } from 'node:fs'
import { isMap, isPair, isScalar, isSeq, LineCounter, type Node, parse, parseDocument, visit } from 'yaml'
import type { z } from 'zod'
import { BaseError } from '../errors/base.js'
import { type DeltaflowConfig, deltaflowConfigSchema } from './schema.js'

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
}

/** Reads a YAML configuration file: `${NAME}` replaced from the environment, then validated (unknown keys refused). */
export function loadConfig(file: string, parameters: LoadConfigParameters = {}): DeltaflowConfig {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (cause) {
    throw new ConfigError(file, [`cannot read the file: ${(cause as Error).message}`])
  }
  return parseConfig(text, file, parameters)
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
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (cause) {
    throw new ConfigError(file, [`cannot read the file: ${(cause as Error).message}`])
  }
  return parseConfigDocument(text, file, parameters)
}

/** As loadConfig, from text; `file` names the source in messages. */
export function parseConfig(text: string, file: string, parameters: LoadConfigParameters = {}): DeltaflowConfig {
  return parseConfigDocument(text, file, parameters).config
}

/** As parseConfig, keeping the positions of the keys. */
export function parseConfigDocument(
  text: string,
  file: string,
  { env = process.env, set = [] }: LoadConfigParameters = {},
): ConfigDocument {
  const lineCounter = new LineCounter()
  const document = parseDocument(text, { lineCounter, prettyErrors: false })
  const where = (offset: number | undefined) => {
    if (offset === undefined) return file
    const { line, col } = lineCounter.linePos(offset)
    return `${file}:${line}:${col}`
  }
  if (document.errors.length > 0) {
    throw new ConfigError(
      file,
      document.errors.map((error) => `${where(error.pos[0])}: ${error.message.split('\n')[0]}`),
    )
  }
  const problems: string[] = []
  visit(document, {
    Scalar(_key, node, path) {
      if (typeof node.value !== 'string' || !node.value.includes('${')) return
      node.value = node.value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, name: string) => {
        const value = env[name]
        if (value === undefined) {
          problems.push(`${where(node.range?.[0])} (${yamlPath(path)}): environment variable ${name} is not set`)
          return ''
        }
        return value
      })
    },
  })
  if (problems.length > 0) throw new ConfigError(file, problems)
  for (const { path, value } of set) {
    const segments = path.split('.').map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment))
    if (path === '' || segments.some((segment) => segment === '')) {
      throw new ConfigError(file, [`--set ${path}=${value}: expected a dotted path such as strategies.0.config.slices`])
    }
    try {
      // A value replacing a string stays a string (`lowerPrice=1900` where the file has "2100"); elsewhere YAML decides.
      const current = document.getIn(segments, true)
      const replacesString = isScalar(current) && typeof current.value === 'string'
      document.setIn(segments, replacesString ? value : parse(value))
    } catch (cause) {
      throw new ConfigError(file, [`--set ${path}=${value}: ${(cause as Error).message}`])
    }
  }
  const result = deltaflowConfigSchema.safeParse(document.toJS() ?? {})
  if (result.success) {
    return {
      config: result.data,
      file,
      locate: (path) => where(rangeStart(nodeAt(document.contents, path.map(String)))),
      locateKey: (path, key) => {
        const map = nodeAt(document.contents, path.map(String))
        return where(keyNodeAt(map, key)?.range?.[0] ?? rangeStart(map))
      },
    }
  }
  throw new ConfigError(
    file,
    result.error.issues.map((issue) => describeIssue(issue, document.contents, where)),
  )
}

function describeIssue(issue: z.core.$ZodIssue, root: unknown, where: (offset: number | undefined) => string): string {
  const path = issue.path.map(String)
  const node = nodeAt(root, path)
  const keyPath = path.length > 0 ? path.join('.') : '(top level)'
  if (issue.code === 'unrecognized_keys') {
    const keyNode = (issue.keys ?? []).map((key) => keyNodeAt(node, key)).find((found) => found !== undefined)
    return `${where(keyNode?.range?.[0] ?? rangeStart(node))}: unknown key ${issue.keys.map((key) => `"${key}"`).join(', ')} in ${keyPath}`
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

function yamlPath(path: readonly unknown[]): string {
  const keys = path.filter(isPair).map((pair) => (isScalar(pair.key) ? String(pair.key.value) : '?'))
  return keys.join('.') || '(top level)'
}
