import { createHash } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { open } from 'node:fs/promises'
import type { Redis } from 'ioredis'
import { z } from 'zod'
import { BaseError } from '../../errors/base.js'

// The queue's side store: files kept on the queue's Redis by the SHA-256 of their bytes (quote sets, configs), so
// that a worker on another machine gets the optimiser's bytes, not a path it may not have. A file is stored in chunks
// (a Redis value is at most 512 MB, and smaller writes keep Redis responsive), its meta written last: a hash with a meta
// is complete. Each run that uses a file adds itself to the file's set of runs and removes itself at its end; the last
// one out deletes the file. Every key also expires a day after the last run that stored it, should no run end cleanly.

/** A file in the store: the hex SHA-256 of its bytes and their count. */
export const contentReferenceSchema = z.object({
  sha256: z.string().regex(/^[0-9a-f]{64}$/, { error: 'expected a hex SHA-256' }),
  bytes: z.number().int().nonnegative(),
})

export type ContentReference = z.infer<typeof contentReferenceSchema>

/** Bytes per stored chunk. */
export const contentChunkBytes = 4 * 1024 * 1024

/** Seconds a stored file outlives the last run that stored it when no run removes it. */
export const contentTtlSeconds = 24 * 60 * 60

const metaSchema = z.object({ bytes: z.coerce.number().int().nonnegative(), chunks: z.coerce.number().int().nonnegative() })

/**
 * A stored file cannot be read: missing (never stored, expired, or deleted by a run that ended), or its bytes do not
 * hash to the reference. Operational for the trial that needed it: it comes back failed, naming both hashes.
 */
export class ContentStoreError extends BaseError {
  override name = 'ContentStoreError' as const
}

// One hash tag per file: its keys sit in one slot of a Redis cluster, so the release script may touch them all.
const keysOf = (sha256: string) => {
  const base = `deltaflow:content:{${sha256}}`
  return { meta: `${base}:meta`, runs: `${base}:runs`, chunk: (index: number) => `${base}:chunk:${index}`, chunkPrefix: `${base}:chunk:` }
}

/** The SHA-256 and size of a file, read as a stream. */
export async function hashFile(file: string): Promise<ContentReference> {
  const hash = createHash('sha256')
  let bytes = 0
  for await (const chunk of createReadStream(file)) {
    hash.update(chunk as Buffer)
    bytes += (chunk as Buffer).length
  }
  return { sha256: hash.digest('hex'), bytes }
}

/**
 * Stores `file` under its reference for `run`, unless a complete copy is there already (then only the run is recorded
 * and the expiry renewed). The bytes are hashed again as they are sent: a file changed since it was hashed is refused.
 */
export async function putFileByHash(
  redis: Redis,
  { file, reference, run }: { file: string; reference: ContentReference; run: string },
): Promise<void> {
  const keys = keysOf(reference.sha256)
  // The run first: a release racing with this put either sees it (and keeps the file) or finished before (and the
  // meta check below stores the file again).
  await redis.multi().sadd(keys.runs, run).expire(keys.runs, contentTtlSeconds).exec()
  const stored = metaSchema.safeParse(await redis.hgetall(keys.meta))
  if (stored.success) {
    const renew = redis.multi().expire(keys.meta, contentTtlSeconds)
    for (let index = 0; index < stored.data.chunks; index++) renew.expire(keys.chunk(index), contentTtlSeconds)
    await renew.exec()
    return
  }
  const hash = createHash('sha256')
  const handle = await open(file, 'r')
  let chunks = 0
  let bytes = 0
  try {
    const buffer = Buffer.alloc(contentChunkBytes)
    for (;;) {
      let filled = 0
      while (filled < buffer.length) {
        const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, null)
        if (bytesRead === 0) break
        filled += bytesRead
      }
      if (filled === 0 && chunks > 0) break
      const chunk = buffer.subarray(0, filled)
      hash.update(chunk)
      await redis.set(keys.chunk(chunks), Buffer.from(chunk), 'EX', contentTtlSeconds)
      chunks++
      bytes += filled
      if (filled < buffer.length) break
    }
  } finally {
    await handle.close()
  }
  const sha256 = hash.digest('hex')
  if (sha256 !== reference.sha256 || bytes !== reference.bytes) {
    throw new ContentStoreError(`${file} changed while it was being stored for the workers`, {
      details: { expected: `sha256 ${reference.sha256}, ${reference.bytes} bytes`, received: `sha256 ${sha256}, ${bytes} bytes` },
      hint: 'leave the file alone while the optimisation runs, then run again',
      errorClass: 'operational',
    })
  }
  await redis.multi().hset(keys.meta, { bytes, chunks }).expire(keys.meta, contentTtlSeconds).exec()
}

// Atomic: the run leaves the file's set, and the file goes when no run is left.
const releaseScript = `
redis.call('SREM', KEYS[1], ARGV[1])
if redis.call('SCARD', KEYS[1]) > 0 then return 0 end
local chunks = tonumber(redis.call('HGET', KEYS[2], 'chunks') or '0')
redis.call('DEL', KEYS[1], KEYS[2])
for index = 0, chunks - 1 do redis.call('DEL', ARGV[2] .. index) end
return 1
`

/** `run` no longer needs the file; deleted when no other run does. */
export async function releaseFileByHash(redis: Redis, { sha256, run }: { sha256: string; run: string }): Promise<void> {
  const keys = keysOf(sha256)
  await redis.eval(releaseScript, 2, keys.runs, keys.meta, run, keys.chunkPrefix)
}

/**
 * The stored bytes of `reference`, chunk by chunk, as they are stored: the caller hashes them (checkedChunks does).
 * Throws ContentStoreError when the file is not (or no longer) stored.
 */
export async function* readFileByHash(redis: Redis, reference: ContentReference): AsyncGenerator<Buffer> {
  const keys = keysOf(reference.sha256)
  const meta = metaSchema.safeParse(await redis.hgetall(keys.meta))
  if (!meta.success) throw missing(reference)
  for (let index = 0; index < meta.data.chunks; index++) {
    const chunk = await redis.getBuffer(keys.chunk(index))
    if (chunk === null) throw missing(reference)
    yield chunk
  }
}

/**
 * The chunks of `reference` as they come, hashed on the way; at the end, throws ContentStoreError when they do not hash
 * to the reference (the caller then discards what it made of them). `where` names the store in that message.
 */
export async function* checkedChunks(redis: Redis, reference: ContentReference, where: string): AsyncGenerator<Buffer> {
  const hash = createHash('sha256')
  let bytes = 0
  for await (const chunk of readFileByHash(redis, reference)) {
    hash.update(chunk)
    bytes += chunk.length
    yield chunk
  }
  const sha256 = hash.digest('hex')
  if (sha256 !== reference.sha256 || bytes !== reference.bytes) {
    throw new ContentStoreError(`refused the file fetched from ${where}: its bytes do not hash to the trial's reference`, {
      details: { expected: `sha256 ${reference.sha256}, ${reference.bytes} bytes`, received: `sha256 ${sha256}, ${bytes} bytes` },
      hint: 'the stored copy is damaged or was overwritten: run the optimisation again (it stores the file afresh)',
      errorClass: 'operational',
    })
  }
}

function missing(reference: ContentReference): ContentStoreError {
  return new ContentStoreError(`the file with sha256 ${reference.sha256} is not in the queue's side store`, {
    details: { bytes: reference.bytes },
    hint: 'its run has ended (or its keys expired): the trial belongs to a run that is over, or Redis lost its data',
    errorClass: 'operational',
  })
}
