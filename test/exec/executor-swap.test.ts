import { afterAll, describe, expect, it } from 'vitest'
import { createIntent } from '../../src/domain/intents/create-intent.js'
import { createExecutor } from '../../src/exec/executor/executor.js'
import { nativeTokenPlaceholder } from '../../src/protocol/addresses.js'
import { systemClock } from '../../src/time/clock.js'
import { sandboxExecutorContext } from '../helpers/executor.js'
import { sandboxToken } from '../helpers/otc.js'
import { useSandbox } from '../helpers/sandbox.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

const directory = createTempDirectory('deltaflow-exec-')
afterAll(() => directory.cleanup())

describe('executor swap', () => {
  const sandbox = useSandbox()

  const swap = (key: string, fields: Record<string, unknown> = {}) =>
    createIntent({
      clock: systemClock,
      key,
      content: {
        strategy: 'test',
        kind: 'swap',
        chainId: 1,
        srcToken: sandboxToken(sandbox(), 1, 'USDC'),
        destToken: sandboxToken(sandbox(), 1, 'WETH'),
        amount: '1000000000',
        side: 'SELL',
        maxSlippageBps: 100,
        maxPriceImpactPercent: 5,
        ...fields,
      },
    })

  it('submits a Delta order once and journals the mode choice when Delta is preferred', async () => {
    const context = await sandboxExecutorContext(sandbox(), { accountIndex: 1, journalFile: directory.path('delta.sqlite') })
    const executor = createExecutor(context)
    const intent = swap('delta-1')
    const first = await executor.execute(intent)
    expect(first.status).toBe('accepted')
    expect(first.modeChoice?.mode).toBe('delta')
    expect(first.order).toMatchObject({ mode: 'delta', submitted: true })
    const again = await executor.execute(intent)
    expect(again.order?.id).toBe(first.order?.id)
    expect(context.journal.listOrders()).toHaveLength(1)
  })

  it('broadcasts a Market swap when Market is preferred by a wide margin', async () => {
    const context = await sandboxExecutorContext(sandbox(), {
      accountIndex: 2,
      journalFile: directory.path('market.sqlite'),
      settings: { preference: { mode: 'market', marginBps: 10_000 } },
    })
    const executor = createExecutor(context)
    const result = await executor.execute(swap('market-1'))
    expect(result.status).toBe('accepted')
    expect(result.modeChoice?.mode).toBe('market')
    expect(result.order).toMatchObject({ mode: 'market', submitted: true })
    const transactions = context.journal.transactionsOf(result.order?.id ?? '')
    expect(transactions.map((transaction) => transaction.purpose)).toEqual(['swap'])
  })
})

describe('executor swap of a permit-only token', () => {
  const sandbox = useSandbox({ chainIds: [1] })

  it('signs a permit instead of sending an approval and builds the order with it', async () => {
    const context = await sandboxExecutorContext(sandbox(), {
      accountIndex: 4,
      journalFile: directory.path('permit-only.sqlite'),
      settings: { permitPreference: 'permit' },
    })
    const executor = createExecutor(context)
    const intent = createIntent({
      clock: systemClock,
      key: 'pusd',
      content: {
        strategy: 'test',
        kind: 'swap',
        chainId: 1,
        srcToken: sandboxToken(sandbox(), 1, 'PUSD'),
        destToken: sandboxToken(sandbox(), 1, 'USDC'),
        amount: '100000000000000000000',
        side: 'SELL',
        mode: 'delta',
        maxSlippageBps: 100,
        maxPriceImpactPercent: 5,
      },
    })
    const outcome = await executor.execute(intent)
    expect(outcome.status, outcome.reason).toBe('accepted')
    const order = outcome.order
    expect(order).toMatchObject({ mode: 'delta', submitted: true })
    const payload = order?.signedPayload as { order: { permit: string } }
    // 224 bytes: an EIP-2612 permit signed for the Delta contract travels in the order.
    expect((payload.order.permit.length - 2) / 2).toBe(224)
    expect(context.journal.transactionsFrom(context.account.address, 1)).toEqual([])
  })
})

describe('executor swap of the native asset', () => {
  const sandbox = useSandbox({ chainIds: [1] })

  it('lets Market sell native ETH and journals why Delta could not, and refuses a Delta-only native sale for its mode', async () => {
    const context = await sandboxExecutorContext(sandbox(), { accountIndex: 5, journalFile: directory.path('native.sqlite') })
    const executor = createExecutor(context)
    const content = {
      strategy: 'test',
      kind: 'swap',
      chainId: 1,
      srcToken: nativeTokenPlaceholder,
      destToken: sandboxToken(sandbox(), 1, 'USDC'),
      amount: '100000000000000000',
      side: 'SELL',
      maxSlippageBps: 100,
      maxPriceImpactPercent: 5,
    }
    const auto = await executor.execute(createIntent({ clock: systemClock, key: 'native-auto', content }))
    expect(auto.status).toBe('accepted')
    expect(auto.order?.mode).toBe('market')
    expect(auto.modeChoice).toMatchObject({ mode: 'market', reason: 'only-market' })
    expect(auto.modeChoice?.explanation).toMatch(/deposit into the Delta contract/)
    const deltaOnly = await executor.execute(
      createIntent({ clock: systemClock, key: 'native-delta', content: { ...content, mode: 'delta' } }),
    )
    expect(deltaOnly.status).toBe('refused')
    expect(deltaOnly.intent).toMatchObject({ refusalLimit: 'mode' })
    expect(deltaOnly.order).toBeUndefined()
  })
})
