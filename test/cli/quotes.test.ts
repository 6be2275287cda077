import { execFile } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { readRecordedQuotes } from '../../src/feed/read-recorded-quotes.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const run = promisify(execFile)
const directory = createTempDirectory('deltaflow-quotes-cli-')
afterAll(() => directory.cleanup())

/** The real CLI as a process; resolves with its exit code instead of rejecting on a failure. */
async function deltaflow(args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['bin/deltaflow.js', ...args], { cwd: root })
    return { stdout, stderr, code: 0 }
  } catch (error) {
    const failed = error as { stdout: string; stderr: string; code: number }
    return { stdout: failed.stdout, stderr: failed.stderr, code: failed.code }
  }
}

// The header and the first 12 candles (one hour) of the ETH 5m file.
const candleLines = readFileSync('/work/shared/data/ethusdt-5m-binance.csv', 'utf8').split('\n').slice(0, 13)

// Two processes at once: most of each is the CLI's start.
describe.concurrent('deltaflow quotes from-candles', () => {
  it('writes a quote set from a CSV slice, with crosschain quotes, that reads back', async () => {
    const csv = directory.path('eth-1h.csv')
    writeFileSync(csv, `${candleLines.join('\n')}\n`)
    const out = directory.path('eth-1h.jsonl.gz')
    const args = ['quotes', 'from-candles', csv, '--out', out, '--sizes', '1000', '--base-sizes', '0.5', '--bridge-chain', '8453']
    const { stdout, code } = await deltaflow([...args, '--bridge-sizes', '1000,100000', '--json'])
    expect(code).toBe(0)
    // 12 candles × 4 points × (2 sizes × 2 sides × 2 sources + 2 bridge sizes × 2 directions).
    expect(JSON.parse(stdout)).toEqual({
      file: out,
      quotes: 12 * 4 * 12,
      candles: 12,
      intervalMs: 300_000,
      from: '2026-02-22T22:55:00.000Z',
      to: '2026-02-22T23:53:45.000Z',
    })
    const recording = readRecordedQuotes(out)
    expect((await recording.header()).meta).toMatchObject({ candles: 'eth-1h.csv', bridgeChainId: 8453 })
    const keys = new Set<string>()
    let count = 0
    for await (const { quote } of recording) {
      count++
      keys.add(quote.key)
    }
    expect(count).toBe(12 * 4 * 12)
    expect([...keys].filter((key) => key.startsWith('delta:1:8453:') || key.startsWith('delta:8453:1:'))).toHaveLength(4)
    expect(keys.size).toBe(12)
  }, 30_000)

  it('reads a Binance dump without a header and with microsecond times (spot dumps since 2025)', async () => {
    const csv = directory.path('ETHUSDT-5m-dump.csv')
    // The same hour as Binance's own dumps write it: no header, open_time and close_time in microseconds.
    const rows = candleLines.slice(1).map((line) => {
      const [openTime = '', open, high, low, close, volume, closeTime = '', ...rest] = line.split(',')
      return [`${openTime}000`, open, high, low, close, volume, `${closeTime}999`, ...rest].join(',')
    })
    writeFileSync(csv, `${rows.join('\n')}\n`)
    const out = directory.path('eth-dump.jsonl')
    const { stdout, stderr, code } = await deltaflow(['quotes', 'from-candles', csv, '--out', out, '--sizes', '1000', '--json'])
    expect(code, stderr).toBe(0)
    expect(JSON.parse(stdout)).toMatchObject({
      candles: 12,
      intervalMs: 300_000,
      from: '2026-02-22T22:55:00.000Z',
      to: '2026-02-22T23:53:45.000Z',
    })
  }, 30_000)

  it('exits non-zero naming file:line of a bad candle, and leaves no file', async () => {
    const csv = directory.path('bad.csv')
    const rows = [...candleLines.slice(0, 4)]
    // Line 4: a high below the low.
    rows[3] = '1771801500000,1959.0,1950.0,1955.0,1957.0,1,1771801799999,0,0,,,'
    writeFileSync(csv, `${rows.join('\n')}\n`)
    const out = directory.path('bad.jsonl')
    const { stderr, code } = await deltaflow(['quotes', 'from-candles', csv, '--out', out])
    expect(code).not.toBe(0)
    expect(stderr).toContain(`${csv}:4: expected low ≤ open, close ≤ high`)
    expect(() => readFileSync(out)).toThrow()
  }, 30_000)
})
