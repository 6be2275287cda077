import type { Command } from 'commander'
import { createExecutor } from '../exec/executor/executor.js'
import { type ConservationReport, checkConservation } from '../journal/conservation.js'
import { type ReconcileOrdersReturnType, reconcileOrders } from '../journal/reconcile/reconcile-orders.js'
import { reportCommandError } from './command-errors.js'
import { openCommandSession } from './command-session.js'
import { descriptionOf } from './command-summaries.js'
import { toJsonValue } from './json-output.js'
import { addVenueOptions, type VenueOptions } from './venue-options.js'

type ReconcileOptions = VenueOptions & { checkBalances?: boolean }

export function registerReconcileCommand(program: Command): void {
  addVenueOptions(
    program
      .command('reconcile')
      .description(descriptionOf('reconcile'))
      .option(
        '--check-balances',
        "then check that the journal's fills, refunds and gas equal the account's on-chain balance changes, to the wei",
      ),
  ).action(async (options: ReconcileOptions) => {
    const session = await openCommandSession(options).catch((error) => reportCommandError(error, options.json))
    if (!session) return
    const { journal } = session
    try {
      const recovery = await createExecutor(session.context).recover()
      const report = await reconcileOrders({
        journal,
        api: session.api,
        chains: session.chains,
        account: session.account.address,
        clock: session.clock,
        logger: session.logger,
      })
      const balances = options.checkBalances
        ? await checkConservation({ journal, account: session.account.address, chains: session.chains })
        : undefined
      if (options.json)
        process.stdout.write(`${JSON.stringify(toJsonValue({ recovery, reconcile: report, balances: balances ?? null }))}\n`)
      else process.stdout.write(formatReconcile(recovery.length, report, balances))
      if (report.errors.length > 0 || (balances && !balances.balanced)) process.exitCode = 1
    } catch (error) {
      reportCommandError(error, options.json)
    } finally {
      await session.close()
    }
  })
}

function formatReconcile(recovered: number, report: ReconcileOrdersReturnType, balances: ConservationReport | undefined): string {
  const lines = [
    `account ${report.account}`,
    `  in-flight orders resolved: ${recovered}`,
    `  checked: ${report.checked.delta} Delta, ${report.checked.otc} OTC, ${report.checked.market} Market transactions`,
    `  status changes: ${report.statusChanges}; fills: ${report.fills.recorded} (${report.fills.chainConfirmed} confirmed by chain logs); refunds: ${report.refunds}`,
    `  transactions: ${report.transactions.mined} mined, ${report.transactions.reverted} reverted, ${report.transactions.dropped} dropped`,
  ]
  for (const mismatch of report.mismatches) {
    lines.push(
      `  mismatch ${mismatch.orderId} ${mismatch.txHash} ${mismatch.leg}: venue ${mismatch.venue}, chain ${mismatch.chain} (chain recorded)`,
    )
  }
  for (const failure of report.errors)
    lines.push(`  error ${failure.orderId ?? failure.txHash ?? ''} (${failure.stage}): ${failure.message}`)
  if (balances) {
    lines.push(balances.balanced ? '  balances: reconcile to the wei' : '  balances: DO NOT reconcile')
    for (const token of balances.tokens) {
      const status = token.difference === 0n ? 'ok' : `off by ${token.difference}`
      lines.push(`    chain ${token.chainId} ${token.token}: expected ${token.expected}, on chain ${token.actual} (${status})`)
    }
    for (const note of balances.notes) lines.push(`    note: ${note}`)
  }
  return `${lines.join('\n')}\n`
}
