import { type Hash, type PublicClient, type TransactionReceipt, TransactionReceiptNotFoundError } from 'viem'
import { BaseError } from '../../errors/base.js'

export class LocalReceiptTimeoutError extends BaseError {
  override name = 'LocalReceiptTimeoutError'
}

export type WaitForLocalReceiptOptions = {
  /** Between two asks (ms). Default 10: a local node mines at once. */
  pollingIntervalMs?: number
  /** Before giving up (ms). Default 60 s: far beyond any mining delay of a local node, even a starved one. */
  timeoutMs?: number
}

/**
 * The receipt of a transaction sent to a local node, asked for again and again until the node has it.
 *
 * Not viem's waitForTransactionReceipt: that asks again only when the block number moves, and anvil on a busy machine
 * can report the block holding the transaction before it answers for the transaction's receipt. On a node that mines
 * only on demand no further block comes, and the wait lasted until its timeout (3 minutes) although the transaction
 * had been mined.
 */
export async function waitForLocalReceipt(
  client: Pick<PublicClient, 'getTransactionReceipt'>,
  hash: Hash,
  { pollingIntervalMs = 10, timeoutMs = 60_000 }: WaitForLocalReceiptOptions = {},
): Promise<TransactionReceipt> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    try {
      return await client.getTransactionReceipt({ hash })
    } catch (error) {
      if (!(error instanceof TransactionReceiptNotFoundError)) throw error
    }
    if (performance.now() >= deadline) {
      throw new LocalReceiptTimeoutError(`transaction ${hash} has no receipt after ${timeoutMs} ms`, {
        details: { hash },
        hint: 'the local node accepted the transaction but has not mined it: is it still running, and does it automine?',
      })
    }
    await new Promise((resolve) => setTimeout(resolve, pollingIntervalMs))
  }
}
