import { type ChildProcess, spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { openJournal } from '../../src/journal/journal.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import type { SandboxInfo } from '../../src/sandbox/start-sandbox.js'
import { createScaledClock, systemClock } from '../../src/time/clock.js'
import { runDeltaflow } from '../helpers/deltaflow-cli.js'
import { placeOpenLimitOrder } from '../helpers/executor.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

// A sandbox whose time runs 60 times faster than real time: orders that commands and bots sign against it must count
// their deadlines on its clock, not on the wall clock (an order valid for 10 minutes of wall time would expire after
// 10 real seconds there, or live on long after the sandbox's own day ended).

const root = fileURLToPath(new URL('../..', import.meta.url))
const directory = createTempDirectory('deltaflow-venue-clock-')
const speed = 60
const validFor = 600

const deltaflow = runDeltaflow

const sandboxTimeSchema = z.object({ nowMs: z.number(), speed: z.number() })

describe(`commands and bots against \`deltaflow sandbox --speed ${speed}\``, () => {
  let sandbox: ChildProcess
  let info: SandboxInfo
  beforeAll(async () => {
    sandbox = spawn(process.execPath, ['bin/deltaflow.js', 'sandbox', '--json', '--chains', '1', '--speed', String(speed)], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const line = await new Promise<string>((resolve) =>
      createInterface({ input: sandbox.stdout as NonNullable<typeof sandbox.stdout> }).once('line', resolve),
    )
    info = JSON.parse(line) as SandboxInfo
    // Let the sandbox run ahead of the wall clock by minutes, so that the two clocks cannot be mistaken.
    while ((await sandboxNow()) - Date.now() < 180_000) await new Promise((resolve) => setTimeout(resolve, 250))
  })
  afterAll(async () => {
    const exited = new Promise((resolve) => sandbox.once('exit', resolve))
    sandbox.kill('SIGTERM')
    await exited
    directory.cleanup()
  })

  async function sandboxNow(): Promise<number> {
    return sandboxTimeSchema.parse(await (await fetch(new URL('/_sandbox/time', info.url))).json()).nowMs
  }
  const venue = (journal: string) => ['--venue', info.url, '--rpc', `1=${info.chains[0]?.rpcUrl}`, '--db', journal]
  const key = (index: number) => ({ DELTAFLOW_PRIVATE_KEY: developmentAccounts[index]?.privateKey ?? '' })
  const token = (symbol: string) => info.tokens.find((candidate) => candidate.chainId === 1 && candidate.symbol === symbol)?.address ?? '0x'
  const onlyOrder = (file: string) => {
    const journal = openJournal({ file, clock: systemClock })
    try {
      const [order, ...more] = journal.listOrders()
      if (!order || more.length > 0) throw new Error(`expected one order in ${file}, found ${more.length + (order ? 1 : 0)}`)
      return { order, history: journal.orderHistory(order.id) }
    } finally {
      journal.close()
    }
  }
  /** The deadline, in unix seconds, an order signed between two instants of a clock gets with `validFor`. */
  const expectDeadlineBetween = (deadline: number | null, fromMs: number, toMs: number) => {
    expect(deadline).not.toBeNull()
    expect(deadline).toBeGreaterThanOrEqual(Math.floor(fromMs / 1000) + validFor)
    expect(deadline).toBeLessThanOrEqual(Math.ceil(toMs / 1000) + validFor)
  }

  it('swap: a Delta order is valid for --valid-for seconds of the sandbox clock', async () => {
    const journal = directory.path('swap.sqlite')
    const before = await sandboxNow()
    const swapped = await deltaflow(
      ['swap', ...venue(journal), '--chain', '1', '--sell', 'DAI', '--buy', 'USDC', '--amount', '50', '--mode', 'delta'],
      key(1),
    )
    const after = await sandboxNow()
    expect(swapped.code, swapped.stderr).toBe(0)
    const { order } = onlyOrder(journal)
    expect(order.mode).toBe('delta')
    expectDeadlineBetween(order.deadline, before, after)
    expect(order.createdAt).toBeGreaterThanOrEqual(before)
    // On the wall clock it would lie minutes earlier.
    expect((order.deadline ?? 0) - Math.ceil(Date.now() / 1000 + validFor)).toBeGreaterThan(120)
  })

  it('cancel and reconcile: the cancelled order is journaled at the sandbox time', async () => {
    const journal = directory.path('cancel.sqlite')
    const { nowMs } = sandboxTimeSchema.parse(await (await fetch(new URL('/_sandbox/time', info.url))).json())
    const { intent, placed } = await placeOpenLimitOrder(info, {
      accountIndex: 2,
      journalFile: journal,
      clock: createScaledClock({ speed, startMs: nowMs }),
      key: 'venue-clock-cancel',
    })
    expect(placed.order).toMatchObject({ mode: 'delta', status: 'PENDING' })
    const before = await sandboxNow()
    const cancelled = await deltaflow(['cancel', intent.id, ...venue(journal), '--json'], key(2))
    expect(cancelled.code, cancelled.stderr + cancelled.stdout).toBe(0)
    // The cancellation reaches the journal at the next reconciliation, a command on the same session code.
    let history = onlyOrder(journal).history
    for (let attempt = 0; attempt < 20 && history.at(-1)?.status !== 'CANCELLED'; attempt++) {
      const reconciled = await deltaflow(['reconcile', ...venue(journal), '--json'], key(2))
      expect(reconciled.code, reconciled.stderr + reconciled.stdout).toBe(0)
      history = onlyOrder(journal).history
    }
    const after = await sandboxNow()
    const change = history.at(-1)
    expect(change?.status, JSON.stringify(history)).toBe('CANCELLED')
    expect(change?.at).toBeGreaterThanOrEqual(before)
    expect(change?.at).toBeLessThanOrEqual(after)
    expect((change?.at ?? 0) - Date.now()).toBeGreaterThan(120_000)
  })

  it('run: a bot on the sandbox signs its Delta orders on the sandbox clock', async () => {
    const journal = directory.path('run.sqlite')
    const config = directory.path('run.yaml')
    writeFileSync(
      config,
      [
        'mode: paper',
        `venue: { url: "${info.url}" }`,
        `chains: { "1": { rpcUrls: ["${info.chains[0]?.rpcUrl}"] } }`,
        'wallet: { privateKeyEnv: VENUE_CLOCK_KEY }',
        `db: ${journal}`,
        `executor: { deltaValiditySeconds: ${validFor} }`,
        'strategies:',
        '  - name: ticker',
        `    use: ${fileURLToPath(new URL('fixtures/tick-swap.ts', import.meta.url))}`,
        '    config:',
        `      srcToken: "${token('USDC')}"`,
        `      destToken: "${token('WETH')}"`,
        '      baseAmount: "100000000"',
        '      maxSwaps: 1',
        // one sandbox minute: a real second
        '      intervalMs: 60000',
        '',
      ].join('\n'),
    )
    const before = await sandboxNow()
    const ran = await deltaflow(['run', config, '--for', '4', '--log-level', 'warn'], {
      VENUE_CLOCK_KEY: developmentAccounts[3]?.privateKey ?? '',
    })
    const after = await sandboxNow()
    expect(ran.code, ran.stderr).toBe(0)
    const { order } = onlyOrder(journal)
    expect(order.mode).toBe('delta')
    expectDeadlineBetween(order.deadline, before, after)
  })
})
