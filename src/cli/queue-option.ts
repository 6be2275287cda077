import { parseQueueUrl, type QueueAddress, QueueUrlError } from '../backtest/optimize/queue-url.js'
import { CommandUsageError } from './command-errors.js'

// `--queue URL` of `optimize` and `worker`. Parsed in the command's action, not by commander: commander's message for
// a value its parser refuses repeats the value, and a mistyped URL may still hold a password.

/** The variable a password for the queue's Redis may come from, so that it stays out of the command line (`ps`, history). */
export const queuePasswordVariable = 'DELTAFLOW_QUEUE_PASSWORD'

/** What --help says of --queue. */
export const queueOptionDescription = `the Redis of the trial queue: redis://[user[:password]@]host[:port][/db], or rediss:// for TLS (the password may come from ${queuePasswordVariable} instead)`

/**
 * The queue's address; a value that is not a redis:// or rediss:// URL is a usage error (exit 2), its password masked.
 * A URL without a password takes the one in DELTAFLOW_QUEUE_PASSWORD when that is set; both at once is a usage error
 * (which one was meant cannot be told).
 */
export function parseQueueOption(value: string, env: NodeJS.ProcessEnv = process.env): QueueAddress {
  let address: QueueAddress
  try {
    address = parseQueueUrl(value)
  } catch (error) {
    if (error instanceof QueueUrlError) throw new CommandUsageError(error.shortMessage, error.hint)
    throw error
  }
  const password = env[queuePasswordVariable]
  if (password === undefined || password === '') return address
  if (address.redis.password !== undefined) {
    throw new CommandUsageError(
      `--queue: expected the Redis password in the URL or in ${queuePasswordVariable}, received both (for ${address.display})`,
      `unset ${queuePasswordVariable}, or leave the password out of the URL (redis://host:port)`,
    )
  }
  return { ...address, redis: { ...address.redis, password } }
}
