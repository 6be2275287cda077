import { mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { findInvalidUtf8, maxConfigFileBytes } from '../../src/config/config-text.js'
import { ConfigError, type LoadConfigParameters, loadConfig } from '../../src/config/load-config.js'
import { runDeltaflow } from '../helpers/deltaflow-cli.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

const directory = createTempDirectory('deltaflow-config-faults-')
afterAll(() => directory.cleanup())

let files = 0
/** A config file with these bytes or this text, under a fresh name. */
function configFile(content: string | Uint8Array): string {
  files += 1
  const file = directory.path(`bot-${files}.yaml`)
  writeFileSync(file, content)
  return file
}

/** The problems ConfigError lists for the file, or a failure when it is accepted or fails otherwise. */
function problemsOf(content: string | Uint8Array, parameters: LoadConfigParameters = {}): { file: string; problems: readonly string[] } {
  const file = configFile(content)
  try {
    loadConfig(file, { env: {}, ...parameters })
  } catch (error) {
    if (error instanceof ConfigError) return { file, problems: error.problems }
    throw error
  }
  throw new Error(`the configuration was accepted:\n${typeof content === 'string' ? content : '(bytes)'}`)
}

// Six levels, each nine aliases of the one before: 9^5 = 59 049 copies of the first list from six short lines.
const aliasBomb = [
  'a: &a [x, x, x, x, x, x, x, x, x]',
  'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]',
  'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]',
  'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]',
  'e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]',
  'f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]',
  '',
].join('\n')

const emptyConfig = 'expected a deltaflow configuration (a mapping of sections such as venue, chains and strategies)'

describe('loadConfig: YAML aliases', () => {
  it('names the alias at which an alias bomb passes the limit, by file, line and column', () => {
    const { file, problems } = problemsOf(aliasBomb)
    expect(problems).toEqual([
      `${file}:5:8: alias *d makes the aliases expand to more than 10000 values (an alias bomb?): repeat fewer aliases, or write the values out`,
    ])
  })

  it('names an alias without anchor, and one inside the value it names, instead of throwing', () => {
    expect(problemsOf('venue:\n  partner: *nowhere\n').problems).toEqual([
      expect.stringMatching(/:2:12: alias \*nowhere names no anchor: expected &nowhere on a value before it$/),
    ])
    const looped = problemsOf(['strategies: &all', '  - name: a', '    use: dca', '    config: { again: *all }', ''].join('\n'))
    expect(looped.problems).toEqual([`${looped.file}:4:22: alias *all is inside the value it names, which would contain itself forever`])
  })

  it('reads aliases that share a value between strategies', () => {
    const file = configFile(
      [
        'strategies:',
        '  - { name: dca-a, use: dca, config: &shared { total: "1000", slices: 4 } }',
        '  - { name: dca-b, use: dca, config: *shared }',
        '',
      ].join('\n'),
    )
    expect(loadConfig(file, { env: {} }).strategies.map((entry) => entry.config)).toEqual([
      { total: '1000', slices: 4 },
      { total: '1000', slices: 4 },
    ])
  })
})

// Any code point (a lone surrogate encodes as U+FFFD), as UTF-8 bytes.
const codePoint = fc.integer({ min: 0, max: 0x10ffff })
const utf8Of = (codePoints: fc.Arbitrary<number[]>) => codePoints.map((points) => new TextEncoder().encode(String.fromCodePoint(...points)))

describe('loadConfig: bytes that are not a configuration', () => {
  it('refuses invalid UTF-8 at the line and column of the first bad byte, never replacing it', () => {
    const bytes = Buffer.concat([
      Buffer.from('venue:\n  partner: anon\ndb: /tmp/journal-'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('.sqlite\n'),
    ])
    const { file, problems } = problemsOf(bytes)
    expect(problems).toEqual([
      `${file}:3:18: expected UTF-8 text, received the byte 0xFF (byte 40 of the file), which is not valid UTF-8: save the file as UTF-8`,
    ])
    // A sequence cut short names its first byte; columns count the characters before it.
    const cut = problemsOf(Buffer.concat([Buffer.from('venue: { partner: "é'), Buffer.from([0xe2, 0x82]), Buffer.from('" }\n')]))
    expect(cut.problems[0]).toMatch(/:1:21: expected UTF-8 text, received the byte 0xE2 \(byte 21 of the file\)/)
  })

  it('finds the first byte that is not UTF-8 exactly where a strict decoder stops', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 24 }),
          utf8Of(fc.array(codePoint, { maxLength: 12 })),
          fc
            .tuple(
              utf8Of(fc.array(codePoint, { maxLength: 6 })),
              fc.uint8Array({ minLength: 1, maxLength: 4 }),
              utf8Of(fc.array(codePoint, { maxLength: 4 })),
            )
            .map((parts) => Buffer.concat(parts)),
        ),
        (bytes) => {
          const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })
          const decodes = (part: Uint8Array) => {
            try {
              strict.decode(part)
              return true
            } catch {
              return false
            }
          }
          const offset = findInvalidUtf8(bytes)
          if (offset === undefined) return decodes(bytes)
          // Everything before it decodes; the sequence starting there is bad whatever follows it.
          return !decodes(bytes) && decodes(bytes.subarray(0, offset)) && !decodes(bytes.subarray(offset, offset + 4))
        },
      ),
      { numRuns: 1_000 },
    )
  })

  it('accepts a byte order mark at the start, positions after it unchanged', () => {
    const withMark = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('venue:\n  partner: desk-1\n')])
    expect(loadConfig(configFile(withMark), { env: {} }).venue.partner).toBe('desk-1')
    const { file, problems } = problemsOf(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('mode: yolo\n')]))
    expect(problems[0]).toMatch(new RegExp(`^${file}:1:7: mode: `))
  })

  it('refuses a file larger than 1 MiB without reading it whole', () => {
    const { file, problems } = problemsOf(`# ${'x'.repeat(maxConfigFileBytes)}\nmode: paper\n`)
    expect(problems).toEqual([`${file}: expected a configuration file of at most 1048576 bytes (1 MiB), received a larger file`])
    const atLimit = `mode: paper\n# ${'x'.repeat(maxConfigFileBytes - 'mode: paper\n# \n'.length)}\n`
    expect(loadConfig(configFile(atLimit), { env: {} }).mode).toBe('paper')
  })
})

describe('loadConfig: a file with no configuration in it', () => {
  it.each([
    ['an empty file', '', ':1:1:', 'an empty file (nothing but comments or blank lines)'],
    ['a file of comments', '# the bot\n\n# more later\n', ':1:1:', 'an empty file (nothing but comments or blank lines)'],
    ['a lone document marker', '---\n', ':1:4:', 'an empty document'],
    ['null', '# the bot\nnull\n', ':2:1:', 'null'],
    ['~', '~\n', ':1:1:', 'null (written ~)'],
    ['a list', '- venue\n', ':1:1:', 'a list'],
    ['a string', 'paper\n', ':1:1:', 'the string "paper"'],
  ])('refuses %s, naming the file and line', (_what, text, position, received) => {
    const { file, problems } = problemsOf(text)
    expect(problems).toEqual([`${file}${position} ${emptyConfig}, received ${received}`])
  })

  it('refuses a config without an enabled strategy for a command that runs strategies, at its strategies key', () => {
    const expected = 'strategies: expected at least one enabled strategy for a command that runs strategies'
    const requireStrategies = { requireStrategies: true }
    const none = problemsOf('# a bot\nmode: paper\n', requireStrategies)
    expect(none.problems).toEqual([`${none.file}:2:1: ${expected}, received a configuration without strategies`])
    const empty = problemsOf('mode: paper\nstrategies: []\n', requireStrategies)
    expect(empty.problems).toEqual([`${empty.file}:2:13: ${expected}, received an empty list`])
    const disabled = problemsOf(
      ['strategies:', '  - { name: a, use: dca, enabled: false }', '  - { name: b, use: dca, enabled: false }', ''].join('\n'),
      requireStrategies,
    )
    expect(disabled.problems).toEqual([`${disabled.file}:2:3: ${expected}, received 2, each with enabled: false`])
    const oneEnabled = configFile('strategies:\n  - { name: a, use: dca, enabled: false }\n  - { name: b, use: dca }\n')
    expect(loadConfig(oneEnabled, { env: {}, requireStrategies: true }).strategies).toHaveLength(2)
    // Commands that run no strategy (quote, maker, orders) still read a config without them.
    expect(loadConfig(configFile('mode: paper\n'), { env: {} }).strategies).toEqual([])
  })
})

describe('loadConfig: YAML the schema cannot see', () => {
  it.each([
    ['a local tag', 'venue:\n  partner: !foo bar\n', ':2:12:', '!foo'],
    ['!!binary', 'venue:\n  partner: !!binary ZGVzaw==\n', ':2:12:', '!!binary'],
    ['!!set', 'venue: !!set { url, partner }\n', ':1:8:', '!!set'],
    ['!!timestamp', 'db: !!timestamp 2026-01-01\n', ':1:5:', '!!timestamp'],
    ['!!set under a %YAML 1.1 directive', '%YAML 1.1\n---\nvenue: !!set { url }\n', ':3:8:', '!!set'],
  ])('refuses %s with its file and line', (_what, text, position, tag) => {
    const { file, problems } = problemsOf(text)
    expect(problems).toEqual([
      `${file}${position} unsupported YAML tag ${tag}: expected plain strings, numbers, booleans, lists and mappings; remove the tag`,
    ])
  })

  it('reads the core tags that give a plain value', () => {
    expect(loadConfig(configFile('venue:\n  partner: !!str 1234\n  retries: !!int 2\n'), { env: {} }).venue).toMatchObject({
      partner: '1234',
      retries: 2,
    })
  })

  it('names a repeated key, a tab indent and a second document in the words of a config error', () => {
    const repeated = problemsOf('venue:\n  partner: a\n  retries: 2\n  partner: b\n')
    expect(repeated.problems).toEqual([`${repeated.file}:4:3: duplicate key "partner": a key may appear only once in a mapping`])
    const tabbed = problemsOf('venue:\n\tpartner: a\n')
    expect(tabbed.problems).toEqual([`${tabbed.file}:2:1: a tab indents this line: YAML indents with spaces only`])
    const two = problemsOf('mode: paper\n---\nmode: live\n')
    expect(two.problems).toEqual([
      `${two.file}:2:1: a second YAML document starts here: expected one configuration per file (remove the \`---\` line)`,
    ])
  })
})

describe('loadConfig: names', () => {
  it('bounds the names that reach journal rows, metrics labels and logs, naming the YAML path and line', () => {
    const long = 'n'.repeat(65)
    const { file, problems } = problemsOf(
      [
        'venue: { partner: "my desk" }',
        'strategies:',
        `  - { name: ${long}, use: dca }`,
        '  - { name: ../journal, use: dca }',
        'maker:',
        `  name: ${long}`,
        '  chains: { "1": { basePath: /maker/1 } }',
        '  strategy: { use: market-maker }',
        '',
      ].join('\n'),
    )
    expect(problems).toEqual([
      `${file}:1:19: venue.partner: expected letters, digits, "_", "-" or ".", starting with a letter or digit, received "my desk"`,
      `${file}:3:13: strategies.0.name: expected a name of at most 64 characters, received 65`,
      `${file}:4:13: strategies.1.name: expected letters, digits, "_", "-" or ".", starting with a letter or digit, received "../journal"`,
      `${file}:6:9: maker.name: expected a name of at most 64 characters, received 65`,
    ])
    expect(loadConfig(configFile(`strategies:\n  - { name: ${'n'.repeat(64)}, use: dca }\n`), { env: {} }).strategies).toHaveLength(1)
  })

  it('refuses a journal path with a control character or past 1024 characters, and a chain id past 2^53', () => {
    const { file, problems } = problemsOf(
      ['db: "/tmp/journal\\n.sqlite"', 'chains: { "9007199254740993": { rpcUrls: [http://127.0.0.1:1] } }', ''].join('\n'),
    )
    expect(problems).toEqual([
      `${file}:1:5: db: expected a file path without control characters (newline, tab, NUL), received "/tmp/journal\\n.sqlite"`,
      `${file}:2:31: chains.9007199254740993: invalid key: expected a chain id from 1 to 2^53 - 1`,
    ])
    const longPath = problemsOf(`db: /tmp/${'j'.repeat(1020)}\n`)
    expect(longPath.problems).toEqual([`${longPath.file}:1:5: db: expected a path of at most 1024 characters, received 1025`])
  })
})

describe('deltaflow run with a file that is no configuration', () => {
  it('exits 1 before starting anything, naming the file and line; a directory is a usage error (exit 2)', async () => {
    const folder = directory.path('journals')
    mkdirSync(folder)
    const empty = configFile('# nothing here yet\n')
    const before = `db: ${folder}/journal-`
    const garbled = configFile(Buffer.concat([Buffer.from(before), Buffer.from([0xc3, 0x28]), Buffer.from('.sqlite\n')]))
    const [ranEmpty, ranGarbled, ranDirectory] = await Promise.all([
      runDeltaflow(['run', empty, '--for', '1']),
      runDeltaflow(['run', garbled, '--for', '1']),
      runDeltaflow(['run', folder, '--for', '1']),
    ])
    expect(ranEmpty.code, ranEmpty.stderr).toBe(1)
    expect(ranEmpty.stderr).toContain(`${empty}:1:1: ${emptyConfig}, received an empty file`)
    expect(ranGarbled.code, ranGarbled.stderr).toBe(1)
    expect(ranGarbled.stderr).toContain(`${garbled}:1:${before.length + 1}: expected UTF-8 text, received the byte 0xC3`)
    // No journal under a name with a replacement character.
    expect(readdirSync(folder)).toEqual([])
    expect(ranDirectory.code, ranDirectory.stderr).toBe(2)
    expect(ranDirectory.stderr).toContain(`not a file: ${folder} is a directory`)
  })
})
