import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { FileNotFoundError } from '../../src/config/file-not-found.js'
import { ConfigError, loadConfig, parseConfig } from '../../src/config/load-config.js'

const problemsOf = (text: string, env: Record<string, string> = {}) => {
  try {
    parseConfig(text, 'bot.yaml', { env })
  } catch (error) {
    if (error instanceof ConfigError) return error.problems
    throw error
  }
  throw new Error('the configuration was accepted')
}

describe('parseConfig', () => {
  it('fills every default from an empty mapping: the embedded sandbox, partner anon', () => {
    const config = parseConfig('{}', 'bot.yaml', { env: {} })
    expect(config.venue).toMatchObject({ url: 'sandbox', partner: 'anon', retries: 3 })
    expect(config.wallet.privateKeyEnv).toBe('DELTAFLOW_PRIVATE_KEY')
    expect(config.chains).toEqual({})
  })

  it('reads chains, venue and wallet, replacing $-braced names from the environment', () => {
    const config = parseConfig(
      [
        'venue:',
        '  url: https://api.example.test',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the configuration's own interpolation syntax
        '  apiKey: ${API_KEY}',
        'chains:',
        '  "8453":',
        '    rpcUrls: [http://127.0.0.1:8545]',
      ].join('\n'),
      'bot.yaml',
      { env: { API_KEY: 'k-1' } },
    )
    expect(config.venue).toMatchObject({ url: 'https://api.example.test', apiKey: 'k-1' })
    expect(config.chains['8453']?.rpcUrls).toEqual(['http://127.0.0.1:8545'])
  })

  it('names an unknown key with its line and column', () => {
    expect(problemsOf('venue:\n  url: sandbox\n  partnr: me\n')).toEqual(['bot.yaml:3:3: unknown key "partnr" in venue'])
  })

  it('names a value of the wrong type with its path and line', () => {
    const [problem] = problemsOf('venue:\n  retries: many\n')
    expect(problem).toMatch(/^bot\.yaml:2:12: venue\.retries: /)
    expect(problem).toMatch(/expected number/i)
  })

  it('names a missing environment variable with the key that uses it', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the configuration's own interpolation syntax
    expect(problemsOf('venue:\n  apiKey: ${MISSING_KEY}\n')).toEqual([
      'bot.yaml:2:11 (venue.apiKey): environment variable MISSING_KEY is not set',
    ])
  })

  it('reports a missing variable together with the other problems of the file, in file order, the emptied key once', () => {
    const problems = problemsOf(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the configuration's own interpolation syntax
      ['venue:', '  retries: many', '  apiKey: ${MISSING_KEY}', 'feeds: {}'].join('\n'),
    )
    expect(problems).toHaveLength(3)
    expect(problems[0]).toMatch(/^bot\.yaml:2:12: venue\.retries: /)
    expect(problems[1]).toBe('bot.yaml:3:11 (venue.apiKey): environment variable MISSING_KEY is not set')
    expect(problems[2]).toBe('bot.yaml:4:1: unknown key "feeds" in (top level)')
  })

  it('says "file not found" for a missing file, not that its keys are wrong', () => {
    const directory = mkdtempSync(join(tmpdir(), 'deltaflow-config-'))
    try {
      const missing = join(directory, 'bot.yaml')
      const error = (() => {
        try {
          loadConfig(missing)
        } catch (caught) {
          return caught
        }
        throw new Error('the missing file was read')
      })()
      expect(error).toBeInstanceOf(FileNotFoundError)
      expect((error as FileNotFoundError).shortMessage).toBe(`file not found: ${missing}`)
      expect((error as FileNotFoundError).message).not.toContain('Correct the listed keys')
      expect(() => loadConfig(directory)).toThrow(`not a file: ${directory} is a directory`)
    } finally {
      rmSync(directory, { recursive: true, force: true })
    }
  })

  it('reports YAML syntax errors with their position', () => {
    const [problem] = problemsOf('venue: [unclosed\n')
    expect(problem).toMatch(/^bot\.yaml:\d+:\d+: /)
  })

  it('refuses a chain key that is not a chain id', () => {
    const [problem] = problemsOf('chains:\n  base:\n    rpcUrls: [http://127.0.0.1:1]\n')
    expect(problem).toMatch(/chains/)
    expect(problem).toMatch(/^bot\.yaml:3:5: chains\.base: invalid key: expected a chain id such as 1 or 8453$/)
  })
})

describe('parseConfig bot sections', () => {
  const usdc = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'

  it('reads the mode, risk limits with a kill switch, executor settings and strategies', () => {
    const config = parseConfig(
      [
        'mode: dry-run',
        'risk:',
        '  maxSlippageBps: 100',
        '  tokens:',
        `    "1:${usdc}": { dailyBudget: "5000000000" }`,
        '  killSwitch: { file: /tmp/stop-deltaflow, cancelOpenOrders: true }',
        'executor: { preferMode: market, approvalPolicy: unlimited }',
        'strategies:',
        '  - name: dca-weth',
        '    use: dca',
        '    config: { total: "1000000000" }',
      ].join('\n'),
      'bot.yaml',
      { env: {} },
    )
    expect(config.mode).toBe('dry-run')
    expect(config.risk.tokens[`1:${usdc.toLowerCase()}`]?.dailyBudget).toBe(5_000_000_000n)
    expect(config.risk.killSwitch).toEqual({ file: '/tmp/stop-deltaflow', cancelOpenOrders: true })
    expect(config.executor).toMatchObject({ preferMode: 'market', preferMarginBps: 5, approvalPolicy: 'unlimited' })
    expect(config.strategies).toEqual([{ name: 'dca-weth', use: 'dca', enabled: true, config: { total: '1000000000' } }])
    expect(config.feed.intervalMs).toBe(1_000)
  })

  it('names a budget that is not a raw amount with its path and line', () => {
    const [problem] = problemsOf(['risk:', '  tokens:', `    "1:${usdc}":`, '      dailyBudget: 12.5'].join('\n'))
    expect(problem).toMatch(new RegExp(`^bot\\.yaml:4:20: risk\\.tokens\\.1:${usdc}\\.dailyBudget: expected a raw amount`))
  })

  it('names an unknown key of a strategy entry and a repeated strategy name', () => {
    const problems = problemsOf(['strategies:', '  - { name: a, use: dca }', '  - name: a', '    use: ladder', '    confg: {}'].join('\n'))
    expect(problems).toContain('bot.yaml:5:5: unknown key "confg" in strategies.1')
    expect(problems.some((problem) => /strategies\.1\.name: expected a unique strategy name, received "a" twice/.test(problem))).toBe(true)
  })

  it('refuses a mode it does not know', () => {
    const [problem] = problemsOf('mode: yolo\n')
    expect(problem).toMatch(/^bot\.yaml:1:7: mode: /)
  })
})
