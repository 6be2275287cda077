import { execFile } from 'node:child_process'
import { Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { createLogger } from '../../src/log/logger.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'

function captureLogger() {
  const lines: string[] = []
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk))
      done()
    },
  })
  return { logger: createLogger({ level: 'debug', destination }), output: () => lines.join('') }
}

describe('createLogger', () => {
  it('never writes private keys, secrets or API keys, at any depth', () => {
    const { logger, output } = captureLogger()
    const privateKey = developmentAccounts[0]?.privateKey ?? ''
    logger.info({ privateKey, wallet: { privateKey }, request: { headers: { 'x-api-key': 'api-key-123' } } }, 'signing')
    logger.child({ strategy: 'dca' }).warn({ maker: { auth: { secret: 'hmac-secret-456', apiKey: 'k-789' } } }, 'maker')
    const text = output()
    expect(text).toContain('signing')
    expect(text).toContain('[redacted]')
    for (const secret of [privateKey, privateKey.slice(2), 'api-key-123', 'hmac-secret-456', 'k-789']) expect(text).not.toContain(secret)
  })

  it('prints readable lines on stderr for a terminal (pretty), secrets redacted as in JSON lines', async () => {
    // pretty writes to file descriptor 2 itself: a child process's stderr is where it can be read.
    const privateKey = developmentAccounts[0]?.privateKey ?? ''
    const script = [
      "import { createLogger } from './src/log/logger.ts'",
      "const logger = createLogger({ level: 'info', pretty: true }).child({ strategy: 'dca' })",
      `logger.info({ wallet: { privateKey: ${JSON.stringify(privateKey)} } }, 'order placed')`,
      "logger.debug('below the level')",
    ].join('\n')
    const { stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    })
    const lines = stderr.trim().split('\n')
    expect(lines[0]).toMatch(/^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: order placed$/)
    expect(stderr).toContain('strategy: "dca"')
    expect(stderr).toContain('[redacted]')
    expect(stderr).not.toContain(privateKey.slice(2))
    expect(stderr).not.toContain('below the level')
    expect(stderr).not.toMatch(/^\{/m)
  })
})
