import { describe, expect, it } from 'vitest'
import { ConfigError, parseConfig } from '../../src/config/load-config.js'

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
  it('fills every default from an empty file: the embedded sandbox, partner anon', () => {
    const config = parseConfig('', 'bot.yaml', { env: {} })
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
