import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { privateKeyToAccount } from 'viem/accounts'
import { createApiClient } from '../../src/api/client.js'
import { buildDeltaOrder } from '../../src/api/delta/build-delta-order.js'
import { getDeltaPrices } from '../../src/api/delta/get-delta-prices.js'
import { getMarketPrices } from '../../src/api/market/get-market-prices.js'
import { signDeltaOrder } from '../../src/chain/sign-delta-order.js'
import { createIntent } from '../../src/domain/intents/create-intent.js'
import { chooseMode } from '../../src/exec/mode/choose-mode.js'
import { checkRiskLimits } from '../../src/exec/risk/check-risk-limits.js'
import { intentSpend } from '../../src/exec/risk/intent-spend.js'
import { riskLimitsSchema } from '../../src/exec/risk/risk-limits-schema.js'
import { openJournal } from '../../src/journal/journal.js'
import { deltaAddress } from '../../src/protocol/addresses.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { loadContractArtifacts } from '../../src/sandbox/contracts/compile.js'
import { startSandbox } from '../../src/sandbox/start-sandbox.js'
import { systemClock } from '../../src/time/clock.js'
import { type BenchResult, summarize } from './summary.js'

type BenchOptions = { intents?: number; priorIntents?: number }

/**
 * Intent → signed Delta order, excluding HTTP: the price, the Market route and the build answer are fetched once from
 * a sandbox; each timed iteration then validates a new intent (deterministic id), checks the risk limits against the
 * journal's usage, chooses the mode, journals the intent and the choice, checks and signs the built order (a fresh
 * nonce each time) and journals the signed order: everything the executor does between a strategy's intent and the
 * POST, on a journal already holding `priorIntents` intents.
 */
export async function benchIntentToSigned({ intents = 3_000, priorIntents = 10_000 }: BenchOptions = {}): Promise<BenchResult> {
  loadContractArtifacts()
  const sandbox = await startSandbox({ chainIds: [1], market: 'still' })
  const directory = mkdtempSync(join(tmpdir(), 'deltaflow-bench-intent-'))
  try {
    const key = developmentAccounts[1]?.privateKey
    if (!key) throw new Error('development account missing')
    const account = privateKeyToAccount(key)
    const api = createApiClient({ baseUrl: sandbox.url })
    const usdc = sandbox.tokens.find((token) => token.chainId === 1 && token.symbol === 'USDC')
    const weth = sandbox.tokens.find((token) => token.chainId === 1 && token.symbol === 'WETH')
    if (!usdc || !weth) throw new Error('sandbox tokens missing')
    const query = { chainId: 1, srcToken: usdc.address, destToken: weth.address, amount: 1_000_000_000n, srcDecimals: 6, destDecimals: 18 }
    const price = await getDeltaPrices(api, { ...query, side: 'SELL', userAddress: account.address })
    const route = await getMarketPrices(api, { ...query, network: 1, side: 'SELL', userAddress: account.address })
    const built = await buildDeltaOrder(api, { route: price.route, side: 'SELL', owner: account.address, deadline: 4_000_000_000 })
    // Nothing below talks to the sandbox: stopping it keeps its engine and block polling out of the timings.
    await sandbox.stop()

    const journal = openJournal({ file: join(directory, 'journal.sqlite'), clock: systemClock })
    const limits = riskLimitsSchema.parse({
      maxSlippageBps: 300,
      maxPriceImpactPercent: 20,
      maxOpenOrdersPerStrategy: 1_000_000,
      tokens: { [`1:${usdc.address}`]: { dailyBudget: 10n ** 30n, totalBudget: 10n ** 30n, minTradeSize: 1n } },
    })
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
    for (let index = 0; index < priorIntents; index++) {
      const intent = createIntent({ content: content(index), key: `prior-${index}`, clock: systemClock })
      journal.recordIntent({
        id: intent.id,
        strategy: 'bench',
        kind: 'swap',
        intent,
        spend: { token: `1:${usdc.address.toLowerCase()}`, amount: 1n },
      })
    }
    const delta = { chainId: 1, address: deltaAddress, mode: 'delta' as const }
    const samples: number[] = []
    const signingSamples: number[] = []
    for (let index = 0; index < intents; index++) {
      const started = performance.now()
      let journalMs = 0
      const intent = createIntent({ content: content(index), key: `bench-${index}`, clock: systemClock })
      const check = checkRiskLimits({
        intent,
        limits,
        usage: journal.riskUsage({ strategies: ['bench'] }),
        now: systemClock.now(),
        quote: {},
      })
      if (!check.allowed) throw new Error(check.reason)
      const choice = chooseMode({ side: 'SELL', delta: { price }, market: { route }, preference: { mode: 'delta', marginBps: 5 } })
      const spend = intentSpend(intent, {})
      let writeStarted = performance.now()
      journal.recordIntent({
        id: intent.id,
        strategy: intent.strategy,
        kind: intent.kind,
        intent,
        spend: spend && 'amount' in spend ? { token: spend.token, amount: spend.amount } : undefined,
      })
      journal.recordModeChoice({
        intentId: intent.id,
        mode: choice.mode,
        reason: choice.reason,
        explanation: choice.explanation,
        figures: choice,
      })
      const toSign = { ...built.toSign, value: { ...built.toSign.value, nonce: String(1_000_000 + index) } }
      const signed = await signDeltaOrder(account, { toSign, delta })
      writeStarted = performance.now()
      journal.recordSignedOrder({
        id: `${intent.id}/0`,
        intentId: intent.id,
        mode: 'delta',
        account: account.address,
        chainId: 1,
        orderHash: signed.orderHash,
        nonce: BigInt(1_000_000 + index),
        deadline: 4_000_000_000,
        srcToken: usdc.address,
        destToken: weth.address,
        srcAmount: 1_000_000_000n,
        destAmount: 1n,
        side: 'SELL',
        signedPayload: { order: toSign.value, signature: signed.signature },
      })
      journalMs += performance.now() - writeStarted
      samples.push(performance.now() - started)
      signingSamples.push(performance.now() - started - journalMs)
    }
    journal.close()
    // The first iterations pay for JIT compilation; the figure is the steady state.
    const steady = (values: number[]) => values.slice(Math.floor(intents / 10))
    const signing = summarize('signing path', 'ms', steady(signingSamples))
    return summarize('intent → signed and journaled Delta order (no HTTP)', 'ms', steady(samples), {
      target: 'p99 <= 2 ms',
      'without the three journal writes': `median ${signing.median.toFixed(2)} ms, p99 ${signing.p99.toFixed(2)} ms`,
      intents: String(intents),
      'prior intents': String(priorIntents),
    })
  } finally {
    await sandbox.stop()
    rmSync(directory, { recursive: true, force: true })
  }
}
