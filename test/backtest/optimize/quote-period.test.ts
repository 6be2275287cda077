import { readFileSync, writeFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { quotePeriodOf } from '../../../src/backtest/optimize/optimize.js'
import { openQuoteReplay } from '../../../src/backtest/quote-blocks.js'
import { packRecordedQuotes } from '../../../src/backtest/quote-store.js'
import { createTempDirectory } from '../../helpers/temp-directory.js'

// The walk-forward's period: a store answers its last quote's time from its last block's row, a recording is read to
// its end; both give the same period, with and without --from / --to.

const directory = createTempDirectory('deltaflow-quote-period-')
let recording: string
let store: string
let times: number[]

beforeAll(async () => {
  // The header and the first 3,000 quotes of the recorded ETH set (a recording is read line by line: enough to span
  // several store blocks without reading 41,472 quotes three times).
  recording = directory.path('eth.jsonl')
  const lines = gunzipSync(readFileSync('test/fixtures/quotes/ethusdt-strategies.jsonl.gz')).toString('utf8').split('\n')
  writeFileSync(recording, `${lines.slice(0, 3_001).join('\n')}\n`)
  store = directory.path('eth.sqlite')
  // Small blocks: the store's period spans many of them.
  await packRecordedQuotes({ input: recording, output: store, blockSize: 64 })
  times = []
  for await (const block of (await openQuoteReplay(recording)).blocks())
    for (let at = 0; at < block.length; at++) times.push(block.time(at))
}, 60_000)
afterAll(() => directory.cleanup())

describe('quotePeriodOf', () => {
  it('is [first quote, last quote + 1) of the whole set, the same from a store (which knows its last time) and a recording', async () => {
    const first = times[0] as number
    const last = times.at(-1) as number
    expect((await openQuoteReplay(store)).lastTime).toBe(last)
    expect(await quotePeriodOf(store, {})).toEqual({ from: first, to: last + 1 })
    expect(await quotePeriodOf(recording, {})).toEqual({ from: first, to: last + 1 })
  })

  it('keeps a given bound and finds the other among the quotes in range', async () => {
    const middle = times[Math.floor(times.length / 2)] as number
    const last = times.at(-1) as number
    // A recording has no index: the one case that reads it to its end is enough to compare.
    expect(await quotePeriodOf(recording, { from: middle + 1 })).toEqual({ from: middle + 1, to: last + 1 })
    expect(await quotePeriodOf(store, { from: middle + 1 })).toEqual({ from: middle + 1, to: last + 1 })
    expect(await quotePeriodOf(store, { to: middle })).toEqual({ from: times[0], to: middle })
    expect(await quotePeriodOf(store, { from: middle + 1, to: middle + 86_400_000 })).toEqual({ from: middle + 1, to: middle + 86_400_000 })
  })

  it('refuses a range with no quote in it', async () => {
    const last = times.at(-1) as number
    await expect(quotePeriodOf(store, { from: last + 1, to: last + 1_000 })).rejects.toThrow(`${store} holds no quotes in the range`)
  })
})
