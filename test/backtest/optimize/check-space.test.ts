import { readFileSync, writeFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { checkOptimizeSpace } from '../../../src/backtest/optimize/check-space.js'
import { ConfigError } from '../../../src/config/load-config.js'
import { loadCheckedConfig } from '../../../src/runtime/load-strategies.js'
import { createTempDirectory } from '../../helpers/temp-directory.js'

// The optimize section is checked against the strategies that run: a disabled entry is not loaded (its plugin may be
// absent on this machine), and a space that tunes it is refused at its line.

const directory = createTempDirectory('deltaflow-check-space-')
afterAll(() => directory.cleanup())
const example = readFileSync('config/ladder-optimize.yaml', 'utf8')

/** The example with a second, disabled strategy whose plugin file does not exist. */
function withDisabledEntry(extraSpace = ''): string {
  const disabled = [
    '  - name: parked',
    '    use: ./plugins/not-installed-here.ts',
    '    enabled: false',
    '    config: { anything: 1 }',
    '',
  ].join('\n')
  return example
    .replace('\n# `deltaflow optimize`: the space', `${disabled}\n# \`deltaflow optimize\`: the space`)
    .replace('  space:\n', `  space:\n${extraSpace}`)
}

function writeConfig(name: string, text: string): string {
  const file = directory.path(name)
  writeFileSync(file, text)
  return file
}

describe('checkOptimizeSpace', () => {
  it('leaves a disabled strategy alone: its plugin is not loaded', async () => {
    const file = writeConfig('disabled.yaml', withDisabledEntry())
    const document = await loadCheckedConfig(file, { requireStrategies: true })
    const checked = await checkOptimizeSpace(document)
    expect(checked.optimize.space).toHaveProperty(['strategies.0.config.levels'])
  })

  it('refuses a path into a disabled strategy at its YAML line', async () => {
    const text = withDisabledEntry('    strategies.1.config.anything:\n      range: { min: 1, max: 3, step: 1, type: integer }\n')
    const file = writeConfig('tunes-disabled.yaml', text)
    const line = text.split('\n').findIndex((row) => row.includes('strategies.1.config.anything:')) + 1
    const document = await loadCheckedConfig(file, { requireStrategies: true })
    const error = await checkOptimizeSpace(document).then(
      () => undefined,
      (caught: unknown) => caught,
    )
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).problems).toEqual([
      `${file}:${line}:5: optimize.space: "strategies.1.config.anything" tunes strategies.1 (parked), which has enabled: false: expected a path into an enabled strategy, as a disabled one never runs`,
    ])
  })
})
