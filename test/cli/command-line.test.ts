import { readFileSync, writeFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { runDeltaflow } from '../helpers/deltaflow-cli.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

// The command line's contract, none of it needing a venue: --version, exit codes (2: the command line was wrong,
// nothing started; 1: the work failed), flags checked before anything starts, missing files, log levels, and a
// config whose every problem is listed in one pass.

const directory = createTempDirectory('deltaflow-command-line-')
afterAll(() => directory.cleanup())
const quotes = 'test/fixtures/quotes/ethusdt-strategies.jsonl.gz'
const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }
// A port nothing listens on: a command that reached the venue would fail on the connection instead.
const deadVenue = ['--venue', 'http://127.0.0.1:9', '--rpc', '1=http://127.0.0.1:9']
const trade = ['--chain', '1', '--sell', 'WETH', '--buy', 'USDC']

describe.concurrent('deltaflow command line', () => {
  it('prints the version of package.json with --version and -V', async () => {
    for (const flag of ['--version', '-V']) {
      const { code, stdout } = await runDeltaflow([flag])
      expect(code).toBe(0)
      expect(stdout.trim()).toBe(version)
    }
  })

  it('exits 2 on a usage error: an unknown command or option, a missing required option', async () => {
    const unknownCommand = await runDeltaflow(['nope'])
    expect(unknownCommand.code).toBe(2)
    expect(unknownCommand.stderr).toContain("unknown command 'nope'")
    const unknownOption = await runDeltaflow(['status', '--bogus'])
    expect(unknownOption.code).toBe(2)
    expect(unknownOption.stderr).toContain("unknown option '--bogus'")
    const missing = await runDeltaflow(['quote', ...trade])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain("required option '--amount <n>' not specified")
  })

  it('checks --amount before it opens the venue: exit 2 naming the flag, not a connection error', async () => {
    for (const amount of ['-1', '0', 'lots']) {
      const { code, stderr } = await runDeltaflow(['quote', ...trade, '--amount', amount, ...deadVenue])
      expect(code, stderr).toBe(2)
      expect(stderr).toContain(`--amount expects a positive decimal number such as 1.5, received "${amount}"`)
      expect(stderr).not.toMatch(/ECONNREFUSED|fetch failed|did not answer/)
    }
  })

  it('says "file not found: PATH" for a missing config, with exit 2', async () => {
    const run = await runDeltaflow(['run', 'missing-bot.yaml'])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('error: file not found: missing-bot.yaml')
    expect(run.stderr).not.toContain('Correct the listed keys')
    const quote = await runDeltaflow(['quote', ...trade, '--amount', '1', '--config', 'missing-venue.yaml'])
    expect(quote.code).toBe(2)
    expect(quote.stderr).toContain('error: file not found: missing-venue.yaml')
  })

  it('says "file not found: PATH" for a missing quotes or candle file, without internal names or an undefined line', async () => {
    for (const missing of ['missing.jsonl.gz', 'missing.sqlite']) {
      const { code, stderr } = await runDeltaflow(['backtest', 'config/dca.yaml', '--quotes', missing])
      expect(code).toBe(2)
      expect(stderr).toContain(`error: file not found: ${missing}`)
      expect(stderr).not.toMatch(/undefined|packRecordedQuotes/)
    }
    const candles = await runDeltaflow(['quotes', 'from-candles', 'missing.csv', '--out', directory.path('never.jsonl')])
    expect(candles.code).toBe(2)
    expect(candles.stderr).toContain('error: file not found: missing.csv')
  })

  it('refuses a bad DELTAFLOW_LOG_LEVEL or --log-level, naming the levels, before anything starts', async () => {
    const levels = 'trace, debug, info, warn, error, fatal, silent'
    const fromEnv = await runDeltaflow(['backtest', 'config/dca.yaml', '--quotes', quotes], { DELTAFLOW_LOG_LEVEL: 'loud' })
    expect(fromEnv.code).toBe(2)
    expect(fromEnv.stderr).toContain(`error: DELTAFLOW_LOG_LEVEL: expected a log level (${levels}), received "loud"`)
    const maker = await runDeltaflow(['maker', 'config/maker.yaml', '--log-level', 'LOUD'])
    expect(maker.code).toBe(2)
    expect(maker.stderr).toContain(`error: --log-level: expected a log level (${levels}), received "LOUD"`)
    const run = await runDeltaflow(['run', 'config/demo.yaml', '--log-level', 'verbose'])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(`expected a log level (${levels}), received "verbose"`)
    for (const output of [fromEnv.stderr, maker.stderr, run.stderr]) expect(output).not.toMatch(/custom levels|default level/)
  })

  it("lists a strategy's own config errors in the same pass as the file's, in file order", async () => {
    const file = directory.path('two-problems.yaml')
    writeFileSync(
      file,
      [
        'mode: paper',
        'feeds: {}',
        'strategies:',
        '  - name: buy-weth',
        '    use: dca',
        '    config:',
        '      chainId: 1',
        '      srcToken: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"',
        '      destToken: "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2"',
        '      budget: lots',
        '      periodSeconds: 3600',
        '      orders: 2',
        '      slicesPerOrder: 2',
        '',
      ].join('\n'),
    )
    for (const command of [
      ['backtest', file, '--quotes', quotes],
      ['record', file, '--out', directory.path('never.jsonl')],
    ]) {
      const { code, stderr } = await runDeltaflow(command)
      expect(code, stderr).toBe(1)
      const problems = stderr.split('\n').filter((line) => line.startsWith('  - '))
      expect(problems).toEqual([
        `  - ${file}:2:1: unknown key "feeds" in (top level)`,
        expect.stringMatching(new RegExp(`^  - ${file}:10:15: strategies\\.0\\.config\\.budget: `)),
      ])
    }
  })
})
