import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { Address } from 'viem'
import { afterAll, describe, expect, it } from 'vitest'
import { createApiClient } from '../../src/api/client.js'
import { getDeltaOrders } from '../../src/api/delta/get-delta-orders.js'
import { checkConservation } from '../../src/journal/conservation.js'
import { openJournal } from '../../src/journal/journal.js'
import { systemClock } from '../../src/time/clock.js'
import { sandboxToken } from '../helpers/otc.js'
import { useSandbox } from '../helpers/sandbox.js'
import { createTempDirectory } from '../helpers/temp-directory.js'
import { reliabilityAccount, type WorkerConfig } from './reliability-plan.js'

const workerScript = fileURLToPath(new URL('./reliability-worker.ts', import.meta.url))
const directory = createTempDirectory('deltaflow-reliability-')
afterAll(() => directory.cleanup())

type Run = { lines: string[]; exitCode: number | null; signal: NodeJS.Signals | null }

/** Starts the worker; with `killAfterLines`, SIGKILLs it that many lines plus a random few ms into its run. */
function runWorker(config: WorkerConfig, kill?: { afterLines: number; delayMs: number }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', workerScript, JSON.stringify(config)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const lines: string[] = []
    let stderr = ''
    let buffer = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString()
      const parts = buffer.split('\n')
      buffer = parts.pop() ?? ''
      lines.push(...parts)
      if (kill && lines.length >= kill.afterLines) setTimeout(() => child.kill('SIGKILL'), kill.delayMs)
    })
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.on('error', reject)
    child.on('exit', (exitCode, signal) => {
      if (signal === null && exitCode !== 0) reject(new Error(`worker exited with ${exitCode}: ${stderr.slice(-2000)}`))
      else resolve({ lines, exitCode, signal })
    })
  })
}

/** Deterministic pseudo-random numbers (the test must be repeatable). */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0
    return state / 2 ** 32
  }
}

describe('reliability under SIGKILL', () => {
  const sandbox = useSandbox()
  const trials = Number(process.env.DELTAFLOW_RELIABILITY_TRIALS ?? 50)

  /** Half the trials, in one lane: its own account and journal, killed and restarted run after run. */
  async function runLane(accountIndex: number, firstTrial: number, count: number, seed: number) {
    const running = sandbox()
    const config: Omit<WorkerConfig, 'trials' | 'settle' | 'reconcile'> = {
      url: running.url,
      chains: running.chains.map((chain) => ({ chainId: chain.chainId, rpcUrl: chain.rpcUrl })),
      journalFile: directory.path(`reliability-${accountIndex}.sqlite`),
      accountIndex,
      tokens: { usdc: sandboxToken(running, 1, 'USDC'), weth: sandboxToken(running, 1, 'WETH') },
    }
    const random = seededRandom(seed)
    let killed = 0
    for (let trial = firstTrial; trial < firstTrial + count; trial++) {
      // Lines: "recovered", one per intent (three per trial, six with the previous one), "reconciled", "done". Kill after
      // 0..7 of them, a few ms later: during recovery, a submission, a broadcast or the reconciliation.
      const afterLines = Math.floor(random() * 8)
      const run = await runWorker(
        { ...config, trials: trial === firstTrial ? [trial] : [trial - 1, trial], reconcile: true, settle: false },
        { afterLines, delayMs: Math.floor(random() * 40) },
      )
      if (run.signal === 'SIGKILL') killed++
      if (process.env.DELTAFLOW_RELIABILITY_TRACE) console.log(accountIndex, trial, run.signal, run.lines.join(' | '))
    }
    const final = await runWorker({ ...config, trials: [firstTrial + count - 1], reconcile: false, settle: true })
    expect(final.lines.at(-1)).toMatch(/^done/)
    return { killed, journalFile: config.journalFile, account: reliabilityAccount(accountIndex).address }
  }

  /** What the lane's journal says against what the venue and the chain hold. */
  async function checkLane({ journalFile, account }: { journalFile: string; account: Address }) {
    const running = sandbox()
    const journal = openJournal({ file: journalFile, clock: systemClock })
    const api = createApiClient({ baseUrl: running.url })
    const venueHashes: string[] = []
    for (let page = 1; ; page++) {
      const list = await getDeltaOrders(api, { userAddress: account, page, limit: 1000 })
      venueHashes.push(...list.data.map((order) => order.orderHash.toLowerCase()))
      if (!list.hasMore) break
    }
    const journalDelta = journal.listOrders({ mode: 'delta' })
    const journalHashes = new Set(journalDelta.map((order) => order.orderHash))
    // No venue order the journal does not know, none twice, and every submitted journal order at the venue.
    expect(venueHashes.filter((hash) => !journalHashes.has(hash))).toEqual([])
    expect(new Set(venueHashes).size).toBe(venueHashes.length)
    const submitted = journalDelta.filter((order) => order.submitted).map((order) => order.orderHash)
    expect(new Set(venueHashes)).toEqual(new Set(submitted))
    // Every transaction the account sent is journaled, and nothing journaled as mined is missing on chain.
    const client = running.venue.chains.get(1)?.clients.publicClient
    const sentOnChain = await client?.getTransactionCount({ address: account })
    const journaled = journal.transactionsFrom(account, 1).filter((tx) => tx.status !== 'dropped')
    const journaledNonces = new Set(journaled.map((tx) => tx.nonce))
    // Transactions before the journal's first baseline (the sandbox's own funding of the account) are not deltaflow's.
    const firstBlock = Math.min(...journal.balanceBaselinesOf(account).map((baseline) => baseline.blockNumber))
    const startNonce = await client?.getTransactionCount({ address: account, blockNumber: BigInt(firstBlock) })
    const missing = Array.from({ length: Number(sentOnChain) }, (_, nonce) => nonce).filter(
      (nonce) => nonce >= Number(startNonce) && !journaledNonces.has(nonce),
    )
    expect(missing).toEqual([])
    expect(journaledNonces.size).toBe(Number(sentOnChain) - Number(startNonce))
    // Balances: everything the journal says moved equals what moved on chain, to the wei.
    expect(journal.openOrders()).toEqual([])
    const chains = new Map([...running.venue.chains].map(([chainId, chain]) => [chainId, { publicClient: chain.clients.publicClient }]))
    const balances = await checkConservation({ journal, account, chains })
    expect(balances.tokens.map((token) => [token.token, token.difference])).toEqual(balances.tokens.map((token) => [token.token, 0n]))
    expect(balances.balanced).toBe(true)
    journal.close()
  }

  it('leaves no duplicate and no missing order, and balances reconcile, after 50 killed runs', { timeout: 400_000 }, async () => {
    const half = Math.ceil(trials / 2)
    const lanes = await Promise.all([runLane(6, 0, half, 20261121), runLane(7, half, trials - half, 20261122)])
    expect(lanes.reduce((sum, lane) => sum + lane.killed, 0)).toBeGreaterThanOrEqual(trials * 0.9)
    for (const lane of lanes) await checkLane(lane)
  })
})
