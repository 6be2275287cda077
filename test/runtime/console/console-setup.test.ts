import { writeFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { parseConfigDocument } from '../../../src/config/load-config.js'
import { createLogger } from '../../../src/log/logger.js'
import { createActionRateLimit } from '../../../src/runtime/console/action-rate-limit.js'
import { createBearerCheck } from '../../../src/runtime/console/bearer-check.js'
import { resolveConsoleToken } from '../../../src/runtime/console/console-token.js'
import { isCrossOrigin } from '../../../src/runtime/console/cross-origin.js'
import { isLoopbackHost } from '../../../src/runtime/console/loopback-host.js'
import { openBot } from '../../../src/runtime/open-bot.js'
import { createTempDirectory } from '../../helpers/temp-directory.js'

const directory = createTempDirectory('deltaflow-console-setup-')
afterAll(() => directory.cleanup())

const opsOf = (ops: string, env: Record<string, string> = {}) =>
  parseConfigDocument(['mode: paper', `ops: ${ops}`].join('\n'), 'bot.yaml', { env }).config.ops

describe('the console token at startup', () => {
  it('refuses to start a bot whose console listens on a non-loopback host without a token, naming the settings', async () => {
    const text = ['mode: paper', 'ops: { port: 0, host: 0.0.0.0, console: true }', 'strategies: []'].join('\n')
    const opening = openBot({
      document: parseConfigDocument(text, 'bot.yaml', { env: {} }),
      live: false,
      logger: createLogger({ level: 'silent' }),
      env: {},
    })
    await expect(opening).rejects.toThrow(/ops\.host is 0\.0\.0\.0, not loopback, and the console has no token/)
    await expect(opening).rejects.toMatchObject({ name: 'BotSetupError', hint: expect.stringContaining('ops.auth.tokenEnv') })
  })

  it('reads the token from the default variable, a named one or a file, and names where it came from', () => {
    expect(resolveConsoleToken(opsOf('{ port: 0 }'), {})).toBeUndefined()
    expect(resolveConsoleToken(opsOf('{ port: 0, host: 0.0.0.0 }'), { DELTAFLOW_OPS_TOKEN: ' abc ' })).toEqual({
      value: 'abc',
      name: 'env DELTAFLOW_OPS_TOKEN',
    })
    expect(() => resolveConsoleToken(opsOf('{ port: 0, auth: { tokenEnv: MY_TOKEN } }'), {})).toThrow(
      /ops\.auth\.tokenEnv names MY_TOKEN, which is not set or empty/,
    )
    const file = directory.path('ops-token')
    writeFileSync(file, 'from-a-file\n')
    expect(resolveConsoleToken(opsOf(`{ port: 0, auth: { tokenFile: "${file}" } }`), { DELTAFLOW_OPS_TOKEN: 'ignored' })).toEqual({
      value: 'from-a-file',
      name: 'file ops-token',
    })
    expect(() => resolveConsoleToken(opsOf(`{ port: 0, auth: { tokenFile: "${directory.path('missing')}" } }`), {})).toThrow(
      /ops\.auth\.tokenFile: cannot read/,
    )
  })
})

describe('createBearerCheck', () => {
  it('takes the token only, as a bearer, whatever its length', () => {
    const check = createBearerCheck('s3cret-token')
    expect(check('Bearer s3cret-token')).toBe('valid')
    expect(check('bearer s3cret-token')).toBe('valid')
    expect(check('Bearer s3cret-tokeN')).toBe('wrong')
    expect(check('Bearer s3cret-token-and-more')).toBe('wrong')
    expect(check('Bearer s')).toBe('wrong')
    expect(check('Basic czNjcmV0')).toBe('missing')
    expect(check(undefined)).toBe('missing')
  })
})

describe('createActionRateLimit', () => {
  it('lets `perMinute` actions through in a minute and says how long to wait after', () => {
    let now = 1_000_000
    const take = createActionRateLimit(3, () => now)
    expect([take(), take(), take()]).toEqual([0, 0, 0])
    now += 15_000
    expect(take()).toBe(45)
    now += 45_000
    expect(take()).toBe(0)
  })
})

describe('isCrossOrigin', () => {
  it('tells a foreign web page from the same origin and from programs without browser headers', () => {
    expect(isCrossOrigin({ host: '127.0.0.1:9464' })).toBe(false)
    expect(isCrossOrigin({ host: '127.0.0.1:9464', origin: 'http://127.0.0.1:9464', 'sec-fetch-site': 'same-origin' })).toBe(false)
    expect(isCrossOrigin({ host: '127.0.0.1:9464', origin: 'http://evil.example' })).toBe(true)
    expect(isCrossOrigin({ host: '127.0.0.1:9464', 'sec-fetch-site': 'cross-site' })).toBe(true)
    expect(isCrossOrigin({ host: '127.0.0.1:9464', origin: 'null' })).toBe(true)
  })
})

describe('isLoopbackHost', () => {
  it('takes loopback names with or without a port, and refuses any other name, a rebinding one included', () => {
    for (const host of ['127.0.0.1:9464', '127.0.0.1', '127.1.2.3:80', 'localhost:9464', 'localhost', 'console.localhost', '[::1]:9464']) {
      expect(isLoopbackHost(host), host).toBe(true)
    }
    for (const host of [
      undefined,
      '',
      'evil.example',
      'evil.example:9464',
      '10.0.0.5:9464',
      '127.0.0.1.evil.example',
      'localhost.evil.example',
    ]) {
      expect(isLoopbackHost(host), String(host)).toBe(false)
    }
  })
})
