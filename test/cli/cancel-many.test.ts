import { writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openJournal } from '../../src/journal/journal.js'
import type { JournalOrder } from '../../src/journal/orders.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import type { SandboxInfo } from '../../src/sandbox/start-sandbox.js'
import { systemClock } from '../../src/time/clock.js'
import { type DeltaflowSandbox, runDeltaflow, startDeltaflowSandbox } from '../helpers/deltaflow-cli.js'
import { venueExecutorContext } from '../helpers/executor.js'
import { placeOpenLimitOrders } from '../helpers/open-limit-orders.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

// `deltaflow cancel` over more orders than one cancellation may carry, against `deltaflow sandbox` as a user runs it.

const directory = createTempDirectory('deltaflow-cancel-many-')

type CancelJson = {
  outcomes: {
    id: string
    orderId: string
    outcome: string
    detail: string
    batch?: { chainId: number; index: number; of: number; hash: string }
  }[]
  settled?: { waitedMs: number; final: { id: string; status: string }[]; pending: { id: string; status: string }[] }
}

describe('deltaflow cancel with hundreds of open Delta orders', () => {
  let sandbox: DeltaflowSandbox
  let info: SandboxInfo
  beforeAll(async () => {
    sandbox = await startDeltaflowSandbox(['--chains', '1'])
    info = sandbox.info
  })
  afterAll(async () => {
    await sandbox.stop()
    directory.cleanup()
  })

  const journalOf = (index: number) => directory.path(`account-${index}.sqlite`)
  const key = (index: number) => ({ DELTAFLOW_PRIVATE_KEY: developmentAccounts[index]?.privateKey ?? '' })
  const token = (symbol: string) => info.tokens.find((candidate) => candidate.chainId === 1 && candidate.symbol === symbol)?.address ?? '0x'

  /** The account's journal with `count` open LIMIT orders, closed again for the command to open. */
  async function openOrders(index: number, count: number): Promise<JournalOrder[]> {
    const context = await venueExecutorContext(info, {
      accountIndex: index,
      journalFile: journalOf(index),
      settings: { approvalPolicy: 'unlimited' },
    })
    try {
      return await placeOpenLimitOrders(context, info.url, {
        count,
        key: `cli-${index}`,
        tokens: { usdc: token('USDC'), weth: token('WETH') },
      })
    } finally {
      context.journal.close()
    }
  }

  /** The venue, chain and journal of account `index`; the sandbox has no rate limit for the client to keep to. */
  function configOf(index: number): string {
    const file = directory.path(`account-${index}.yaml`)
    writeFileSync(
      file,
      [
        `venue: { url: "${info.url}", requestsPerSecond: 1000 }`,
        `chains: { "1": { rpcUrls: ["${info.chains[0]?.rpcUrl}"] } }`,
        `db: ${journalOf(index)}`,
        '',
      ].join('\n'),
    )
    return file
  }

  function journalOrders(index: number) {
    const journal = openJournal({ file: journalOf(index), clock: systemClock })
    try {
      return journal.listOrders().map((order) => ({ order, history: journal.orderHistory(order.id) }))
    } finally {
      journal.close()
    }
  }

  it('cancels 250 orders named on the command line in three signed batches and follows them until CANCELLED', async () => {
    const placed = await openOrders(3, 250)
    const ids = placed.map((order) => order.id)

    const result = await runDeltaflow(['cancel', ...ids, '--config', configOf(3), '--wait', '60', '--json'], key(3))

    expect(result.code, result.stderr + result.stdout.slice(0, 2_000)).toBe(0)
    const { outcomes, settled } = JSON.parse(result.stdout) as CancelJson
    expect(outcomes.filter((outcome) => outcome.outcome !== 'requested')).toEqual([])
    expect(outcomes.map((outcome) => outcome.id)).toEqual(ids)
    const perBatch = new Map<string, number>()
    for (const { batch } of outcomes) perBatch.set(`${batch?.index}/${batch?.of}`, (perBatch.get(`${batch?.index}/${batch?.of}`) ?? 0) + 1)
    expect(Object.fromEntries(perBatch)).toEqual({ '1/3': 100, '2/3': 100, '3/3': 50 })
    expect(settled?.pending).toEqual([])
    expect(settled?.final.map((order) => order.status)).toEqual(ids.map(() => 'CANCELLED'))

    // The journal: every order CANCELLED, after a CANCELLING that names its batch and signed cancellation.
    const hashOf = new Map(outcomes.map((outcome) => [outcome.orderId, outcome.batch]))
    for (const { order, history } of journalOrders(3)) {
      expect(order.status).toBe('CANCELLED')
      const batch = hashOf.get(order.id)
      expect(history.find((change) => change.status === 'CANCELLING')?.reason).toBe(
        `cancel requested: batch ${batch?.index}/3 on chain 1 (${batch?.hash})`,
      )
    }
  })

  it('cancels every open order with --all and prints one line per order and the counts', async () => {
    const placed = await openOrders(4, 3)
    const result = await runDeltaflow(['cancel', '--all', '--config', configOf(4), '--wait', '30'], key(4))
    expect(result.code, result.stderr).toBe(0)
    const lines = result.stdout.trim().split('\n')
    for (const order of placed)
      expect(lines).toContainEqual(
        expect.stringMatching(new RegExp(`^${order.id}  requested  the venue accepted cancellation 1/1 on chain 1 \\(0x[0-9a-f]{64}\\)$`)),
      )
    expect(lines).toContain('3 asked: 3 requested (1 signed Delta cancellation(s))')
    expect(lines.at(-1)).toMatch(/^after [\d.]+ s of venue time: 3 CANCELLED$/)
  })

  it('refuses ids with --all, and no id without it, before opening anything (exit 2)', async () => {
    const both = await runDeltaflow(['cancel', 'some-id', '--all', '--config', configOf(5)])
    expect(both.code).toBe(2)
    expect(both.stderr).toContain('--all cancels every open order: expected no id with it, received 1')
    const none = await runDeltaflow(['cancel', '--config', configOf(5)])
    expect(none.code).toBe(2)
    expect(none.stderr).toContain('expected at least one order id, or --all for every open order')
  })
})
