import { createPublicClient, erc20Abi, http, parseEther, parseUnits } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import type { SandboxInfo } from '../../src/sandbox/start-sandbox.js'
import { type DeltaflowSandbox, runDeltaflow, startDeltaflowSandbox } from '../helpers/deltaflow-cli.js'
import { placeOpenLimitOrder } from '../helpers/executor.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

const directory = createTempDirectory('deltaflow-cli-')
/** One journal per account, as one bot keeps one journal. */
const journalOf = (index: number) => directory.path(`account-${index}.sqlite`)

const deltaflow = runDeltaflow

describe('deltaflow quote and swap against `deltaflow sandbox`', () => {
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

  const venueOnly = (index: number) => ['--venue', info.url, '--rpc', `1=${info.chains[0]?.rpcUrl}`, '--db', journalOf(index)]
  const venue = (index = 0) => [...venueOnly(index), '--chain', '1']
  const key = (index: number) => ({ DELTAFLOW_PRIVATE_KEY: developmentAccounts[index]?.privateKey ?? '' })
  const client = () => createPublicClient({ transport: http(info.chains[0]?.rpcUrl) })
  const token = (symbol: string) => info.tokens.find((candidate) => candidate.chainId === 1 && candidate.symbol === symbol)?.address ?? '0x'
  const balanceOf = (symbol: string, index: number) =>
    client().readContract({
      address: token(symbol),
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [developmentAccounts[index]?.address ?? '0x'],
    })

  it('quotes both modes and names the one it would use', async () => {
    const { code, stdout } = await deltaflow(['quote', ...venue(), '--sell', 'WETH', '--buy', 'USDC', '--amount', '1.5', '--json'], key(1))
    expect(code).toBe(0)
    const quote = JSON.parse(stdout) as { delta: { srcAmount: string }; market: { srcAmount: string }; chosen: string }
    expect(quote.delta.srcAmount).toBe('1.5')
    expect(quote.market.srcAmount).toBe('1.5')
    expect(['delta', 'market']).toContain(quote.chosen)
  })

  it('swaps through Market: approves the router, broadcasts, and reports what moved on-chain', async () => {
    const before = { usdc: await balanceOf('USDC', 2), weth: await balanceOf('WETH', 2) }
    const { code, stdout, stderr } = await deltaflow(
      ['swap', ...venue(2), '--sell', 'USDC', '--buy', 'WETH', '--amount', '250', '--mode', 'market', '--json'],
      key(2),
    )
    expect(code, stderr).toBe(0)
    const result = JSON.parse(stdout) as { mode: string; approvals: string[]; spent: { raw: string }; received: { raw: string } }
    expect(result.mode).toBe('market')
    expect(result.approvals).toHaveLength(1)
    expect(before.usdc - (await balanceOf('USDC', 2))).toBe(parseUnits('250', 6))
    expect(BigInt(result.spent.raw)).toBe(parseUnits('250', 6))
    expect((await balanceOf('WETH', 2)) - before.weth).toBe(BigInt(result.received.raw))
  })

  it('swaps through Delta and waits for the agents to fill the order', async () => {
    const before = { dai: await balanceOf('DAI', 3), usdc: await balanceOf('USDC', 3) }
    const { code, stdout, stderr } = await deltaflow(
      ['swap', ...venue(3), '--sell', 'DAI', '--buy', 'USDC', '--amount', '500', '--mode', 'delta', '--wait', '--json'],
      key(3),
    )
    expect(code, stderr).toBe(0)
    const result = JSON.parse(stdout) as { mode: string; status: string; spent: { raw: string }; received: { raw: string } }
    expect(result).toMatchObject({ mode: 'delta', status: 'COMPLETED' })
    expect(before.dai - (await balanceOf('DAI', 3))).toBe(parseEther('500'))
    expect((await balanceOf('USDC', 3)) - before.usdc).toBe(BigInt(result.received.raw))
  })

  it('lists, shows and reconciles the journaled Delta swap, and its balances reconcile to the wei', async () => {
    const listed = await deltaflow(['orders', '--db', journalOf(3), '--json'])
    expect(listed.code, listed.stderr).toBe(0)
    const { orders } = JSON.parse(listed.stdout) as { orders: { id: string; mode: string; status: string }[] }
    expect(orders).toHaveLength(1)
    expect(orders[0]).toMatchObject({ mode: 'delta', status: 'COMPLETED' })
    const shown = await deltaflow(['order', orders[0]?.id ?? '', '--db', journalOf(3), '--json'])
    expect(shown.code, shown.stderr).toBe(0)
    const report = JSON.parse(shown.stdout) as { history: { status: string }[]; fills: { source: string }[] }
    expect(report.history.map((change) => change.status)).toContain('COMPLETED')
    expect(report.fills.map((fill) => fill.source)).toEqual(['both'])
    const reconciled = await deltaflow(['reconcile', ...venueOnly(3), '--check-balances', '--json'], key(3))
    expect(reconciled.code, reconciled.stderr + reconciled.stdout).toBe(0)
    const { balances } = JSON.parse(reconciled.stdout) as { balances: { balanced: boolean; tokens: unknown[] } }
    expect(balances.balanced).toBe(true)
    expect(balances.tokens.length).toBeGreaterThanOrEqual(3)
    const none = await deltaflow(['orders', '--db', journalOf(3), '--status', 'PENDING', '--json'])
    expect(JSON.parse(none.stdout)).toEqual({ orders: [] })
    const bogus = await deltaflow(['orders', '--db', journalOf(3), '--status', 'DONE'])
    expect(bogus.code).toBe(2)
    expect(bogus.stderr).toMatch(/--status expects an order status .* received "DONE"/)
  })

  it('cancels an open LIMIT order of the journal and reconciles it to CANCELLED', async () => {
    const { intent, placed } = await placeOpenLimitOrder(info, { accountIndex: 6, journalFile: journalOf(6), key: 'cli-cancel' })
    expect(placed.order).toMatchObject({ mode: 'delta', status: 'PENDING' })
    const cancelled = await deltaflow(['cancel', intent.id, ...venueOnly(6), '--json'], key(6))
    expect(cancelled.code, cancelled.stderr + cancelled.stdout).toBe(0)
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ outcomes: [{ id: intent.id, outcome: 'requested' }] })
    let status = ''
    for (let attempt = 0; attempt < 20 && status !== 'CANCELLED'; attempt++) {
      await deltaflow(['reconcile', ...venueOnly(6), '--json'], key(6))
      const listed = await deltaflow(['orders', '--db', journalOf(6), '--json'])
      status = (JSON.parse(listed.stdout) as { orders: { status: string }[] }).orders[0]?.status ?? ''
    }
    expect(status).toBe('CANCELLED')
  })

  it('sells native ETH through Market without any approval', async () => {
    const { code, stdout, stderr } = await deltaflow(
      ['swap', ...venue(4), '--sell', 'ETH', '--buy', 'USDC', '--amount', '0.2', '--mode', 'market', '--json'],
      key(4),
    )
    expect(code, stderr).toBe(0)
    const result = JSON.parse(stdout) as { approvals: string[]; spent: { raw: string } }
    expect(result.approvals).toEqual([])
    expect(BigInt(result.spent.raw)).toBe(parseEther('0.2'))
  })

  it('fails with the typed error, exit code 1 (2 for a bad flag value) and no key material in its output', async () => {
    const secret = developmentAccounts[5]?.privateKey ?? ''
    const unknown = await deltaflow(['swap', ...venue(), '--sell', 'NOPE', '--buy', 'USDC', '--amount', '1', '--json'], key(5))
    expect(unknown.code).toBe(1)
    const { error } = JSON.parse(unknown.stdout) as { error: { name: string; message: string; hint: string } }
    expect(error.name).toBe('UnknownTokenError')
    expect(error.message).toMatch(/--sell NOPE: no such token on chain 1/)
    // A flag value the token cannot take is a usage error: exit 2.
    const tooPrecise = await deltaflow(['quote', ...venue(), '--sell', 'USDC', '--buy', 'WETH', '--amount', '1.0000001'], key(5))
    expect(tooPrecise.code).toBe(2)
    expect(tooPrecise.stderr).toMatch(/USDC has 6 decimals, the amount has 7/)
    for (const output of [unknown.stdout, unknown.stderr, tooPrecise.stdout, tooPrecise.stderr]) {
      expect(output).not.toContain(secret.slice(2))
    }
  })
})
