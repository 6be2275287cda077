import { type Address, parseUnits } from 'viem'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { getDeltaOrders } from '../../src/api/delta/get-delta-orders.js'
import { createIntent } from '../../src/domain/intents/create-intent.js'
import type { Intent } from '../../src/domain/intents/intent-schema.js'
import { createExecutor, type ExecutionOutcome } from '../../src/exec/executor/executor.js'
import type { ExecutorContext, ExecutorSettings } from '../../src/exec/executor/executor-context.js'
import { systemClock } from '../../src/time/clock.js'
import { sandboxExecutorContext } from '../helpers/executor.js'
import { sandboxToken } from '../helpers/otc.js'
import { request, useSandbox } from '../helpers/sandbox.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

// The mode choice through the real executor, journaled with its numbers: Delta better, Market better, Delta missing
// on the chain (Gnosis, 100), Delta refused by the venue, and the intent's own override.

const directory = createTempDirectory('deltaflow-exec-')
afterAll(() => directory.cleanup())

const sandbox = useSandbox({ chainIds: [1, 100] })
const opened: ExecutorContext[] = []
afterAll(() => {
  for (const context of opened) context.journal.close()
})

async function executorFor(accountIndex: number, journalName: string, settings: Partial<ExecutorSettings> = {}) {
  const context = await sandboxExecutorContext(sandbox(), { accountIndex, journalFile: directory.path(journalName), settings })
  opened.push(context)
  return { context, executor: createExecutor(context) }
}

function swap(key: string, fields: Record<string, unknown> = {}): Intent {
  const chainId = typeof fields.chainId === 'number' ? fields.chainId : 1
  const token = (symbol: string): Address => sandboxToken(sandbox(), chainId, symbol)
  return createIntent({
    clock: systemClock,
    key,
    content: {
      strategy: 'mode',
      kind: 'swap',
      chainId,
      srcToken: token('USDC'),
      destToken: token('WETH'),
      amount: parseUnits('100', 6).toString(),
      side: 'SELL',
      maxSlippageBps: 100,
      maxPriceImpactPercent: 5,
      ...fields,
    },
  })
}

type QuotedFigures = { status: 'quoted'; gross: string; fee: string; gas: string; net: string; gasUnpriced: boolean }
type Figures = {
  side: string
  delta: QuotedFigures | { status: 'unavailable' | 'refused'; why: string }
  market: QuotedFigures | { status: 'unavailable' | 'refused'; why: string }
  marketAdvantageBps: number | null
  preference: { mode: string; marginBps: number }
  override: string | null
  serviceChoice: string | null
}

/** The journaled choice equals the outcome's and carries the numbers compared. */
function journaledChoice(context: ExecutorContext, outcome: ExecutionOutcome) {
  const choice = context.journal.getModeChoice(outcome.intent.id)
  if (!choice) throw new Error(`no mode choice journaled for ${outcome.intent.id} (${outcome.status}: ${outcome.reason})`)
  expect(outcome.modeChoice).toEqual(choice)
  return { ...choice, figures: choice.figures as Figures }
}

function expectQuoted(figures: Figures['delta']): QuotedFigures {
  expect(figures.status).toBe('quoted')
  const quoted = figures as QuotedFigures
  expect(BigInt(quoted.net)).toBeGreaterThan(0n)
  // SELL: what arrives is the route's amount less the fee and the gas the user pays.
  expect(BigInt(quoted.net)).toBe(BigInt(quoted.gross) - BigInt(quoted.fee) - BigInt(quoted.gas))
  return quoted
}

describe('executor mode choice on a chain with both modes', () => {
  it('takes Delta when its net output beats Market although Market is preferred with no margin', async () => {
    const { context, executor } = await executorFor(3, 'delta-wins.sqlite', { preference: { mode: 'market', marginBps: 0 } })
    const outcome = await executor.execute(swap('delta-wins'))
    expect(outcome.status, outcome.reason).toBe('accepted')
    const choice = journaledChoice(context, outcome)
    expect(choice).toMatchObject({ mode: 'delta', reason: 'delta-better' })
    const delta = expectQuoted(choice.figures.delta)
    const market = expectQuoted(choice.figures.market)
    // Market pays its gas from the output; Delta's agents have theirs in the quote.
    expect(BigInt(market.gas)).toBeGreaterThan(0n)
    expect(BigInt(delta.gas)).toBe(0n)
    expect(BigInt(delta.net)).toBeGreaterThan(BigInt(market.net))
    expect(choice.figures.marketAdvantageBps).toBeLessThan(0)
    expect(choice.figures).toMatchObject({ side: 'SELL', preference: { mode: 'market', marginBps: 0 }, serviceChoice: expect.any(String) })
    expect(choice.explanation).toContain(`Delta ${delta.net}, Market ${market.net}`)
    expect(outcome.order).toMatchObject({ mode: 'delta', submitted: true })
  })

  it('takes Market when it is preferred by a margin Delta cannot beat', async () => {
    const { context, executor } = await executorFor(4, 'market-wins.sqlite', { preference: { mode: 'market', marginBps: 10_000 } })
    const outcome = await executor.execute(swap('market-wins'))
    expect(outcome.status, outcome.reason).toBe('accepted')
    const choice = journaledChoice(context, outcome)
    expect(choice.mode).toBe('market')
    expect(['market-better', 'preferred-within-margin']).toContain(choice.reason)
    const delta = expectQuoted(choice.figures.delta)
    const market = expectQuoted(choice.figures.market)
    expect(choice.explanation).toContain(`Delta ${delta.net}, Market ${market.net}`)
    expect(choice.figures.preference).toEqual({ mode: 'market', marginBps: 10_000 })
    expect(outcome.order).toMatchObject({ mode: 'market', submitted: true })
    expect(context.journal.transactionsOf(outcome.order?.id ?? '').map((transaction) => transaction.purpose)).toEqual(['swap'])
  })

  it("obeys the intent's mode market while Delta is preferred", async () => {
    const { context, executor } = await executorFor(5, 'override.sqlite', { preference: { mode: 'delta', marginBps: 10_000 } })
    const outcome = await executor.execute(swap('override', { mode: 'market' }))
    expect(outcome.status, outcome.reason).toBe('accepted')
    const choice = journaledChoice(context, outcome)
    expect(choice).toMatchObject({ mode: 'market', reason: 'override', explanation: 'the intent asks for Market' })
    expect(choice.figures).toMatchObject({ override: 'market', preference: { mode: 'delta', marginBps: 10_000 } })
    // Delta is quoted too: the journal shows what the override gave up.
    const delta = expectQuoted(choice.figures.delta)
    const market = expectQuoted(choice.figures.market)
    expect(choice.figures.marketAdvantageBps).toBe(
      Number(((BigInt(market.net) - BigInt(delta.net)) * 1_000_000n) / BigInt(delta.net)) / 100,
    )
    expect(outcome.order).toMatchObject({ mode: 'market', submitted: true })
  })

  describe('with Delta prices refused by the venue', () => {
    afterEach(async () => {
      expect((await request(sandbox().url, 'DELETE', '/_sandbox/faults')).status).toBe(200)
    })

    it('takes Market as the only mode and journals the refusal', async () => {
      const added = await request(sandbox().url, 'POST', '/_sandbox/faults', { route: 'GET /v2/delta/prices', status: 400 })
      expect(added.status).toBe(200)
      const { context, executor } = await executorFor(6, 'delta-refused.sqlite')
      const outcome = await executor.execute(swap('delta-refused'))
      expect(outcome.status, outcome.reason).toBe('accepted')
      const choice = journaledChoice(context, outcome)
      expect(choice).toMatchObject({ mode: 'market', reason: 'only-market' })
      expect(choice.figures.delta).toMatchObject({ status: 'refused', why: expect.stringMatching(/400|Bad Request|fault/i) })
      expect(choice.explanation).toContain('Delta is refused')
      expectQuoted(choice.figures.market)
      expect(outcome.order).toMatchObject({ mode: 'market', submitted: true })
      expect((await getDeltaOrders(context.api, { userAddress: context.account.address })).total).toBe(0)
    })
  })
})

describe('executor mode choice on a chain without Delta', () => {
  it('takes Market as the only mode on chain 100', async () => {
    const { context, executor } = await executorFor(7, 'gnosis.sqlite')
    const outcome = await executor.execute(swap('gnosis-auto', { chainId: 100 }))
    expect(outcome.status, outcome.reason).toBe('accepted')
    const choice = journaledChoice(context, outcome)
    expect(choice).toMatchObject({ mode: 'market', reason: 'only-market' })
    expect(choice.figures.delta).toMatchObject({ status: 'unavailable', why: expect.stringContaining('100') })
    expectQuoted(choice.figures.market)
    expect(outcome.order).toMatchObject({ mode: 'market', chainId: 100, submitted: true })
    expect(context.journal.transactionsOf(outcome.order?.id ?? '')).toMatchObject([{ purpose: 'swap', chainId: 100 }])
  })

  it('refuses an intent asking for Delta on chain 100 with limit mode, signing nothing', async () => {
    const { context, executor } = await executorFor(7, 'gnosis-delta.sqlite')
    const outcome = await executor.execute(swap('gnosis-delta', { chainId: 100, mode: 'delta' }))
    expect(outcome.status).toBe('refused')
    expect(context.journal.getIntent(outcome.intent.id)).toMatchObject({ status: 'refused', refusalLimit: 'mode' })
    expect(outcome.reason).toContain('asks for Delta')
    const choice = journaledChoice(context, outcome)
    expect(choice).toMatchObject({ mode: null, reason: 'override-unavailable' })
    expect(choice.figures.delta).toMatchObject({ status: 'unavailable', why: expect.stringContaining('100') })
    // Market is there on chain 100, and the journal says so.
    expectQuoted(choice.figures.market)
    expect(outcome.order).toBeUndefined()
    expect(context.journal.listOrders()).toEqual([])
    expect(context.journal.transactionsFrom(context.account.address, 100)).toEqual([])
    // A refused intent commits nothing to the budgets.
    expect(context.journal.riskUsage().tokens).toEqual({})
  })

  it('refuses a BUY asking for Delta on chain 100 with limit mode', async () => {
    const { context, executor } = await executorFor(7, 'gnosis-delta-buy.sqlite')
    const outcome = await executor.execute(
      swap('gnosis-delta-buy', { chainId: 100, mode: 'delta', side: 'BUY', amount: '10000000000000000' }),
    )
    expect(outcome.status).toBe('refused')
    expect(context.journal.getIntent(outcome.intent.id)).toMatchObject({ status: 'refused', refusalLimit: 'mode' })
  })
})
