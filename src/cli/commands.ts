import { type Command, Help } from 'commander'
import { commandSummaries } from './command-summaries.js'

export type RegisterCommand = (program: Command) => void

/** A command as `deltaflow --help` lists it; its module (and all it imports) is loaded only when the command runs. */
export type CliCommand = {
  name: string
  /** What the command list shows after the name, as commander would print it for the registered command. */
  usage: string
  /** The text the command module registers (command-summaries.ts holds both). */
  description: string
  load: () => Promise<RegisterCommand>
}

// Listed in this order by --help.
export const cliCommands: readonly CliCommand[] = [
  { name: 'run', ...commandSummaries.run, load: async () => (await import('./run.js')).registerRunCommand },
  { name: 'status', ...commandSummaries.status, load: async () => (await import('./status.js')).registerStatusCommand },
  { name: 'record', ...commandSummaries.record, load: async () => (await import('./record.js')).registerRecordCommand },
  { name: 'backtest', ...commandSummaries.backtest, load: async () => (await import('./backtest.js')).registerBacktestCommand },
  { name: 'optimize', ...commandSummaries.optimize, load: async () => (await import('./optimize.js')).registerOptimizeCommand },
  { name: 'worker', ...commandSummaries.worker, load: async () => (await import('./worker.js')).registerWorkerCommand },
  { name: 'chains', ...commandSummaries.chains, load: async () => (await import('./chains.js')).registerChainsCommand },
  { name: 'sandbox', ...commandSummaries.sandbox, load: async () => (await import('./sandbox.js')).registerSandboxCommand },
  { name: 'maker', ...commandSummaries.maker, load: async () => (await import('./maker.js')).registerMakerCommand },
  { name: 'quote', ...commandSummaries.quote, load: async () => (await import('./quote.js')).registerQuoteCommand },
  { name: 'quotes', ...commandSummaries.quotes, load: async () => (await import('./quotes.js')).registerQuotesCommand },
  { name: 'swap', ...commandSummaries.swap, load: async () => (await import('./swap.js')).registerSwapCommand },
  { name: 'orders', ...commandSummaries.orders, load: async () => (await import('./orders.js')).registerOrdersCommand },
  { name: 'order', ...commandSummaries.order, load: async () => (await import('./order.js')).registerOrderCommand },
  { name: 'cancel', ...commandSummaries.cancel, load: async () => (await import('./cancel.js')).registerCancelCommand },
  { name: 'reconcile', ...commandSummaries.reconcile, load: async () => (await import('./reconcile.js')).registerReconcileCommand },
  { name: 'schema', ...commandSummaries.schema, load: async () => (await import('./schema.js')).registerSchemaCommand },
]

/** The command that `deltaflow <command> ...` or `deltaflow help <command>` names; the program has no options of its own. */
export function commandToRun([first, second]: readonly string[]): CliCommand | undefined {
  const name = first === 'help' ? second : first
  return cliCommands.find((command) => command.name === name)
}

/**
 * Every command by name and description, none of their modules loaded: enough for `deltaflow --help` and for
 * commander's error on an unknown command ("Did you mean ...?").
 */
export function listCommands(program: Command): void {
  for (const { name, description } of cliCommands) program.command(name).description(description)
  const usageOf = new Map(cliCommands.map(({ name, usage }) => [name, usage]))
  const help = new Help()
  program.configureHelp({
    subcommandTerm: (command) => {
      const usage = usageOf.get(command.name())
      if (usage === undefined) return help.subcommandTerm(command) // commander's own `help [command]`
      return usage ? `${command.name()} ${usage}` : command.name()
    },
  })
}
