import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Address, erc20Abi, maxUint256, parseEther } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createApiClient } from '../../src/api/client.js'
import { createChainClients } from '../../src/chain/chain-clients.js'
import { openJournal } from '../../src/journal/journal.js'
import { reconcileOrders } from '../../src/journal/reconcile/reconcile-orders.js'
import { deltaAddress } from '../../src/protocol/addresses.js'
import { buildDeltaOrderTypedData, type DeltaOrder, hashDeltaOrder, zeroBridge } from '../../src/protocol/delta-order.js'
import { toCompactSignature } from '../../src/protocol/signature.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { sendFixtureCall } from '../../src/sandbox/chains/send.js'
import { loadContractArtifacts } from '../../src/sandbox/contracts/compile.js'
import type { StoredDeltaOrder } from '../../src/sandbox/delta/order-store.js'
import { type RunningSandbox, startSandbox } from '../../src/sandbox/start-sandbox.js'
import { systemClock } from '../../src/time/clock.js'
import { type BenchResult, summarize } from './summary.js'

type BenchOptions = {
  /** Open Delta orders of the one owner, at the venue and in the journal. */
  orders?: number
  runs?: number
}

const chainId = 1
const usdcMainnet: Address = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
const wethMainnet: Address = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'

/**
 * One reconcileOrders pass over `orders` open Delta orders of one owner: signed LIMIT orders (1 USDC for 1 WETH, far
 * from the market, so agents never fill them) placed in the sandbox's order book, and the same orders journaled as
 * submitted. Timed: reading them over real HTTP (pages of 1000) and recording each one's first venue status in the
 * journal. Each run starts from a copy of the same journal; a pass over a reconciled journal (nothing new) is reported
 * beside it, and the same figures with the sandbox's Delta engine stopped (its background work shares this process).
 */
export async function benchReconcile({ orders = 10_000, runs = 3 }: BenchOptions = {}): Promise<BenchResult> {
  loadContractArtifacts()
  const sandbox = await startSandbox({ chainIds: [chainId], market: 'still' })
  const directory = mkdtempSync(join(tmpdir(), 'deltaflow-bench-reconcile-'))
  try {
    const owner = privateKeyToAccount(developmentAccounts[1]?.privateKey ?? '0x')
    await approveDelta(sandbox, owner.address)
    const signed = await signLimitOrders(sandbox, owner, orders)
    const template = join(directory, 'template.sqlite')
    journalOrders(template, signed, placeOrders(sandbox, signed))
    const api = createApiClient({ baseUrl: sandbox.url })
    const chains = createChainClients({ chains: sandbox.chains.map((chain) => ({ chainId: chain.chainId, rpcUrls: [chain.rpcUrl] })) })
    const pass = async (file: string) => {
      const journal = openJournal({ file, clock: systemClock })
      try {
        const started = performance.now()
        const report = await reconcileOrders({ journal, api, chains, account: owner.address, clock: systemClock })
        const elapsed = performance.now() - started
        if (report.errors.length > 0) throw new Error(`reconcile reported errors: ${JSON.stringify(report.errors.slice(0, 3))}`)
        return { elapsed, report }
      } finally {
        journal.close()
      }
    }
    const run = async (label: string) => {
      const samples: number[] = []
      let last: Awaited<ReturnType<typeof pass>> | undefined
      for (let index = 0; index < runs; index++) {
        const file = join(directory, `${label}-${index}.sqlite`)
        copyFileSync(template, file)
        last = await pass(file)
        if (last.report.checked.delta !== orders || last.report.statusChanges !== orders) {
          throw new Error(
            `expected ${orders} orders checked and changed, got ${JSON.stringify(last.report.checked)} / ${last.report.statusChanges}`,
          )
        }
        samples.push(last.elapsed)
      }
      // Again over the last reconciled journal: nothing new to record.
      const unchanged = await pass(join(directory, `${label}-${runs - 1}.sqlite`))
      return { samples, last, unchanged }
    }
    const live = await run('live')
    // The same passes without the sandbox's engine, which re-evaluates every open LIMIT order every few seconds in
    // this process: what the reconciler costs when the venue runs elsewhere, as the real one does.
    await sandbox.delta.engine.stop()
    const quiet = await run('quiet')
    const median = (samples: readonly number[]) => `${summarize('', 'ms', samples).median.toFixed(0)} ms`
    return summarize('reconcileOrders pass over open Delta orders', 'ms', live.samples, {
      target: '<= 5000 ms',
      orders: String(orders),
      pages: String(live.last?.report.venueReads.pages),
      'single reads': String(live.last?.report.venueReads.single),
      'pass with nothing new': `${live.unchanged.elapsed.toFixed(0)} ms`,
      'median with the sandbox engine stopped': median(quiet.samples),
      'nothing new, engine stopped': `${quiet.unchanged.elapsed.toFixed(0)} ms`,
    })
  } finally {
    await sandbox.stop()
    rmSync(directory, { recursive: true, force: true })
  }
}

type SignedLimitOrder = { order: DeltaOrder; orderHash: `0x${string}`; signature: `0x${string}` }

async function approveDelta(sandbox: RunningSandbox, owner: Address): Promise<void> {
  const chain = sandbox.venue.chains.get(chainId)
  if (!chain) throw new Error(`chain ${chainId} is not running`)
  await sendFixtureCall(chain.clients, {
    from: owner,
    to: usdcMainnet,
    abi: erc20Abi,
    functionName: 'approve',
    args: [deltaAddress, maxUint256],
  })
}

async function signLimitOrders(
  sandbox: RunningSandbox,
  owner: ReturnType<typeof privateKeyToAccount>,
  count: number,
): Promise<SignedLimitOrder[]> {
  const deadline = BigInt(Math.floor(sandbox.venue.clock.now() / 1000) + 86_400)
  const domain = { chainId, verifyingContract: deltaAddress }
  const signed: SignedLimitOrder[] = []
  for (let index = 0; index < count; index++) {
    const order: DeltaOrder = {
      owner: owner.address,
      beneficiary: owner.address,
      srcToken: usdcMainnet,
      destToken: wethMainnet,
      srcAmount: 1_000_000n,
      destAmount: parseEther('1'),
      expectedAmount: parseEther('1'),
      deadline,
      kind: 0,
      nonce: BigInt(index + 1),
      partnerAndFee: 0n,
      permit: '0x',
      metadata: '0x',
      bridge: zeroBridge,
    }
    const signature = toCompactSignature(await owner.signTypedData(buildDeltaOrderTypedData(order, domain)))
    signed.push({ order, orderHash: hashDeltaOrder(order, domain), signature })
  }
  return signed
}

/** Adds the orders to the sandbox's book as POST /v2/delta/orders would store them (LIMIT, PENDING); returns their ids. */
function placeOrders(sandbox: RunningSandbox, signed: readonly SignedLimitOrder[]): string[] {
  const now = sandbox.venue.clock.now()
  return signed.map(({ order, orderHash, signature }, index) => {
    const stored: StoredDeltaOrder = {
      id: `00000000-0000-4000-8000-${index.toString(16).padStart(12, '0')}`,
      chainId,
      destChainId: chainId,
      status: 'PENDING',
      side: 'SELL',
      type: 'LIMIT',
      onChainOrderType: 'Order',
      orderHash,
      owner: order.owner,
      beneficiary: order.beneficiary,
      partner: 'bench',
      signed: { kind: 'Order', order },
      orderWire: JSON.parse(JSON.stringify(order, (_key, value) => (typeof value === 'bigint' ? value.toString() : value))),
      signature,
      partiallyFillable: false,
      includeAgents: undefined,
      excludeAgents: undefined,
      referrerAddress: undefined,
      filledSrcAmount: 0n,
      filledDestAmount: 0n,
      transactions: [],
      refunds: [],
      cancelQueued: false,
      auctionInFlight: false,
      createdAt: now + index,
      updatedAt: now + index,
      expiresAt: Number(order.deadline) * 1000,
      history: [],
    }
    return sandbox.delta.store.add(stored).id
  })
}

/** The journal as the executor leaves it: one intent per order, the signed order, submitted with its venue id. */
function journalOrders(file: string, signed: readonly SignedLimitOrder[], venueIds: readonly string[]): void {
  const journal = openJournal({ file, clock: systemClock })
  try {
    signed.forEach(({ order, orderHash, signature }, index) => {
      const intentId = `bench-intent-${index}`
      journal.recordIntent({ id: intentId, strategy: 'bench', kind: 'limit', intent: { index } })
      journal.recordSignedOrder({
        id: `${intentId}/0`,
        intentId,
        mode: 'delta',
        account: order.owner,
        chainId,
        orderHash,
        nonce: order.nonce,
        deadline: Number(order.deadline),
        srcToken: order.srcToken,
        destToken: order.destToken,
        srcAmount: order.srcAmount,
        destAmount: order.destAmount,
        side: 'SELL',
        signedPayload: { order, signature },
      })
      journal.markSubmitted(`${intentId}/0`, { venueId: venueIds[index] as string })
    })
  } finally {
    journal.close()
  }
}
