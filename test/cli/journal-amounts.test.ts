import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openJournal } from '../../src/journal/journal.js'
import { systemClock } from '../../src/time/clock.js'
import { runDeltaflow } from '../helpers/deltaflow-cli.js'
import { createTempDirectory } from '../helpers/temp-directory.js'
import { recordSampleOrder } from '../journal/journal-fixtures.js'

// `status` and `orders` read a real journal file: one filled SELL of 1.5 WETH for USDC on chain 1, and one order of a
// token deltaflow does not know.

const directory = createTempDirectory('deltaflow-journal-amounts-')
const file = directory.path('journal.sqlite')
const weth = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'
const usdc = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
const unknownToken = '0x1111111111111111111111111111111111111111'
const fillTx = `0x${'ab'.repeat(32)}`

beforeAll(() => {
  const journal = openJournal({ file, clock: systemClock })
  try {
    recordSampleOrder(journal, 'weth-sale', {
      srcToken: weth,
      destToken: usdc,
      srcAmount: 1_500_000_000_000_000_000n,
      destAmount: 2_900_000_000n,
    })
    journal.recordFill({
      orderId: 'weth-sale',
      chainId: 1,
      txHash: fillTx,
      spentAmount: 1_500_000_000_000_000_000n,
      receivedAmount: 2_937_812_345n,
      source: 'chain',
    })
    recordSampleOrder(journal, 'odd-token', { srcToken: usdc, destToken: unknownToken, srcAmount: 5_000_000n, destAmount: 123n })
  } finally {
    journal.close()
  }
})
afterAll(() => directory.cleanup())

describe('deltaflow status and orders: amounts in token units', () => {
  it('status writes fills and net flows in token units with symbols, and raw amounts only for unknown tokens', async () => {
    const { code, stdout, stderr } = await runDeltaflow(['status', '--db', file])
    expect(code, stderr).toBe(0)
    expect(stdout).toContain(`spent 1.5 WETH  received 2937.812345 USDC  ${fillTx}`)
    expect(stdout).toContain('-1.5 WETH on chain 1')
    expect(stdout).toContain('+2937.812345 USDC on chain 1')
    expect(stdout).not.toContain('1500000000000000000')
  })

  it('status --json keeps raw integer strings and adds each fill’s tokens and their symbols and decimals', async () => {
    const { code, stdout } = await runDeltaflow(['status', '--db', file, '--json'])
    expect(code).toBe(0)
    const summary = JSON.parse(stdout) as {
      recentFills: { spent: string; received: string; spentToken: string; receivedToken: string }[]
      strategies: { net: Record<string, string> }[]
      tokens: Record<string, { symbol: string; decimals: number }>
    }
    expect(summary.recentFills[0]).toMatchObject({
      spent: '1500000000000000000',
      received: '2937812345',
      spentToken: `1:${weth.toLowerCase()}`,
      receivedToken: `1:${usdc.toLowerCase()}`,
    })
    expect(summary.tokens[`1:${weth.toLowerCase()}`]).toEqual({ symbol: 'WETH', decimals: 18 })
    expect(summary.tokens[`1:${usdc.toLowerCase()}`]).toEqual({ symbol: 'USDC', decimals: 6 })
  })

  it('orders lists each amount in token units with its symbol, an unknown token in raw units with its address', async () => {
    const { code, stdout, stderr } = await runDeltaflow(['orders', '--db', file])
    expect(code, stderr).toBe(0)
    const rows = stdout.split('\n')
    expect(rows.find((row) => row.startsWith('weth-sale'))).toMatch(/1\.5 WETH\s+2900 USDC/)
    expect(rows.find((row) => row.startsWith('odd-token'))).toMatch(/5 USDC\s+123 raw 0x1111…1111/)
  })

  it('orders --json keeps the raw amounts and adds src and dest in token units', async () => {
    const { code, stdout } = await runDeltaflow(['orders', '--db', file, '--json'])
    expect(code).toBe(0)
    const { orders } = JSON.parse(stdout) as { orders: Record<string, unknown>[] }
    expect(orders.find((order) => order.id === 'weth-sale')).toMatchObject({
      srcAmount: '1500000000000000000',
      destAmount: '2900000000',
      src: { symbol: 'WETH', decimals: 18, amount: '1.5' },
      dest: { symbol: 'USDC', decimals: 6, amount: '2900' },
    })
    const odd = orders.find((order) => order.id === 'odd-token')
    expect(odd).toMatchObject({ src: { symbol: 'USDC', amount: '5' }, destAmount: '123' })
    expect(odd).not.toHaveProperty('dest')
  })

  it('refuses an order status it does not know as a usage error (exit 2)', async () => {
    const { code, stderr } = await runDeltaflow(['orders', '--db', file, '--status', 'DONE'])
    expect(code).toBe(2)
    expect(stderr).toMatch(/--status expects an order status .* received "DONE"/)
  })
})
