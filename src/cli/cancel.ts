import { type Command, InvalidArgumentError } from 'commander'
import { type CancelOutcome, cancelOrders } from '../exec/executor/cancel-orders.js'
import type { Session } from '../runtime/open-session.js'
import { type SettleOrdersReturnType, settleOrders } from '../runtime/settle-order.js'
import { CommandUsageError, reportCommandError } from './command-errors.js'
import { openCommandSession } from './command-session.js'
import { descriptionOf } from './command-summaries.js'
import { toJsonValue } from './json-output.js'
import { addVenueOptions, type VenueOptions } from './venue-options.js'

type CancelOptions = VenueOptions & { all?: boolean; wait?: number }

export function registerCancelCommand(program: Command): void {
  addVenueOptions(
    program
      .command('cancel')
      .description(descriptionOf('cancel'))
      .argument('[id...]', 'local order ids, intent ids, venue order ids or order hashes')
      .option('--all', 'every open Delta and OTC order of the account in the journal')
      .option(
        '--wait <seconds>',
        "follow the cancelled orders until final for up to this many seconds of the venue's clock (exit 1 if some are not)",
        parseWaitSeconds,
      ),
  ).action(async (ids: string[], options: CancelOptions) => {
    if (options.all === true && ids.length > 0) {
      return reportCommandError(
        new CommandUsageError(`--all cancels every open order: expected no id with it, received ${ids.length}`),
        options.json,
      )
    }
    if (options.all !== true && ids.length === 0) {
      return reportCommandError(new CommandUsageError('expected at least one order id, or --all for every open order'), options.json)
    }
    const session = await openCommandSession(options).catch((error) => reportCommandError(error, options.json))
    if (!session) return
    try {
      const outcomes = await cancelOrders(session.context, options.all === true ? openOrderIds(session) : ids)
      const settled = options.wait === undefined ? undefined : await followCancelled(session, outcomes, options.wait)
      if (options.json) process.stdout.write(`${JSON.stringify(toJsonValue({ outcomes, ...settledJson(settled) }))}\n`)
      else process.stdout.write(formatCancelReport(outcomes, settled))
      const failed = outcomes.some((outcome) => outcome.outcome === 'failed' || outcome.outcome === 'not-found')
      if (failed || (settled?.pending.length ?? 0) > 0) process.exitCode = 1
    } catch (error) {
      reportCommandError(error, options.json)
    } finally {
      await session.close()
    }
  })
}

/** What `--all` cancels: the account's submitted orders that are open and not Market transactions. */
function openOrderIds(session: Session): string[] {
  const account = session.account.address.toLowerCase()
  return session.journal
    .openOrders()
    .filter((order) => order.account === account && order.submitted && order.mode !== 'market')
    .map((order) => order.id)
}

/** Reconciles until the orders whose cancellation went out are final, or the time is up. */
function followCancelled(session: Session, outcomes: readonly CancelOutcome[], seconds: number): Promise<SettleOrdersReturnType> {
  const sent = outcomes.filter((outcome) => outcome.outcome === 'requested' || outcome.outcome === 'skipped')
  const orderIds = [...new Set(sent.flatMap((outcome) => (outcome.orderId === undefined ? [] : [outcome.orderId])))]
  return settleOrders(session, { orderIds, waitMs: seconds * 1000 })
}

function settledJson(settled: SettleOrdersReturnType | undefined) {
  if (!settled) return {}
  const view = (order: SettleOrdersReturnType['final'][number]) => ({ id: order.id, venueId: order.venueId, status: order.status })
  return { settled: { waitedMs: settled.waitedMs, final: settled.final.map(view), pending: settled.pending.map(view) } }
}

/** One line per id asked for, then the counts per outcome and, with --wait, where the orders ended. */
export function formatCancelReport(outcomes: readonly CancelOutcome[], settled?: SettleOrdersReturnType): string {
  const lines = outcomes.map((outcome) => `${outcome.id}  ${outcome.outcome}  ${outcome.detail}`)
  const counts = new Map<string, number>()
  for (const outcome of outcomes) counts.set(outcome.outcome, (counts.get(outcome.outcome) ?? 0) + 1)
  const batches = new Set(outcomes.flatMap((outcome) => (outcome.batch ? [`${outcome.batch.chainId}/${outcome.batch.index}`] : [])))
  lines.push(
    `${outcomes.length} asked: ${[...counts].map(([outcome, count]) => `${count} ${outcome}`).join(', ')}` +
      (batches.size > 0 ? ` (${batches.size} signed Delta cancellation(s))` : ''),
  )
  if (settled) {
    const byStatus = new Map<string, number>()
    for (const order of settled.final) byStatus.set(order.status, (byStatus.get(order.status) ?? 0) + 1)
    const finals = [...byStatus].map(([status, count]) => `${count} ${status}`).join(', ') || 'none final'
    lines.push(`after ${settled.waitedMs / 1000} s of venue time: ${finals}`)
    if (settled.pending.length > 0) {
      lines.push(
        `still pending (run \`deltaflow reconcile\` later): ${settled.pending.map((order) => `${order.id} ${order.status}`).join(', ')}`,
      )
    }
  }
  return `${lines.join('\n')}\n`
}

function parseWaitSeconds(value: string): number {
  const parsed = Number(value)
  if (value.trim() === '' || !Number.isFinite(parsed) || parsed < 0) {
    throw new InvalidArgumentError(`--wait expects a number of seconds of at least 0, received "${value}"`)
  }
  return parsed
}
