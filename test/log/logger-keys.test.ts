import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createLogger } from '../../src/log/logger.js'

/** A real logger writing JSON lines to a stream; the raw lines are kept (JSON.parse would hide a repeated key). */
function captureLines() {
  const lines: string[] = []
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean))
      done()
    },
  })
  return { logger: createLogger({ level: 'debug', destination }), lines }
}

/** The top-level keys of one JSON object line, in order and with repeats, read from the raw text. */
function topLevelKeys(line: string): string[] {
  const keys: string[] = []
  let depth = 0
  let index = 0
  while (index < line.length) {
    const char = line[index]
    if (char === '"') {
      let end = index + 1
      while (line[end] !== '"') end += line[end] === '\\' ? 2 : 1
      if (depth === 1 && line[end + 1] === ':') keys.push(JSON.parse(line.slice(index, end + 1)))
      index = end + 1
      continue
    }
    if (char === '{' || char === '[') depth += 1
    if (char === '}' || char === ']') depth -= 1
    index += 1
  }
  return keys
}

function repeatedKeys(line: string): string[] {
  const keys = topLevelKeys(line)
  return keys.filter((key, index) => keys.indexOf(key) !== index)
}

describe('createLogger child loggers', () => {
  it('writes each binding once: a child binding replaces its parent one, at any depth', () => {
    const { logger, lines } = captureLines()
    const bot = logger.child({ unit: 'bot', account: '0xabc' })
    const reconcile = bot.child({ unit: 'reconcile', chainId: 1 })
    const batch = reconcile.child({ chainId: 10, unit: 'cancel', note: 'a "quoted", {nested} value' })
    bot.info('from the bot')
    reconcile.warn('from reconcile')
    batch.error({ orders: 3 }, 'from a batch')
    reconcile.child({}, { level: 'info' }).info('from a child with options')

    expect(lines).toHaveLength(4)
    for (const line of lines) expect(repeatedKeys(line), line).toEqual([])
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(parsed.map((line) => line.unit)).toEqual(['bot', 'reconcile', 'cancel', 'reconcile'])
    expect(parsed.map((line) => line.chainId)).toEqual([undefined, 1, 10, 1])
    expect(parsed[2]).toMatchObject({ app: 'deltaflow', account: '0xabc', note: 'a "quoted", {nested} value', orders: 3 })
    // The parent keeps its own bindings.
    expect(bot.bindings()).toMatchObject({ unit: 'bot', account: '0xabc' })
  })

  it('keeps redaction and nested values of bindings exact when a key is replaced', () => {
    const { logger, lines } = captureLines()
    const big = 123456789012345678901234567890n
    const parent = logger.child({ unit: 'maker', auth: { apiKey: 'k-parent' }, amounts: { big, list: [1, '2,3'] } })
    parent.child({ unit: 'maker-server', auth: { apiKey: 'k-child' } }).info('bound')

    const [line = ''] = lines
    expect(repeatedKeys(line)).toEqual([])
    expect(line).not.toContain('k-parent')
    expect(line).not.toContain('k-child')
    expect(line).toContain('[redacted]')
    expect(line).toContain('"unit":"maker-server"')
    // A bigint binding is written as pino wrote it, digit for digit.
    expect(line).toContain('123456789012345678901234567890')
  })
})

describe('errors in log lines', () => {
  it('keeps only the scheme and host of every URL in an error, its viem fields and its cause', async () => {
    const { HttpRequestError } = await import('viem')
    const { logger, lines } = captureLines()
    const rpcUrl = 'https://eth.example.org/v2/key-4f2a9c?token=sk-77'
    const error = new HttpRequestError({ url: rpcUrl, status: 503, body: { method: 'eth_blockNumber' }, details: 'Service Unavailable' })
    logger.warn({ err: new Error(`reading failed at ${rpcUrl}`, { cause: error }) }, 'a chain read failed')
    logger.error({ err: error }, 'the RPC failed')
    expect(lines).toHaveLength(2)
    for (const line of lines) {
      expect(line).not.toContain('key-4f2a9c')
      expect(line).not.toContain('sk-77')
      expect(line).toContain('https://eth.example.org')
    }
    expect(JSON.parse(lines[1] ?? '{}').err).toMatchObject({ type: 'HttpRequestError', url: 'https://eth.example.org', status: 503 })
  })
})
