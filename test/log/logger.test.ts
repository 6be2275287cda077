import { Writable } from 'node:stream'
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
})
