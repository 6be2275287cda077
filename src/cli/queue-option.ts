import { parseQueueUrl, type QueueAddress, QueueUrlError } from '../backtest/optimize/queue-url.js'
import { CommandUsageError } from './command-errors.js'

// `--queue URL` of `optimize` and `worker`. Parsed in the command's action, not by commander: commander's message for
// a value its parser refuses repeats the value, and a mistyped URL may still hold a password.

/** What --help says of --queue. */
export const queueOptionDescription = 'the Redis of the trial queue: redis://[user:password@]host[:port][/db], or rediss:// for TLS'

/** The queue's address; a value that is not a redis:// or rediss:// URL is a usage error (exit 2), its password masked. */
export function parseQueueOption(value: string): QueueAddress {
  try {
    return parseQueueUrl(value)
  } catch (error) {
    if (error instanceof QueueUrlError) throw new CommandUsageError(error.shortMessage, error.hint)
    throw error
  }
}
