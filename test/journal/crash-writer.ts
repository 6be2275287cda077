// Child process of the crash-safety test: writes orders until killed, printing each id after its commit.
import { openJournal } from '../../src/journal/journal.js'
import { systemClock } from '../../src/time/clock.js'
import { recordSampleOrder } from './journal-fixtures.js'

const [file, prefix] = process.argv.slice(2)
if (!file || !prefix) throw new Error('usage: crash-writer.ts <file> <prefix>')
const journal = openJournal({ file, clock: systemClock })
for (let index = 0; ; index++) {
  const id = `${prefix}-${index}`
  recordSampleOrder(journal, id)
  journal.appendOrderEvents([
    { type: 'status', orderId: id, status: 'PENDING' },
    {
      type: 'fill',
      orderId: id,
      chainId: 1,
      txHash: `0x${Buffer.from(id).toString('hex').padStart(64, '0')}`,
      logIndex: 0,
      spentAmount: 1n,
      receivedAmount: 2n,
      source: 'chain',
    },
  ])
  // Printed only after the commit above returned. A write the pipe cannot take at once (the test reads slower, or the
  // kernel gave the pipe a single page) waits in the stream for the event loop, which this loop would never run: the
  // test would never hear enough ids to kill it. Such a write is waited for before the next order.
  const written = new Promise<void>((resolve, reject) => process.stdout.write(`${id}\n`, (error) => (error ? reject(error) : resolve())))
  if (process.stdout.writableLength > 0) await written
}
