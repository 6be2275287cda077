import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { constants, PerformanceObserver } from 'node:perf_hooks'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createApiClient } from '../../src/api/client.js'
import { type BuildDeltaOrderReturnType, buildDeltaOrder } from '../../src/api/delta/build-delta-order.js'
import { getContracts } from '../../src/api/resources/get-contracts.js'
import type { DeploymentContracts } from '../../src/chain/deployment.js'
import { localAccount } from '../../src/chain/local-account.js'
import { resolveSpender } from '../../src/chain/spender.js'
import { createIntent } from '../../src/domain/intents/create-intent.js'
import type { Intent } from '../../src/domain/intents/intent-schema.js'
import { parseIntent } from '../../src/domain/intents/parse-intent.js'
import { orderIdOf } from '../../src/domain/order-id.js'
import { acceptedIntentRecord } from '../../src/exec/executor/accepted-intent.js'
import { type DeltaOrderPlan, prepareDeltaOrder, signAndRecordDeltaOrder } from '../../src/exec/executor/delta-order-flow.js'
import { deterministicNonce } from '../../src/exec/executor/order-identity.js'
import { priceImpactPercent } from '../../src/exec/executor/price-impact.js'
import { storedDeltaPayloadOf } from '../../src/exec/executor/submit-stored.js'
import { chooseMode } from '../../src/exec/mode/choose-mode.js'
import { quoteTrade } from '../../src/exec/quote-trade.js'
import { checkRiskLimits } from '../../src/exec/risk/check-risk-limits.js'
import type { RiskQuote } from '../../src/exec/risk/intent-spend.js'
import { riskLimitsSchema } from '../../src/exec/risk/risk-limits-schema.js'
import { type Journal, openJournal } from '../../src/journal/journal.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { loadContractArtifacts } from '../../src/sandbox/contracts/compile.js'
import { startSandbox } from '../../src/sandbox/start-sandbox.js'
import { systemClock } from '../../src/time/clock.js'
import { type BenchResult, median, summarize } from './summary.js'

type BenchOptions = {
  intents?: number
  /** Settled intents (each with a completed order) already in the journal. */
  priorIntents?: number
  /** Orders of the strategy still open when an intent comes (submitted, not settled): each timed order settles this many intents later. */
  openOrders?: number
  /** Orders between two runs of the reference signatures. */
  block?: number
}

/** Goals of the signing tail: p99 of the path, and its median against the bare signature of the same run. */
const goals = { p99Ms: 2, medianRatio: 2.5 }

/**
 * Intent → signed and journaled Delta order, excluding the network: the quotes, the deployment and one built order per
 * intent (with the intent's deterministic nonce, as the executor builds it) are fetched from a sandbox first. Each timed
 * iteration then runs what the executor does between a strategy's intent and the POST, in its order
 * (src/exec/executor/executor.ts and delta-order-flow.ts): the strategy's intent created, parsed again by `execute`,
 * looked up in the journal, the early risk check, the mode choice over the quotes, the full risk check with the quote,
 * the intent and the choice journaled, the order's nonce, baselines and outstanding amount, the built order checked
 * against the plan and its hash, signed, journaled, and its payload read back for the POST.
 *
 * The account is the bot's (localAccount: libsecp256k1 in WebAssembly). The bare signature (that account signing the
 * same order's digest, viem's JavaScript signature of it, and viem's signTypedData of the same typed data) is timed in
 * the same run, in blocks between the path's: after every `block` orders, each reference signs those orders once. Both
 * see the same machine within a block's time (about a second), and the collections in a block are mostly its own
 * garbage's. The path allocates ~90 KB an order, the references ~520 KB together (V8's sampling heap profiler, objects
 * collected included): a block of 500 path orders fills the 16 MB young generation two or three times over, so the
 * path's tail holds its own collections, and only the one a reference block left half full falls into it from outside.
 * Blocks of 50 (4 MB of the path's, 26 MB of the references') had the references' collections land in the path's
 * samples: 12–26 of 2,700 path samples overlapped a pause (6–17 with blocks of 500), around the 1 % the p99 sits at,
 * and the p99 was 1.4–3.2 ms instead of 1.2–1.4.
 */
export async function benchIntentToSigned({
  intents = 3_000,
  priorIntents = 10_000,
  openOrders = 20,
  block = 500,
}: BenchOptions = {}): Promise<BenchResult> {
  loadContractArtifacts()
  const sandbox = await startSandbox({ chainIds: [1], market: 'still' })
  const directory = mkdtempSync(join(tmpdir(), 'deltaflow-bench-intent-'))
  let journal: Journal | undefined
  try {
    const key = developmentAccounts[1]?.privateKey
    if (!key) throw new Error('development account missing')
    const account = localAccount(key)
    const javascriptAccount = privateKeyToAccount(key)
    const api = createApiClient({ baseUrl: sandbox.url, rateLimit: false })
    const usdc = sandbox.tokens.find((token) => token.chainId === 1 && token.symbol === 'USDC')
    const weth = sandbox.tokens.find((token) => token.chainId === 1 && token.symbol === 'WETH')
    if (!usdc || !weth) throw new Error('sandbox tokens missing')
    const contracts: DeploymentContracts = Object.fromEntries((await getContracts(api)).chains)
    const deadline = Math.floor(Date.now() / 1000) + 3_600
    const quotes = await quoteTrade(api, {
      chainId: 1,
      destChainId: 1,
      srcToken: { address: usdc.address, decimals: 6 },
      destToken: { address: weth.address, decimals: 18 },
      amount: 1_000_000_000n,
      side: 'SELL',
      mode: 'all',
      userAddress: account.address,
    })
    if (!quotes.delta || !('price' in quotes.delta) || !quotes.market || !('route' in quotes.market))
      throw new Error('sandbox quotes missing')
    const deltaPrice = quotes.delta.price
    const content = (index: number) => ({
      strategy: 'bench',
      kind: 'swap',
      chainId: 1,
      srcToken: usdc.address,
      destToken: weth.address,
      amount: String(1_000_000_000 + index),
      side: 'SELL',
      maxSlippageBps: 100,
      maxPriceImpactPercent: 5,
    })
    // Each intent's order, built by the sandbox as the executor would ask for it (its own nonce and hash).
    const builds: BuildDeltaOrderReturnType[] = []
    for (let index = 0; index < intents; index++) {
      const intent = createIntent({ content: content(index), key: `bench-${index}`, clock: systemClock })
      const nonce = deterministicNonce(account.address, orderIdOf(intent.id), 128)
      builds.push(
        await buildDeltaOrder(api, {
          slippage: intent.kind === 'swap' ? intent.maxSlippageBps : 0,
          route: deltaPrice.route,
          side: 'SELL',
          owner: account.address,
          beneficiary: account.address,
          deadline,
          nonce,
          permit: '0x',
        }),
      )
    }
    // Nothing below talks to the sandbox: stopping it keeps its engine and block polling out of the timings.
    await sandbox.stop()

    // Opened as the bot opens its journal: checkpoints on a thread of their own.
    const opened = openJournal({ file: join(directory, 'journal.sqlite'), clock: systemClock, checkpoints: 'background' })
    journal = opened
    const limits = riskLimitsSchema.parse({
      maxSlippageBps: 300,
      maxPriceImpactPercent: 20,
      maxOpenOrdersPerStrategy: 1_000,
      tokens: { [`1:${usdc.address}`]: { dailyBudget: 10n ** 30n, totalBudget: 10n ** 30n, minTradeSize: 1n } },
    })
    // The signed order's journal write, timed on its own inside the path: with the intent's, the two transactions
    // that let a crash neither lose nor duplicate an order.
    let orderWriteMs = 0
    const timedJournal: Journal = {
      ...opened,
      // Only the call is wrapped: the path calls the transaction itself, never its variants (deferred, immediate, …).
      recordSignedOrder: ((parameters: Parameters<Journal['recordSignedOrder']>[0]) => {
        const started = performance.now()
        const recorded = opened.recordSignedOrder(parameters)
        orderWriteMs += performance.now() - started
        return recorded
      }) as Journal['recordSignedOrder'],
    }
    const context = { journal: timedJournal, account, contracts, chains: new Map() }
    const settle = (orderId: string) => {
      opened.markSubmitted(orderId, { venueId: `venue-${orderId}` })
      opened.recordStatus({ orderId, status: 'COMPLETED', reason: 'venue' })
      opened.completeIntent(opened.getOrder({ id: orderId })?.intentId ?? '')
    }
    // A journal with history: settled intents and orders, the balance baselines, and `openOrders` orders in flight.
    const digestOf = (index: number) => `0x${(index + 1).toString(16).padStart(64, '0')}` as const
    for (let index = 0; index < priorIntents + openOrders; index++) {
      const intent = createIntent({ content: content(index), key: `prior-${index}`, clock: systemClock })
      opened.recordIntent({
        id: intent.id,
        strategy: 'bench',
        kind: 'swap',
        intent,
        spend: { token: `1:${usdc.address.toLowerCase()}`, amount: 1n },
      })
      opened.recordSignedOrder({
        id: orderIdOf(intent.id),
        intentId: intent.id,
        mode: 'delta',
        account: account.address,
        chainId: 1,
        orderHash: digestOf(index),
        nonce: BigInt(index),
        deadline,
        srcToken: usdc.address,
        destToken: weth.address,
        srcAmount: 1n,
        destAmount: 1n,
        side: 'SELL',
        signedPayload: { order: {}, signature: '0x' },
      })
      if (index < priorIntents) settle(orderIdOf(intent.id))
      else opened.markSubmitted(orderIdOf(intent.id), { venueId: `venue-${index}` })
    }
    for (const token of [usdc.address, weth.address, '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee']) {
      opened.recordBalanceBaseline({ chainId: 1, account: account.address, token: token.toLowerCase(), amount: 0n, blockNumber: 1 })
    }
    const riskCheck = (intent: Intent, quote: RiskQuote | undefined) => {
      const now = systemClock.now()
      return checkRiskLimits({ intent, limits, usage: opened.riskUsage({ strategies: [intent.strategy], now }), now, quote })
    }

    // Garbage collections while the loop runs, to tell a pause from the path's own work (detail only: the figures above
    // are the samples as timed).
    const collections: { start: number; end: number; major: boolean }[] = []
    const gcObserver = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const kind = (entry as { detail?: { kind?: number } }).detail?.kind
        collections.push({
          start: entry.startTime,
          end: entry.startTime + entry.duration,
          major: kind !== constants.NODE_PERFORMANCE_GC_MINOR,
        })
      }
    })
    gcObserver.observe({ entryTypes: ['gc'] })
    const pathSpans: [number, number][] = []
    const samples: number[] = []
    const signingSamples: number[] = []
    const writeSamples: number[] = []
    const orderWriteSamples: number[] = []
    const restSamples: number[] = []
    const bareSamples: number[] = []
    const javascriptSamples: number[] = []
    const typedDataSamples: number[] = []
    const signed: { digest: Hex; built: BuildDeltaOrderReturnType }[] = []
    const inFlight: string[] = []
    for (let index = 0; index < intents; index++) {
      const built = builds[index] as BuildDeltaOrderReturnType
      let writeMs = 0
      orderWriteMs = 0
      const timeWrite = <T>(write: () => T): T => {
        const started = performance.now()
        const result = write()
        writeMs += performance.now() - started
        return result
      }
      const started = performance.now()
      // The strategy's output.
      const created = createIntent({ content: content(index), key: `bench-${index}`, clock: systemClock })
      // executor.execute: parsed again, looked up, checked early.
      const intent = parseIntent(created)
      if (intent.kind !== 'swap') throw new Error('a swap intent expected')
      if (opened.getIntent(intent.id) || opened.getOrder({ id: orderIdOf(intent.id) })) throw new Error('intent already journaled')
      const early = riskCheck(intent, undefined)
      if (!early.allowed && early.limit !== 'quoteRequired') throw new Error(early.reason)
      // priceSwap, over the quotes fetched above.
      resolveSpender({ contracts, chainId: intent.chainId, mode: 'delta' })
      resolveSpender({ contracts, chainId: intent.chainId, mode: 'market' })
      const choice = chooseMode({
        side: intent.side,
        delta: quotes.delta,
        market: quotes.market,
        preference: { mode: 'delta', marginBps: 5 },
      })
      const riskQuote = { srcAmount: deltaPrice.route.origin.input.amount, priceImpactPercent: priceImpactPercent({ delta: deltaPrice }) }
      // accept: the full check with the quote, then the intent journaled with its spend and its mode choice (one
      // transaction), which is then the mode.
      const modeChoice = {
        mode: choice.mode,
        reason: choice.reason,
        explanation: choice.explanation,
        figures: { ...choice, serviceChoice: quotes.chosen },
      }
      if (opened.getIntent(intent.id)) throw new Error('intent already journaled')
      const check = riskCheck(intent, riskQuote)
      if (!check.allowed) throw new Error(check.reason)
      timeWrite(() => opened.recordIntent(acceptedIntentRecord(intent, riskQuote, modeChoice)))
      if (choice.mode !== 'delta') throw new Error('the bench expects Delta to be chosen')
      const plan: DeltaOrderPlan = {
        intent,
        price: deltaPrice,
        chainId: intent.chainId,
        destChainId: intent.chainId,
        srcToken: intent.srcToken,
        destToken: intent.destToken,
        beneficiary: account.address,
        side: intent.side,
        deadline,
        build: { slippage: intent.maxSlippageBps },
        permitPreference: 'onchain',
        submit: { type: 'MARKET', partiallyFillable: false },
      }
      // executeDeltaOrder: (approval and build over the network) then the signed order journaled, read for the POST.
      if (opened.getOrder({ id: orderIdOf(intent.id) })) throw new Error('order already journaled')
      const ground = await prepareDeltaOrder(context, plan)
      const signingStarted = performance.now()
      const order = await signAndRecordDeltaOrder(context, plan, ground, { built, permit: undefined })
      const signingMs = performance.now() - signingStarted
      storedDeltaPayloadOf(order)
      const elapsed = performance.now() - started
      samples.push(elapsed)
      pathSpans.push([started, started + elapsed])
      signingSamples.push(signingMs)
      writeSamples.push(writeMs)
      orderWriteSamples.push(orderWriteMs)
      restSamples.push(elapsed - writeMs - signingMs)

      // The bare signatures of the block's orders, once it is full: the digest by the account, the digest by viem's
      // JavaScript signer, then viem's typed-data signing.
      signed.push({ digest: order.orderHash as Hex, built })
      if (signed.length === block || index === intents - 1) {
        for (const { digest } of signed) {
          const bareStarted = performance.now()
          await account.sign({ hash: digest })
          bareSamples.push(performance.now() - bareStarted)
        }
        for (const { digest } of signed) {
          const bareStarted = performance.now()
          await javascriptAccount.sign({ hash: digest })
          javascriptSamples.push(performance.now() - bareStarted)
        }
        for (const { built: signedBuild } of signed) {
          const { domain, types, value: message } = signedBuild.toSign
          const bareStarted = performance.now()
          await javascriptAccount.signTypedData({ domain, types, primaryType: 'Order', message } as never)
          typedDataSamples.push(performance.now() - bareStarted)
        }
        signed.length = 0
      }

      // The reconciler's part, untimed: the venue takes the order, and it settles `openOrders` intents later.
      opened.markSubmitted(order.id, { venueId: `venue-${order.id}` })
      inFlight.push(order.id)
      if (inFlight.length > openOrders) settle(inFlight.shift() as string)
    }
    // The first iterations pay for JIT compilation; the figures are the steady state.
    const steady = <T>(values: readonly T[]) => values.slice(Math.floor(intents / 10))
    // Observed entries arrive once the loop yields to the event loop.
    await new Promise((resolve) => setTimeout(resolve, 20))
    gcObserver.disconnect()
    const timedSpans = steady(pathSpans)
    const loopStart = timedSpans[0]?.[0] ?? 0
    const loopEnd = timedSpans.at(-1)?.[1] ?? 0
    const inLoop = collections.filter((gc) => gc.end >= loopStart && gc.start <= loopEnd)
    const pauses = (major: boolean) => inLoop.filter((gc) => gc.major === major).map((gc) => gc.end - gc.start)
    const pauseFigures = (values: readonly number[]) => {
      const [p50, max] = values.length === 0 ? [0, 0] : [median(values), Math.max(...values)]
      return `${values.length} (p50 ${p50.toFixed(2)} / max ${max.toFixed(2)} ms)`
    }
    const overlapping = timedSpans.filter(([from, to]) => inLoop.some((gc) => gc.start < to && gc.end > from)).length
    const distribution = (values: number[]) => {
      const sorted = steady(values).sort((a, b) => a - b)
      const at = (quantile: number) => (sorted[Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))] ?? Number.NaN).toFixed(3)
      return `p50 ${at(0.5)} / p90 ${at(0.9)} / p99 ${at(0.99)} / max ${at(1)} ms`
    }
    const path = summarize('intent → signed and journaled Delta order (no network)', 'ms', steady(samples))
    const bare = summarize('bare signature', 'ms', steady(bareSamples))
    const javascript = summarize('viem JavaScript signature', 'ms', steady(javascriptSamples))
    const typed = summarize('viem signTypedData', 'ms', steady(typedDataSamples))
    const ratio = path.median / bare.median
    const journalSamples = writeSamples.map((ms, index) => ms + (orderWriteSamples[index] ?? 0))
    const journalMedian = median(steady(journalSamples))
    const budget = goals.medianRatio * bare.median
    const met = (ok: boolean) => (ok ? 'met' : 'NOT met')
    return {
      ...path,
      notes: {
        path: distribution(samples),
        "bare signature (the account's signer, libsecp256k1 in WebAssembly, signing the digest)": distribution(bareSamples),
        "viem's JavaScript signature of the digest": distribution(javascriptSamples),
        'viem signTypedData (JavaScript) of the same typed data': distribution(typedDataSamples),
        'in the path: the built order checked and signed and journaled': distribution(signingSamples),
        'in the path: journaling the intent and its mode choice': distribution(writeSamples),
        'in the path: the rest': distribution(restSamples),
        'in the path: journaling the signed order (part of the checked, signed and journaled)': distribution(orderWriteSamples),
        'in the path: both journal transactions': distribution(journalSamples),
        [`both journal transactions against the goal's whole path (${goals.medianRatio}x bare signature)`]: `${journalMedian.toFixed(3)} of ${budget.toFixed(3)} ms (${((100 * journalMedian) / budget).toFixed(0)} %)`,
        [`goal p99 <= ${goals.p99Ms} ms`]: `${met(path.p99 <= goals.p99Ms)} (${path.p99.toFixed(3)} ms)`,
        [`goal median <= ${goals.medianRatio}x bare signature`]: `${met(ratio <= goals.medianRatio)} (${ratio.toFixed(2)}x)`,
        "median vs viem's JavaScript signature": `${(path.median / javascript.median).toFixed(2)}x`,
        'median vs signTypedData': `${(path.median / typed.median).toFixed(2)}x`,
        'GC pauses in the timed loop: scavenges': pauseFigures(pauses(false)),
        'major (mark-compact, incremental marking)': pauseFigures(pauses(true)),
        'path samples overlapping a GC pause': `${overlapping} of ${timedSpans.length}`,
        intents: String(intents),
        'prior intents': String(priorIntents),
        'open orders': String(openOrders),
        'reference blocks': `${block} orders`,
      },
    }
  } finally {
    journal?.close()
    await sandbox.stop()
    rmSync(directory, { recursive: true, force: true })
  }
}
