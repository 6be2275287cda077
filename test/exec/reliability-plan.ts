import { type Address, parseEther } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createIntent } from '../../src/domain/intents/create-intent.js'
import type { Intent } from '../../src/domain/intents/intent-schema.js'
import type { ExecutorContext } from '../../src/exec/executor/executor-context.js'
import { reconcileOrders } from '../../src/journal/reconcile/reconcile-orders.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { systemClock } from '../../src/time/clock.js'

/** Where a trial's worker kills itself: the windows where a crash can duplicate, lose or miscount something. */
export const killWindows = ['approval', 'sign-submit', 'submission', 'fill', 'cancellation'] as const
export type KillWindow = (typeof killWindows)[number]

/**
 * How the window is hit. before-send: the request is built (and the transaction or order journaled) but not sent;
 * in-flight: sent, the process dies a few ms later (or as the answer arrives, if sooner); answered: the answer arrived,
 * nobody read it.
 * Fill: the venue reported a fill, or the chain's receipt of a Delta fill or a Market swap was read, not journaled.
 */
export const killVariants = {
  approval: ['before-send', 'in-flight', 'answered'],
  'sign-submit': ['before-send'],
  submission: ['answered', 'in-flight'],
  fill: ['venue-answer', 'delta-receipt', 'market-receipt'],
  cancellation: ['answered', 'before-send', 'in-flight'],
} as const satisfies Record<KillWindow, readonly string[]>
export type KillVariant = (typeof killVariants)[KillWindow][number]

/** The steps of a trial, in order; each is one intent. */
export const trialSteps = ['delta-usdc', 'market-usdc', 'delta-weth', 'limit', 'cancel'] as const
export type TrialStep = (typeof trialSteps)[number]

/** Which steps a window aims at (its kill point is armed from that step on); a fill, at the reconciliation after them. */
const windowTargets: Record<KillWindow, readonly (TrialStep | 'reconcile')[]> = {
  approval: ['delta-usdc', 'market-usdc', 'delta-weth'],
  'sign-submit': ['delta-usdc', 'market-usdc', 'delta-weth', 'limit'],
  submission: ['delta-usdc', 'market-usdc', 'delta-weth', 'limit'],
  fill: ['reconcile'],
  cancellation: ['cancel'],
}

/** A trial: its number (amounts and intent ids derive from it) and the steps it executes. */
export type PlannedTrial = { trial: number; steps: readonly TrialStep[] }

/** A trial's aim: the window, how it is hit, and the step from which the kill point is armed. */
export type KillAim = { window: KillWindow; variant: KillVariant; from: TrialStep | 'reconcile'; delayMs: number }

export type WorkerConfig = {
  url: string
  chains: { chainId: number; rpcUrl: string }[]
  journalFile: string
  accountIndex: number
  tokens: { usdc: Address; weth: Address }
  /** Trials whose steps this run executes: the previous trial's again (to finish what its kill interrupted), then this one's. */
  trials: PlannedTrial[]
  /** Where the run dies, in the last trial of `trials` (or in a reconciliation after it); none for the final run. */
  aim: KillAim | undefined
  /** Reconcile until every order is final (the final run). */
  settle: boolean
  /** Print every request made while the kill point is armed. */
  trace?: boolean | undefined
  /** Hold each approval's answer until the venue has settled every Delta order of the account (a fill spends allowance). */
  holdApprovalsUntilSettled?: boolean | undefined
}

/**
 * The aim of the lane's `index`-th trial: the windows take turns (lanes start at different ones), and each round
 * moves every window to its next variant and target, so each window sees each of its variants and targets.
 */
export function aimOf(lane: number, index: number): KillAim {
  const window = killWindows[(index + lane) % killWindows.length] as KillWindow
  const round = Math.floor(index / killWindows.length) + lane
  const variants: readonly KillVariant[] = killVariants[window]
  const targets = windowTargets[window]
  return {
    window,
    variant: variants[round % variants.length] as KillVariant,
    // Shifted each time the variants come round again, so that every variant meets every target.
    from: targets[(round + Math.floor(round / variants.length)) % targets.length] as TrialStep | 'reconcile',
    delayMs: round % 3,
  }
}

/**
 * What a trial executes for its aim: the aimed order alone (a LIMIT order with its cancellation, so that none stays
 * open), a LIMIT order and its cancellation for the cancellation window, a Delta and a Market swap whose fills the
 * reconciliation then reads for the fill window (with the unreconciled fills of the lane's earlier trials).
 */
export function planTrial(trial: number, aim: KillAim): PlannedTrial {
  if (aim.window === 'fill') return { trial, steps: ['delta-usdc', 'market-usdc'] }
  if (aim.from === 'limit' || aim.from === 'cancel') return { trial, steps: ['limit', 'cancel'] }
  return { trial, steps: [aim.from as TrialStep] }
}

/** The development account of a lane: lanes run side by side, each with its own account and journal. */
export function reliabilityAccount(accountIndex: number) {
  const key = developmentAccounts[accountIndex]?.privateKey
  if (!key) throw new Error(`development account ${accountIndex} missing`)
  return privateKeyToAccount(key)
}

/**
 * The intents of a trial's steps: a Delta and a Market swap of USDC, a Delta swap of WETH (each needs an approval: the
 * policy is exact), a LIMIT order far from the price (it stays open) and its cancellation. Amounts vary by trial; ids
 * are deterministic, so a run that repeats a trial finds its intents in the journal.
 */
export function reliabilityIntents(tokens: WorkerConfig['tokens'], { trial, steps }: PlannedTrial): { step: TrialStep; intent: Intent }[] {
  const common = { strategy: 'reliability', chainId: 1 } as const
  const swap = { ...common, kind: 'swap', side: 'SELL', maxSlippageBps: 200, maxPriceImpactPercent: 10 } as const
  const create = (step: TrialStep, content: Record<string, unknown>) => ({
    step,
    intent: createIntent({ clock: systemClock, key: `${trial}-${step}`, content }),
  })
  const limit = create('limit', {
    ...common,
    kind: 'limit',
    srcToken: tokens.usdc,
    destToken: tokens.weth,
    srcAmount: String(1_000_000 + trial),
    destAmount: parseEther('1').toString(),
    validitySeconds: 3600,
  })
  const all = [
    create('delta-usdc', { ...swap, srcToken: tokens.usdc, destToken: tokens.weth, amount: String(50_000_000 + trial), mode: 'delta' }),
    create('market-usdc', { ...swap, srcToken: tokens.usdc, destToken: tokens.weth, amount: String(20_000_000 + trial), mode: 'market' }),
    create('delta-weth', {
      ...swap,
      srcToken: tokens.weth,
      destToken: tokens.usdc,
      amount: String(10n ** 16n + BigInt(trial)),
      mode: 'delta',
    }),
    limit,
    create('cancel', { strategy: common.strategy, kind: 'cancel', intentIds: [limit.intent.id] }),
  ]
  return all.filter(({ step }) => steps.includes(step))
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
    await new Promise((resolve) => setTimeout(resolve, 300))
  }
}
