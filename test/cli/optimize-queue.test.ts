import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runDeltaflow } from '../helpers/deltaflow-cli.js'
import { type DeltaflowWorker, startDeltaflowWorker } from '../helpers/deltaflow-worker.js'
import { freePort, type RedisServer, startRedisServer } from '../helpers/redis-server.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

// `deltaflow optimize --queue` with `deltaflow worker` processes, end to end on a redis-server of the test's own: the
// ladder example (config/ladder-optimize.yaml) on the 4-hour sample of recorded ETH quotes, packed into a store.

const directory = createTempDirectory('deltaflow-optimize-queue-')
const example = 'config/ladder-optimize.yaml'
const password = 'queue-secret-7f3a'
let redis: RedisServer
let store = ''

beforeAll(async () => {
  // With a password, which no output may repeat.
  redis = await startRedisServer({ password })
  store = directory.path('sample.sqlite')
  const packed = await runDeltaflow(['quotes', 'pack', 'test/fixtures/quotes/ethusdt-sample.jsonl.gz', '--out', store])
  expect(packed.code, packed.stderr).toBe(0)
}, 60_000)

afterAll(async () => {
  await redis?.stop()
  directory.cleanup()
})

describe('deltaflow optimize --queue', () => {
  it('gives the bytes of a local run with 1 worker when 2 worker processes run the trials (one fetching the quotes by hash)', async () => {
    const fetching = directory.path('fetching-cache')
    const workers: DeltaflowWorker[] = await Promise.all([
      startDeltaflowWorker(redis.url, ['--cache', fetching, '--no-shared-paths']),
      // This one has its password from the environment, not the command line.
      startDeltaflowWorker(`redis://127.0.0.1:${redis.port}`, ['--cache', directory.path('shared-cache')], {
        DELTAFLOW_QUEUE_PASSWORD: password,
      }),
    ])
    try {
      const [local, queued] = await Promise.all([
        runDeltaflow(['optimize', example, '--quotes', store, '--json']),
        runDeltaflow(['optimize', example, '--quotes', store, '--json', '--queue', redis.url]),
      ])
      expect(local.code, local.stderr).toBe(0)
      expect(queued.code, queued.stderr).toBe(0)
      expect(queued.stdout).toBe(local.stdout)
      expect(JSON.parse(queued.stdout).trials).toBeGreaterThan(20)
      expect(queued.stderr).toContain(`trials go to the queue on redis://127.0.0.1:${redis.port};`)
      expect(queued.stderr).not.toContain(password)
      // The worker that may not use the optimiser's path ran trials on its own copy, named by the store's hash.
      const sha256 = createHash('sha256').update(readFileSync(store)).digest('hex')
      expect(existsSync(`${fetching}/${sha256}.sqlite`)).toBe(true)
    } finally {
      // SIGTERM: each stops taking trials and exits cleanly.
      expect(await Promise.all(workers.map((worker) => worker.stop()))).toEqual([0, 0])
    }
    expect(workers.every((worker) => worker.lines.some((line) => line.includes('worker stopped')))).toBe(true)
    expect(workers.flatMap((worker) => worker.lines).join('\n')).not.toContain(password)
  }, 90_000)
})

describe.concurrent('the queue’s command-line errors', () => {
  it('refuses a --queue that is not redis:// or rediss://, without repeating its password (exit 2)', async () => {
    const commands = [
      ['optimize', example, '--quotes', store, '--queue', `http://user:${password}@127.0.0.1:6379`],
      ['worker', '--queue', `127.0.0.1:${password}@6379`],
    ]
    for (const [at, { code, stderr }] of (await Promise.all(commands.map((args) => runDeltaflow(args)))).entries()) {
      expect(code, commands[at]?.join(' ')).toBe(2)
      expect(stderr).toContain('--queue: expected a redis:// or rediss:// URL such as redis://127.0.0.1:6379, received')
      expect(stderr).not.toContain(password)
    }
  })

  it('refuses a password both in the URL and in DELTAFLOW_QUEUE_PASSWORD (exit 2), printing neither', async () => {
    const { code, stderr } = await runDeltaflow(['worker', '--queue', redis.url], { DELTAFLOW_QUEUE_PASSWORD: `other-${password}` })
    expect(code).toBe(2)
    expect(stderr).toContain(
      `--queue: expected the Redis password in the URL or in DELTAFLOW_QUEUE_PASSWORD, received both (for redis://127.0.0.1:${redis.port})`,
    )
    expect(stderr).not.toContain(password)
  })

  it('refuses --queue with --workers above 1 (exit 2), saying to give the workers --concurrency', async () => {
    const { code, stderr } = await runDeltaflow(['optimize', example, '--quotes', store, '--workers', '2', '--queue', redis.url])
    expect(code).toBe(2)
    expect(stderr).toContain('--workers 2 runs trials on threads of this process, --queue on `deltaflow worker` processes')
    expect(stderr).toContain('--concurrency')
  })

  it('fails fast on a Redis nobody listens on, naming host:port and never the password (exit 1)', async () => {
    const port = await freePort()
    const url = `redis://user:${password}@127.0.0.1:${port}`
    const started = performance.now()
    const [optimizer, worker] = await Promise.all([
      runDeltaflow(['optimize', example, '--quotes', store, '--queue', url]),
      runDeltaflow(['worker', '--queue', url]),
    ])
    expect(performance.now() - started).toBeLessThan(15_000)
    for (const { code, stdout, stderr } of [optimizer, worker]) {
      expect(code).toBe(1)
      expect(stderr).toContain(`cannot use the queue's Redis at 127.0.0.1:${port}: connect ECONNREFUSED`)
      expect(`${stdout}${stderr}`).not.toContain(password)
    }
  })

  it('names refused credentials without printing them', async () => {
    const guarded = await startRedisServer({ password })
    try {
      const wrong = `redis://:not-${password}@127.0.0.1:${guarded.port}`
      const { code, stderr } = await runDeltaflow(['worker', '--queue', wrong])
      expect(code).toBe(1)
      expect(stderr).toContain(`cannot use the queue's Redis at 127.0.0.1:${guarded.port}: WRONGPASS`)
      expect(stderr).toContain('Redis refused the credentials')
      expect(stderr).not.toContain(password)
    } finally {
      await guarded.stop()
    }
  })
})
