import { randomBytes } from 'node:crypto'
import { createWriteStream } from 'node:fs'
import { mkdir, rename, rm, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import type { Redis } from 'ioredis'
import { keptPromise } from '../../domain/kept-promise.js'
import { checkedChunks, hashFile } from './redis-content-store.js'
import type { TrialJob } from './trial-job.js'

// A queue worker's copies of what its trials need, found by content: the quote set as a file in the worker's cache
// directory (`<sha256><suffix>`, fetched from the side store once and then reused by every trial and run that names
// that hash) or, when the worker sees the optimiser's own path holding the same bytes (a shared disk, or the same
// machine), that file; the config's text in memory.

export type QueueTrialInputsParameters = {
  redis: Redis
  /** The queue's address without credentials, for messages. */
  where: string
  cacheDirectory: string
  /** Use the optimiser's path when the file there has the trial's hash (else always the cache). */
  sharedPaths: boolean
}

export type QueueTrialInputs = {
  /** A local path of the job's quote set, its bytes checked against the job's hash. */
  quoteFile(job: TrialJob): Promise<string>
  /** The job's config text, its bytes checked against the job's hash. */
  configText(job: TrialJob): Promise<string>
}

/** Config texts kept in memory (a worker serves one run at a time, mostly). */
const configsKept = 16

export function createQueueTrialInputs({ redis, where, cacheDirectory, sharedPaths }: QueueTrialInputsParameters): QueueTrialInputs {
  /** Quote files by hash, once checked: each is hashed or fetched once per process. */
  const quoteFiles = new Map<string, Promise<string>>()
  const configs = new Map<string, Promise<string>>()

  async function findQuoteFile(job: TrialJob): Promise<string> {
    const { sha256, bytes, suffix } = job.quotes
    if (sharedPaths && (await sizeOf(job.spec.quotes)) === bytes && (await hashFile(job.spec.quotes)).sha256 === sha256) {
      return job.spec.quotes
    }
    const cached = join(cacheDirectory, `${sha256}${suffix}`)
    if ((await sizeOf(cached)) === bytes) {
      if ((await hashFile(cached)).sha256 === sha256) return cached
      await rm(cached, { force: true })
    }
    await mkdir(cacheDirectory, { recursive: true })
    // Written beside its final name and renamed once whole and checked: another worker process sharing the cache
    // directory never opens a partial file (both write the same bytes; the last rename wins).
    const partial = join(cacheDirectory, `${sha256}.${process.pid}-${randomBytes(4).toString('hex')}.partial`)
    try {
      await pipeline(checkedChunks(redis, job.quotes, where), createWriteStream(partial))
      await rename(partial, cached)
    } finally {
      await rm(partial, { force: true })
    }
    return cached
  }

  async function fetchConfigText(job: TrialJob): Promise<string> {
    const chunks: Buffer[] = []
    for await (const chunk of checkedChunks(redis, job.config, where)) chunks.push(chunk)
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks))
  }

  return {
    quoteFile: (job) => keptPromise(quoteFiles, job.quotes.sha256, () => findQuoteFile(job)),
    configText: (job) => {
      const text = keptPromise(configs, job.config.sha256, () => fetchConfigText(job))
      if (configs.size > configsKept) configs.delete(configs.keys().next().value as string)
      return text
    },
  }
}

async function sizeOf(file: string): Promise<number | undefined> {
  try {
    const stats = await stat(file)
    return stats.isFile() ? stats.size : undefined
  } catch {
    return undefined
  }
}
