import type { Journal } from '../../src/journal/journal.js'
import type { RecordSignedOrderParameters } from '../../src/journal/orders.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

/** A fresh temp directory per test file; `cleanup` removes it. */
export function createJournalDirectory(): { path: (name: string) => string; cleanup: () => void } {
  return createTempDirectory('deltaflow-journal-')
}

/** Records an intent and one signed Delta order for it; returns the order's local id. */
export function recordSampleOrder(journal: Journal, id: string, overrides: Partial<RecordSignedOrderParameters> = {}): string {
  journal.recordIntent({ id: `intent-${id}`, strategy: 'sample', kind: 'swap', intent: { amount: 1000n } })
  journal.recordSignedOrder({
    id,
    intentId: `intent-${id}`,
    mode: 'delta',
    account: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    chainId: 1,
    orderHash: `0x${Buffer.from(id).toString('hex').padStart(64, '0')}`,
    nonce: 1n,
    deadline: 1_800_000_000,
    srcToken: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
    destToken: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
    srcAmount: 1_000_000n,
    destAmount: 400_000_000_000_000n,
    side: 'SELL',
    signedPayload: { order: { nonce: 1n }, signature: '0xabc' },
    ...overrides,
  })
  return id
}
