import {
  type Address,
  createPublicClient,
  decodeFunctionData,
  encodeFunctionData,
  type Hex,
  http,
  keccak256,
  parseEther,
  parseGwei,
  parseTransaction,
  zeroAddress,
} from 'viem'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { ChainClients } from '../../src/chain/chain-clients.js'
import { createIntent } from '../../src/domain/intents/create-intent.js'
import { createExecutor } from '../../src/exec/executor/executor.js'
import { createExecutorContext, type ExecutorContext } from '../../src/exec/executor/executor-context.js'
import { reconcileOrders } from '../../src/journal/reconcile/reconcile-orders.js'
import { createLogger } from '../../src/log/logger.js'
import { marketRouterAddress, nativeTokenPlaceholder } from '../../src/protocol/addresses.js'
import { createOrderEventTracker } from '../../src/runtime/order-event-tracker.js'
import { createStrategyDispatch } from '../../src/runtime/strategy-dispatch.js'
import { defineLocalChain } from '../../src/sandbox/chains/clients.js'
import { waitForLocalReceipt } from '../../src/sandbox/chains/receipt.js'
import { getContractArtifact } from '../../src/sandbox/contracts/compile.js'
import { defineStrategy } from '../../src/strategy/define-strategy.js'
import { createSafeStrategy } from '../../src/strategy/safe-strategy.js'
import { systemClock } from '../../src/time/clock.js'
import { sandboxExecutorContext } from '../helpers/executor.js'
import { marketWallet, syncPools } from '../helpers/market.js'
import { nodeRequest } from '../helpers/rpc-interceptor.js'
import { sandboxToken, useSandbox } from '../helpers/sandbox.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

const chainId = 1
const routerAbi = getContractArtifact('MarketRouter').abi
const directory = createTempDirectory('deltaflow-market-faults-')
afterAll(() => directory.cleanup())

/** Runs before the bot's Market swap reaches the node; `forward` sends it on. */
type SwapBroadcastFault = (signed: { hash: Hex; nonce: number; data: Hex }, forward: () => Promise<Response>) => Promise<Response>

const rpcBodySchema = z.object({ method: z.string(), params: z.array(z.unknown()).optional() })

/** Polls `condition` every 25 ms; fails with `what` after 800 tries (a bound for a loaded machine, not a timing check). */
async function waitUntil(what: string, condition: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 800; attempt++) {
    if (await condition()) return
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`gave up waiting until ${what}`)
}

describe('Market swap under chain faults', () => {
  const sandbox = useSandbox({ chainIds: [chainId] })
  const rpcUrl = () => sandbox().chains[0]?.rpcUrl ?? expect.unreachable('no chain')
  const rpc = (method: string, params: readonly unknown[] = []) => nodeRequest(rpcUrl(), method, params)
  const inMempool = async (hash: Hex) => (await rpc('eth_getTransactionByHash', [hash])) !== null

  afterEach(async () => {
    await rpc('evm_setAutomine', [true])
    // The other accounts' swaps went past the sandbox: its quotes must see the pools they moved.
    await syncPools(sandbox(), chainId)
  })

  /**
   * An executor context for a development account whose RPC passes the first broadcast of a Market swap (a raw
   * transaction to the router) through `fault`; everything else goes straight to the node.
   */
  async function faultyContext(accountIndex: number, journalName: string, fault?: SwapBroadcastFault): Promise<ExecutorContext> {
    const base = await sandboxExecutorContext(sandbox(), {
      accountIndex,
      journalFile: directory.path(journalName),
      settings: { preference: { mode: 'market', marginBps: 10_000 } },
    })
    let faulted = false
    const transport = http(rpcUrl(), {
      retryCount: 0,
      fetchFn: async (input, init) => {
        const forward = () => fetch(input, init)
        const call = rpcBodySchema.safeParse(JSON.parse(String(init?.body)))
        const raw = call.success && call.data.method === 'eth_sendRawTransaction' ? (call.data.params?.[0] as Hex) : undefined
        if (!fault || faulted || raw === undefined) return forward()
        const transaction = parseTransaction(raw)
        if (transaction.to?.toLowerCase() !== marketRouterAddress.toLowerCase()) return forward()
        faulted = true
        return fault({ hash: keccak256(raw), nonce: transaction.nonce ?? -1, data: transaction.data ?? '0x' }, forward)
      },
    })
    const chain = defineLocalChain(chainId, rpcUrl())
    const chains = new Map<number, ChainClients>([
      [chainId, { chainId, chain, publicClient: createPublicClient({ chain, transport, pollingInterval: 50 }), walletClient: undefined }],
    ])
    return createExecutorContext({ ...base, chains })
  }

  /** A Market sale of 2 ETH for USDC (selling the native asset only Market can take). */
  const sellEthContent = (maxSlippageBps: number) => ({
    kind: 'swap' as const,
    chainId,
    srcToken: nativeTokenPlaceholder,
    destToken: sandboxToken(sandbox(), chainId, 'USDC').address,
    amount: parseEther('2').toString(),
    side: 'SELL' as const,
    maxSlippageBps,
    maxPriceImpactPercent: 5,
  })
  const sellEth = (key: string, maxSlippageBps = 10) =>
    createIntent({ clock: systemClock, key, content: { strategy: 'probe', ...sellEthContent(maxSlippageBps) } })

  /**
   * Another account's sale of 20 ETH along the pools of the bot's swap (read from its calldata), without a minimum:
   * it moves the price the bot's swap meets far past a 10 bps slippage.
   */
  const moverSwap = (index: number, botSwap: Hex) => {
    const mover = marketWallet(sandbox(), chainId, index)
    const call = decodeFunctionData({ abi: routerAbi, data: botSwap })
    if (call.functionName !== 'swapExactAmountIn') throw new Error(`the bot's swap calls ${call.functionName}`)
    const [srcToken, destToken, , , pools] = (call.args ?? []) as readonly [Address, Address, bigint, bigint, readonly Address[]]
    const amount = parseEther('20')
    const data = encodeFunctionData({
      abi: routerAbi,
      functionName: 'swapExactAmountIn',
      args: [srcToken, destToken, amount, 0n, pools, zeroAddress, 0n],
    })
    return { mover, transaction: { to: marketRouterAddress, data, value: amount, gas: 1_000_000n } }
  }

  const reconcile = (context: ExecutorContext) =>
    reconcileOrders({
      journal: context.journal,
      api: context.api,
      chains: context.chains,
      account: context.account.address,
      clock: context.clock,
    })

  it('fails the intent with the decoded revert reason when the price moved before the swap was mined, and tells the strategy', async () => {
    const context = await faultyContext(2, 'moved.sqlite', async ({ data }, forward) => {
      const { mover, transaction } = moverSwap(3, data)
      const moved = await waitForLocalReceipt(mover, await mover.sendTransaction(transaction))
      expect(moved.status).toBe('success')
      return forward()
    })
    const executor = createExecutor(context)
    const results: { intentId: string; status: string; reason: string | null }[] = []
    const probe = defineStrategy({
      apiVersion: 1,
      name: 'probe',
      configSchema: z.object({}),
      subscriptions: () => [],
      onStart: () => ({ key: 'sell-eth', intent: sellEthContent(10) }),
      onIntentResult: (result) => {
        results.push({ intentId: result.intentId, status: result.status, reason: result.reason })
      },
    })
    const logger = createLogger({ level: 'silent' })
    const strategy = createSafeStrategy(probe, { config: {}, clock: systemClock, journal: context.journal, logger })
    const dispatch = createStrategyDispatch({
      strategies: [strategy],
      execute: (intent) => executor.execute(intent),
      tracker: createOrderEventTracker(context.journal, ['probe']),
      logger,
    })
    await dispatch.start()
    await dispatch.settle()

    expect(results).toHaveLength(1)
    const [result] = results
    expect(result).toMatchObject({ status: 'failed', reason: expect.stringMatching(/reverted on chain 1: INSUFFICIENT_OUTPUT$/) })
    const order = context.journal.listOrders()[0]
    expect(order).toMatchObject({ mode: 'market', status: 'reverted', intentId: result?.intentId })
    const [transaction, ...others] = context.journal.transactionsOf(order?.id ?? '')
    expect(others).toEqual([])
    const receipt = await context.chains.get(chainId)?.publicClient.getTransactionReceipt({ hash: transaction?.txHash as Hex })
    expect(receipt?.status).toBe('reverted')
    expect(transaction).toMatchObject({ status: 'reverted', revertReason: 'INSUFFICIENT_OUTPUT', gasUsed: receipt?.gasUsed })
    expect(context.journal.getIntent(result?.intentId ?? '')).toMatchObject({ status: 'failed', refusalReason: result?.reason })
    context.journal.close()
  })

  it('reads the revert reason when a swap ahead of it in the same block moved the price', async () => {
    const context = await faultyContext(4, 'front-run.sqlite', async ({ data }, forward) => {
      const { mover, transaction } = moverSwap(5, data)
      await rpc('evm_setAutomine', [false])
      // Higher fees: the node orders the other account's swap first in the block.
      await mover.sendTransaction({ ...transaction, maxFeePerGas: parseGwei('200'), maxPriorityFeePerGas: parseGwei('50') })
      const answer = await forward()
      await rpc('evm_mine')
      await rpc('evm_setAutomine', [true])
      return answer
    })
    const outcome = await createExecutor(context).execute(sellEth('front-run'))

    expect(outcome).toMatchObject({ status: 'failed', reason: expect.stringMatching(/: INSUFFICIENT_OUTPUT$/) })
    const [transaction] = context.journal.transactionsOf(outcome.order?.id ?? '')
    const receipt = await context.chains.get(chainId)?.publicClient.getTransactionReceipt({ hash: transaction?.txHash as Hex })
    expect(receipt).toMatchObject({ status: 'reverted', transactionIndex: 1 })
    expect(transaction).toMatchObject({ status: 'reverted', revertReason: 'INSUFFICIENT_OUTPUT' })
    expect(outcome.order?.status).toBe('reverted')
    context.journal.close()
  })

  it('sends a swap at the next free nonce when another process used the account’s nonce, and journals only its own', async () => {
    const context = await faultyContext(6, 'nonce-taken.sqlite')
    const executor = createExecutor(context)
    const first = await executor.execute(sellEth('first', 100))
    expect(first.status, first.reason).toBe('accepted')
    // Another process with the same key sends a transaction the queue does not know of.
    const other = marketWallet(sandbox(), chainId, 6)
    const foreign = await other.sendTransaction({ to: other.account.address, value: 1n })
    await waitForLocalReceipt(other, foreign)

    const second = await executor.execute(sellEth('second', 100))
    await reconcile(context)

    expect(second.status, second.reason).toBe('accepted')
    const order = context.journal.getOrder({ id: second.order?.id ?? '' })
    expect(order?.status).toBe('mined')
    expect(context.journal.fillsOf(order?.id ?? '')).toHaveLength(1)
    const transactions = context.journal.transactionsOf(order?.id ?? '')
    expect(transactions.map((transaction) => transaction.status)).toEqual(['mined'])
    const sent = await other.getTransaction({ hash: transactions[0]?.txHash as Hex })
    expect(sent.nonce).toBe((await other.getTransaction({ hash: foreign })).nonce + 1)
    const journaled = context.journal.transactionsFrom(context.account.address, chainId).map((transaction) => transaction.txHash)
    expect(journaled).not.toContain(foreign)
    context.journal.close()
  })

  it('signs a swap again when another process takes its nonce just before the broadcast, and journals the refused one as dropped', async () => {
    const other = marketWallet(sandbox(), chainId, 7)
    let foreign: Hex | undefined
    const context = await faultyContext(7, 'nonce-race.sqlite', async ({ nonce }, forward) => {
      foreign = await other.sendTransaction({ to: other.account.address, value: 1n, nonce })
      await waitForLocalReceipt(other, foreign)
      return forward()
    })
    const outcome = await createExecutor(context).execute(sellEth('raced', 100))
    await reconcile(context)

    expect(outcome.status, outcome.reason).toBe('accepted')
    const order = context.journal.getOrder({ id: outcome.order?.id ?? '' })
    expect(order?.status).toBe('mined')
    expect(context.journal.fillsOf(order?.id ?? '')).toHaveLength(1)
    const [refused, carried, ...rest] = context.journal.transactionsOf(order?.id ?? '').sort((a, b) => a.nonce - b.nonce)
    expect(rest).toEqual([])
    expect(refused).toMatchObject({ status: 'dropped', revertReason: expect.stringMatching(/refused it \(nonce too low\)/) })
    expect(carried).toMatchObject({ status: 'mined', nonce: (refused?.nonce ?? -1) + 1 })
    expect(context.journal.getTransaction(foreign ?? '0x')).toBeUndefined()
    context.journal.close()
  })

  it('broadcasts a swap the node dropped again, once, and journals it mined', async () => {
    let dropped: Hex | undefined
    const context = await faultyContext(8, 'dropped.sqlite', async ({ hash }, forward) => {
      await rpc('evm_setAutomine', [false])
      const answer = await forward()
      await rpc('anvil_dropTransaction', [hash])
      dropped = hash
      return answer
    })
    const execution = createExecutor(context).execute(sellEth('dropped', 100))
    await waitUntil('the swap was dropped', async () => dropped !== undefined)
    await waitUntil('the queue broadcast the swap again', () => inMempool(dropped as Hex))
    await rpc('evm_mine')
    const outcome = await execution
    await reconcile(context)

    expect(outcome.status, outcome.reason).toBe('accepted')
    expect(context.journal.getOrder({ id: outcome.order?.id ?? '' })?.status).toBe('mined')
    const transactions = context.journal.transactionsOf(outcome.order?.id ?? '')
    expect(transactions.map((transaction) => [transaction.txHash, transaction.status])).toEqual([[dropped, 'mined']])
    context.journal.close()
  })

  it('fails the intent and journals the swap dropped when the node dropped it and another process took its nonce', async () => {
    const other = marketWallet(sandbox(), chainId, 9)
    let foreign: Hex | undefined
    const context = await faultyContext(9, 'replaced.sqlite', async ({ nonce }, forward) => {
      await rpc('evm_setAutomine', [false])
      const answer = await forward()
      // The other process replaces it in the mempool with higher fees, and a block is mined.
      foreign = await other.sendTransaction({
        to: other.account.address as Address,
        value: 1n,
        nonce,
        maxFeePerGas: parseGwei('500'),
        maxPriorityFeePerGas: parseGwei('100'),
      })
      await rpc('evm_mine')
      await rpc('evm_setAutomine', [true])
      return answer
    })
    const outcome = await createExecutor(context).execute(sellEth('replaced', 100))

    expect(outcome).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(/TransactionDroppedError: .* went to another transaction/),
    })
    expect(outcome.order?.status).toBe('dropped')
    const transactions = context.journal.transactionsOf(outcome.order?.id ?? '')
    expect(transactions.map((transaction) => transaction.status)).toEqual(['dropped'])
    expect(context.journal.getTransaction(foreign ?? '0x')).toBeUndefined()
    context.journal.close()
  })
})
