import type { Command } from 'commander'
import { cancelOrders } from '../exec/executor/cancel-orders.js'
import { reportCommandError } from './command-errors.js'
import { executorContextOf } from './executor-session.js'
import { openCommandJournal } from './journal-file.js'
import { toJsonValue } from './json-output.js'
import { openSession } from './session.js'
import { addVenueOptions, type VenueOptions } from './venue-options.js'

export function registerCancelCommand(program: Command): void {
  addVenueOptions(
    program
      .command('cancel')
      .description('cancel orders of the journal: Delta orders with one signed cancellation per chain, OTC orders on chain')
      .argument('<id...>', 'local order ids, intent ids, venue order ids or order hashes'),
  ).action(async (ids: string[], options: VenueOptions) => {
    const session = await openSession(options).catch((error) => reportCommandError(error, options.json))
    if (!session) return
    const journal = openCommandJournal(options, session.clock, session.sandbox !== undefined)
    try {
      const outcomes = await cancelOrders(executorContextOf(session, journal), ids)
      if (options.json) process.stdout.write(`${JSON.stringify(toJsonValue({ outcomes }))}\n`)
      else for (const outcome of outcomes) process.stdout.write(`${outcome.id}  ${outcome.outcome}  ${outcome.detail}\n`)
      if (outcomes.some((outcome) => outcome.outcome === 'failed' || outcome.outcome === 'not-found')) process.exitCode = 1
    } catch (error) {
      reportCommandError(error, options.json)
    } finally {
      journal.close()
      await session.close()
    }
  })
}
