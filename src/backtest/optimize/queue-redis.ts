import { Redis } from 'ioredis'
import { BaseError } from '../../errors/base.js'
import { withoutUrlSecrets } from '../../errors/url-secrets.js'
import type { QueueAddress } from './queue-url.js'

// Connections to the queue's Redis: one check at the start that fails fast (the optimiser and a worker refuse to start
// against a Redis they cannot reach, naming host:port), then clients that ride out a restart of Redis.

/**
 * The queue's Redis cannot be used: unreachable at the start (refused, unknown host, no answer within the connect
 * timeout, credentials refused), or gone for longer than the optimiser waits during a run. Operational: nothing is
 * retried beyond that; start Redis or fix `--queue`, then run again. Messages name host:port, never the credentials.
 */
export class QueueConnectionError extends BaseError {
  override name = 'QueueConnectionError' as const
}

export type OpenQueueRedisParameters = {
  address: QueueAddress
  /** How long the first connection may take before the start fails (ms). */
  connectTimeoutMs?: number
  /** Once connected: how long without Redis before the client gives up and ends (ms); undefined: it never gives up. */
  giveUpAfterMs?: number | undefined
}

/** Delay between reconnection attempts after the first connection (ms). */
const reconnectDelayMs = 500

/**
 * A connected client of the queue's Redis (PING answered); throws QueueConnectionError at once when it cannot connect.
 * Later, a lost connection is retried every 500 ms, for `giveUpAfterMs` at most (then the client emits 'end').
 */
export async function openQueueRedis({ address, connectTimeoutMs = 5_000, giveUpAfterMs }: OpenQueueRedisParameters): Promise<Redis> {
  let connected = false
  let lastError: unknown
  const client = new Redis({
    ...address.redis,
    lazyConnect: true,
    connectTimeout: connectTimeoutMs,
    // The side-store commands are few and idempotent; a command waits for a reconnection rather than failing.
    maxRetriesPerRequest: null,
    retryStrategy: (times) => {
      if (!connected) return null
      if (giveUpAfterMs !== undefined && times * reconnectDelayMs > giveUpAfterMs) return null
      return reconnectDelayMs
    },
  })
  // Without a listener ioredis prints each failed attempt itself; the callers watch 'end' and the commands' errors.
  client.on('error', (error: unknown) => {
    lastError = error
  })
  try {
    await client.connect()
    await client.ping()
    connected = true
    return client
  } catch (error) {
    client.disconnect()
    // connect() rejects with "Connection is closed."; the error event before it says why (refused, unknown host...).
    throw unreachable(address, lastError ?? error)
  }
}

/** QueueConnectionError for a Redis that could not be reached or refused us. */
export function unreachable(address: QueueAddress, cause: unknown): QueueConnectionError {
  const reason = withoutUrlSecrets(cause instanceof Error ? cause.message : String(cause))
  const refusedCredentials = /WRONGPASS|NOAUTH|NOPERM|invalid password|AUTH/.test(reason)
  return new QueueConnectionError(`cannot use the queue's Redis at ${address.redis.host}:${address.redis.port}: ${reason}`, {
    details: { queue: address.display },
    hint: refusedCredentials
      ? 'Redis refused the credentials: give the user and password in the URL (redis://user:password@host:port)'
      : 'start Redis there, or give --queue the address of one that the optimiser and every worker can reach',
    errorClass: 'operational',
  })
}
