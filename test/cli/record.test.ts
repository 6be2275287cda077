import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { readRecordedQuotes } from '../../src/feed/read-recorded-quotes.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const run = promisify(execFile)
const directory = createTempDirectory('deltaflow-record-')
afterAll(() => directory.cleanup())

describe('deltaflow record', () => {
  it("records the quotes of a config's strategies from the embedded sandbox into a recording that reads back", async () => {
    const out = directory.path('demo.jsonl.gz')
    const { stdout } = await run(
      process.execPath,
      ['bin/deltaflow.js', 'record', 'config/demo.yaml', '--out', out, '--for', '4', '--json'],
      {
        cwd: root,
        env: { ...process.env, DELTAFLOW_LOG_LEVEL: 'warn' },
      },
    )
    const result = JSON.parse(stdout) as { file: string; quotes: number; requests: number }
    // The demo's DCA guard and OTC poster each subscribe to one Market quote.
    expect(result).toMatchObject({ file: out, requests: 2 })
    expect(result.quotes).toBeGreaterThanOrEqual(2)
    const recording = readRecordedQuotes(out)
    expect((await recording.header()).meta).toMatchObject({ venue: 'embedded sandbox', intervalMs: 1000 })
    const keys = new Set<string>()
    let count = 0
    for await (const { quote } of recording) {
      count += 1
      keys.add(quote.key)
      expect(quote.destAmount).toBeGreaterThan(0n)
    }
    expect(count).toBe(result.quotes)
    expect(keys.size).toBe(2)
  }, 60_000)
})
