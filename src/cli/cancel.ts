import type { Command } from 'commander'
import { cancelOrders } from '../exec/executor/cancel-orders.js'
import { reportCommandError } from './command-errors.js'
import { openCommandSession } from './command-session.js'
import { descriptionOf } from './command-summaries.js'
import { toJsonValue } from './json-output.js'
import { addVenueOptions, type VenueOptions } from './venue-options.js'

export function registerCancelCommand(program: Command): void {
  addVenueOptions(
    program
      .command('cancel')
      .description(descriptionOf('cancel'))
      .argument('<id...>', 'local order ids, intent ids, venue order ids or order hashes'),
  ).action(async (ids: string[], options: VenueOptions) => {
    const session = await openCommandSession(options).catch((error) => reportCommandError(error, options.json))
    if (!session) return
    try {
      const outcomes = await cancelOrders(session.context, ids)
      if (options.json) process.stdout.write(`${JSON.stringify(toJsonValue({ outcomes }))}\n`)
      else for (const outcome of outcomes) process.stdout.write(`${outcome.id}  ${outcome.outcome}  ${outcome.detail}\n`)
      if (outcomes.some((outcome) => outcome.outcome === 'failed' || outcome.outcome === 'not-found')) process.exitCode = 1
    } catch (error) {
      reportCommandError(error, options.json)
    } finally {
      await session.close()
    }
  })
}
