import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createQueueTrialInputs } from '../../../src/backtest/optimize/queue-trial-inputs.js'
import {
  ContentStoreError,
  contentChunkBytes,
  hashFile,
  putFileByHash,
  releaseFileByHash,
} from '../../../src/backtest/optimize/redis-content-store.js'
import type { TrialJob } from '../../../src/backtest/optimize/trial-job.js'
import { type RedisServer, startRedisServer } from '../../helpers/redis-server.js'
import { createTempDirectory } from '../../helpers/temp-directory.js'

// The queue's side store on a redis-server of the test's own: files by SHA-256, in chunks, fetched by a worker into
// its cache and checked against the hash its trial names.

const directory = createTempDirectory('deltaflow-content-store-')
let server: RedisServer
let redis: Redis

beforeAll(async () => {
  server = await startRedisServer()
  redis = new Redis({ host: '127.0.0.1', port: server.port })
})

afterAll(async () => {
  redis?.disconnect()
  await server?.stop()
  directory.cleanup()
})

/** A file of `bytes` pseudo-random bytes (several chunks when large). */
function writeFile(name: string, bytes: number, seed: number): string {
  const file = directory.path(name)
  const buffer = Buffer.alloc(bytes)
  let state = seed
  for (let index = 0; index < bytes; index++) {
    state = (state * 1_103_515_245 + 12_345) >>> 0
    buffer[index] = state >>> 24
  }
  writeFileSync(file, buffer)
  return file
}

/** A job naming `quotes` (and a config) by content; the optimiser's path of the quotes is `sharedPath`. */
async function jobFor(quotes: string, sharedPath: string): Promise<TrialJob> {
  const config = directory.path('config.yaml')
  writeFileSync(config, 'mode: paper\n# ünïcode survives\n')
  const [quoteReference, configReference] = await Promise.all([hashFile(quotes), hashFile(config)])
  await putFileByHash(redis, { file: quotes, reference: quoteReference, run: 'run-a' })
  await putFileByHash(redis, { file: config, reference: configReference, run: 'run-a' })
  return {
    version: '0',
    run: 'run-a',
    spec: { id: 't', configFile: config, overrides: [], quotes: sharedPath, from: 0, to: 1, seed: 1 },
    config: configReference,
    quotes: { ...quoteReference, suffix: '.sqlite' },
  }
}

describe('the side store and a worker’s copies', () => {
  it('gives a worker the bytes by hash, in its cache, across chunks; the config text in memory', async () => {
    const quotes = writeFile('large.sqlite', 2 * contentChunkBytes + 12_345, 1)
    const job = await jobFor(quotes, directory.path('not-on-this-machine.sqlite'))
    const cache = directory.path('cache-a')
    const inputs = createQueueTrialInputs({ redis, where: 'redis://127.0.0.1', cacheDirectory: cache, sharedPaths: true })
    const local = await inputs.quoteFile(job)
    expect(local).toBe(`${cache}/${job.quotes.sha256}.sqlite`)
    expect(readFileSync(local).equals(readFileSync(quotes))).toBe(true)
    expect(readdirSync(cache)).toEqual([`${job.quotes.sha256}.sqlite`])
    expect(await inputs.configText(job)).toBe('mode: paper\n# ünïcode survives\n')
  })

  it('uses the optimiser’s path when it holds the same bytes here, unless told not to', async () => {
    const quotes = writeFile('shared.sqlite', 1000, 2)
    const job = await jobFor(quotes, quotes)
    const shared = createQueueTrialInputs({
      redis,
      where: 'redis://127.0.0.1',
      cacheDirectory: directory.path('cache-b'),
      sharedPaths: true,
    })
    expect(await shared.quoteFile(job)).toBe(quotes)
    const fetching = createQueueTrialInputs({
      redis,
      where: 'redis://127.0.0.1',
      cacheDirectory: directory.path('cache-c'),
      sharedPaths: false,
    })
    expect(await fetching.quoteFile(job)).toBe(directory.path(`cache-c/${job.quotes.sha256}.sqlite`))
  })

  it('refuses stored bytes that do not hash to the trial’s reference, keeping nothing of them', async () => {
    const quotes = writeFile('damaged.sqlite', contentChunkBytes + 10, 3)
    const job = await jobFor(quotes, directory.path('elsewhere.sqlite'))
    await redis.set(`deltaflow:content:{${job.quotes.sha256}}:chunk:1`, Buffer.from('corrupted!'))
    const cache = directory.path('cache-d')
    const inputs = createQueueTrialInputs({ redis, where: 'redis://127.0.0.1:1234', cacheDirectory: cache, sharedPaths: false })
    const refused = await inputs.quoteFile(job).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(ContentStoreError)
    expect((refused as Error).message).toMatch(
      new RegExp(
        `refused the file fetched from redis://127\\.0\\.0\\.1:1234: .*\\n  expected: sha256 ${job.quotes.sha256}, ${job.quotes.bytes} bytes\\n  received: sha256 [0-9a-f]{64}, ${job.quotes.bytes} bytes`,
      ),
    )
    expect(readdirSync(cache)).toEqual([])
  })

  it('keeps a file while any run uses it and deletes every key of it when the last one leaves', async () => {
    const quotes = writeFile('two-runs.sqlite', contentChunkBytes + 1, 4)
    const reference = await hashFile(quotes)
    await putFileByHash(redis, { file: quotes, reference, run: 'run-1' })
    await putFileByHash(redis, { file: quotes, reference, run: 'run-2' })
    const keys = () => redis.keys(`deltaflow:content:{${reference.sha256}}:*`)
    expect((await keys()).sort()).toEqual(
      ['chunk:0', 'chunk:1', 'meta', 'runs'].map((key) => `deltaflow:content:{${reference.sha256}}:${key}`),
    )
    expect(await redis.ttl(`deltaflow:content:{${reference.sha256}}:chunk:1`)).toBeGreaterThan(3600)
    await releaseFileByHash(redis, { sha256: reference.sha256, run: 'run-1' })
    expect(await keys()).toHaveLength(4)
    await releaseFileByHash(redis, { sha256: reference.sha256, run: 'run-2' })
    expect(await keys()).toEqual([])
    expect(existsSync(quotes)).toBe(true)
  })
})
