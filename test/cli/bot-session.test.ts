import { existsSync, readdirSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { ConfigError, loadConfigDocument, parseConfigDocument } from '../../src/config/load-config.js'
import { createLogger } from '../../src/log/logger.js'
import { loadMakerStrategyOf, requireMakerConfig } from '../../src/maker/runtime/maker-setup.js'
import { BotSetupError } from '../../src/runtime/bot-errors.js'
import { loadStrategyDefinitions } from '../../src/runtime/load-strategies.js'
import { openBot } from '../../src/runtime/open-bot.js'
import { startSandbox } from '../../src/sandbox/start-sandbox.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

const configDirectory = fileURLToPath(new URL('../../config/', import.meta.url))
const directory = createTempDirectory('deltaflow-bot-session-')
afterAll(() => directory.cleanup())
const logger = createLogger({ level: 'silent' })

const usdc = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
const weth = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'

/** A config file in the temp directory (strategies resolve from the repository's strategies/ as built-ins). */
function documentOf(lines: string[], env: Record<string, string> = {}) {
  const file = directory.path(`bot-${Math.random().toString(36).slice(2)}.yaml`)
  writeFileSync(file, `${lines.join('\n')}\n`)
  return loadConfigDocument(file, { env })
}

async function problemsOf(lines: string[]): Promise<string[]> {
  const document = documentOf(lines)
  try {
    await loadStrategyDefinitions(document)
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((problem) => problem.replace(`${document.file}:`, 'bot.yaml:'))
    throw error
  }
  throw new Error('the strategies were accepted')
}

describe('loadStrategyDefinitions', () => {
  it('names a strategy config value of the wrong type with its YAML path and line', async () => {
    const problems = await problemsOf([
      'strategies:',
      '  - name: buy-weth',
      '    use: dca',
      '    config:',
      '      chainId: 1',
      `      srcToken: "${usdc}"`,
      `      destToken: "${weth}"`,
      '      budget: lots',
      '      periodSeconds: 3600',
      '      orders: 2',
      '      slicesPerOrder: 2',
    ])
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(/^bot\.yaml:8:15: strategies\.0\.config\.budget: /)
  })

  it('names an unknown key of a strategy config and a strategy that does not exist, each with its line', async () => {
    const problems = await problemsOf([
      'strategies:',
      '  - name: ladder',
      '    use: no-such-strategy',
      '  - name: buy-weth',
      '    use: dca',
      '    config:',
      '      chainId: 1',
      `      srcToken: "${usdc}"`,
      `      destToken: "${weth}"`,
      '      budget: "1000000"',
      '      periodSeconds: 3600',
      '      orders: 2',
      '      slicesPerOrder: 2',
      '      slice: 3',
    ])
    expect(problems[0]).toMatch(/^bot\.yaml:3:10: strategies\.0\.use: .*no-such-strategy/)
    expect(problems[1]).toBe('bot.yaml:14:7: unknown key "slice" in strategies.1.config')
  })

  it('skips a disabled strategy without loading it', async () => {
    const document = documentOf(['strategies:', '  - name: off', '    use: no-such-strategy', '    enabled: false'])
    await expect(loadStrategyDefinitions(document)).resolves.toEqual([])
  })

  it.each(readdirSync(configDirectory).filter((file) => file.endsWith('.yaml')))(
    'accepts the example config/%s with every strategy config valid',
    async (file) => {
      const document = loadConfigDocument(`${configDirectory}${file}`, { env: {} })
      const loaded = await loadStrategyDefinitions(document)
      // A maker config runs its maker strategy (section maker), not bot strategies.
      if (document.config.maker !== undefined) {
        const maker = await loadMakerStrategyOf(document, requireMakerConfig(document))
        expect(maker.name).toBe(document.config.maker.strategy.use)
      } else expect(loaded.length).toBeGreaterThan(0)
      expect(loaded.map(({ entry }) => entry.name)).toEqual(
        document.config.strategies.filter((entry) => entry.enabled).map((entry) => entry.name),
      )
    },
  )
})

describe('openBot', () => {
  const open = (text: string, live = false) =>
    openBot({ document: parseConfigDocument(text, 'bot.yaml', { env: {} }), live, logger, env: {}, startEmbedded: startSandbox })

  it('refuses mode live without --live, and --live without mode live', async () => {
    await expect(open('mode: live\nvenue: { url: "https://api.example.test" }\n')).rejects.toThrow(
      'The config says `mode: live`, but --live was not given',
    )
    await expect(open('mode: paper\n', true)).rejects.toThrow('--live was given, but the config says mode: paper')
    await expect(open('mode: live\n', true)).rejects.toBeInstanceOf(BotSetupError)
  })

  it('refuses paper mode on a venue that is not a sandbox on loopback', async () => {
    await expect(open('mode: paper\nvenue: { url: "https://api.example.test" }\n')).rejects.toThrow(
      'mode: paper trades only on a sandbox, but venue.url is https://api.example.test',
    )
  })

  it('runs a dry run on the embedded sandbox: intents logged, nothing signed, /metrics and /health served', async () => {
    const session = await open(
      [
        'mode: dry-run',
        'sandbox: { chains: [1], market: still }',
        'feed: { intervalMs: 200 }',
        'reconcile: { intervalMs: 300 }',
        'ops: { port: 0 }',
        'strategies:',
        '  - name: take-profit',
        '    use: example',
        `    config: { chainId: 1, srcToken: "${usdc}", destToken: "${weth}", amount: "1000000000", minDestAmount: "1" }`,
      ].join('\n'),
    )
    try {
      await session.bot.start()
      const deadline = Date.now() + 20_000
      while (session.bot.stats().dryRunIntents === 0 || session.bot.stats().reconcilePasses === 0) {
        if (Date.now() > deadline) throw new Error('no dry-run intent within 20 s')
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      const metrics = await (await fetch(`${session.ops?.url}/metrics`)).text()
      expect(metrics).toMatch(/^deltaflow_quotes_total\{source="market"\} [1-9]/m)
      expect(metrics).toContain('deltaflow_quote_latency_seconds_bucket')
      expect(metrics).toContain('deltaflow_reconcile_seconds_count')
      const health = await fetch(`${session.ops?.url}/health`)
      expect(health.status).toBe(200)
      expect(await health.json()).toMatchObject({ status: 'ok', running: true })
      await session.bot.stop()
      const unhealthy = await fetch(`${session.ops?.url}/health`)
      expect(unhealthy.status).toBe(503)
      expect(session.journal.listOrders()).toEqual([])
      expect(session.journal.intentsOf('take-profit')).toEqual([])
      expect(session.bot.stats().executions).toEqual({ accepted: 0, refused: 0, failed: 0, done: 0 })
    } finally {
      await session.close()
    }
    // The embedded sandbox's throwaway journal is gone with it.
    expect(existsSync(session.journal.file)).toBe(false)
  }, 40_000)
})
