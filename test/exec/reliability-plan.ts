import type { Address } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createIntent } from '../../src/domain/intents/create-intent.js'
import type { Intent } from '../../src/domain/intents/intent-schema.js'
import type { ExecutorContext } from '../../src/exec/executor/executor-context.js'
import { reconcileOrders } from '../../src/journal/reconcile/reconcile-orders.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { systemClock } from '../../src/time/clock.js'

export type WorkerConfig = {
  url: string
  chains: { chainId: number; rpcUrl: string }[]
  journalFile: string
  accountIndex: number
  tokens: { usdc: Address; weth: Address }
  /** Trials whose intents this run executes (the previous trial's again, to finish what a kill interrupted). */
  trials: number[]
  /** Reconcile once after executing (a kill may land in it). */
  reconcile: boolean
  /** Reconcile until every order is final. */
  settle: boolean
}

/** The development account of a lane: lanes run side by side, each with its own account and journal. */
export function reliabilityAccount(accountIndex: number) {
  const key = developmentAccounts[accountIndex]?.privateKey
  if (!key) throw new Error('development account missing')
  return privateKeyToAccount(key)
}

/** Each trial: two Delta swaps and one Market swap, amounts varying by trial (deterministic ids from the trial). */
export function reliabilityIntents(tokens: WorkerConfig['tokens'], trial: number): Intent[] {
  const common = { strategy: 'reliability', chainId: 1, side: 'SELL', maxSlippageBps: 200, maxPriceImpactPercent: 10 } as const
  const swap = (key: string, fields: Record<string, unknown>) =>
    createIntent({ clock: systemClock, key: `${trial}-${key}`, content: { ...common, kind: 'swap', ...fields } })
  return [
    swap('delta-usdc', { srcToken: tokens.usdc, destToken: tokens.weth, amount: String(50_000_000 + trial), mode: 'delta' }),
    swap('market-usdc', { srcToken: tokens.usdc, destToken: tokens.weth, amount: String(20_000_000 + trial), mode: 'market' }),
    swap('delta-weth', { srcToken: tokens.weth, destToken: tokens.usdc, amount: String(10n ** 16n + BigInt(trial)), mode: 'delta' }),
  ]
}

/** Reconciles until every order of the journal is final (or a minute passes), printing each pass. */
export async function reconcileUntilSettled({ context, step }: { context: ExecutorContext; step: (text: string) => void }): Promise<void> {
  const { journal, api, chains, account, clock } = context
  const until = clock.now() + 60_000
  for (let pass = 1; ; pass++) {
    const report = await reconcileOrders({ journal, api, chains, account: account.address, clock })
    const open = journal.openOrders().length
    step(`reconciled pass ${pass}: ${report.statusChanges} changes, ${report.fills.recorded} fills, ${open} open`)
    if (open === 0 || clock.now() > until) return
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
}
