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
  // Printed only after the commit above returned. Writes to a pipe are synchronous on Linux, so the id cannot be lost
  // in a buffer when the kill lands (fs.writeSync could fail with EAGAIN on the non-blocking pipe).
  process.stdout.write(`${id}\n`)
}
