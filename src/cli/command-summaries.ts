// What `deltaflow --help` lists for each command, and what each command module registers: one text for both, so the
// list (which loads no command module) cannot drift from the commands.

export type CommandSummary = {
  /** What the command list shows after the name, as commander prints it for the registered command. */
  usage: string
  description: string
}

export const commandSummaries = {
  run: {
    usage: '[options] <config>',
    description: 'run a bot from its YAML config until SIGINT / SIGTERM (or --for), then print a summary from the journal',
  },
  status: {
    usage: '[options]',
    description: "what the journal says: each strategy's intents, orders by status and net token flows, and recent fills",
  },
  record: {
    usage: '[options] <config>',
    description: "record the quotes a config's strategies subscribe to, as the feed polls them, into a recording for backtests",
  },
  backtest: {
    usage: '[options] <config>',
    description: "replay recorded quotes through a config's strategies, the executor's own checks and a simulated venue",
  },
  optimize: {
    usage: '[options] <config>',
    description:
      "search a config's optimize space with walk-forward validation: in-sample winners scored out of sample, a recommendation and its robustness",
  },
  worker: {
    usage: '[options]',
    description: 'run the trials of `deltaflow optimize --queue` from a queue on Redis, on this machine, until SIGINT / SIGTERM',
  },
  chains: {
    usage: '',
    description: 'local EVM chains carrying the service contracts',
  },
  sandbox: {
    usage: '[options]',
    description: 'run the local emulator of the trading service (HTTP API on loopback, settling on local chains) until Ctrl-C',
  },
  maker: {
    usage: '[options] <config>',
    description: 'serve the market-maker interface from a maker strategy until SIGINT / SIGTERM (or --for), then summarize its firm quotes',
  },
  quote: {
    usage: '[options]',
    description: 'price a swap in Delta and Market mode and say which mode would execute it',
  },
  quotes: {
    usage: '',
    description: 'build recorded-quote sets for backtests',
  },
  swap: {
    usage: '[options]',
    description: 'perform one swap end to end through the executor: risk check, mode choice, approval or permit, sign, submit, journal',
  },
  orders: {
    usage: '[options]',
    description: "list the journal's orders, oldest first",
  },
  order: {
    usage: '[options] <id>',
    description: 'one order from the journal: its intent, mode choice, status history, fills, refunds and transactions',
  },
  cancel: {
    usage: '[options] [id...]',
    description: 'cancel orders of the journal: Delta orders in signed cancellations of at most 100 per chain, OTC orders on chain',
  },
  reconcile: {
    usage: '[options]',
    description:
      'bring the journal up to date: resolve orders left in flight, then statuses, fills and refunds from the venue and the chains',
  },
  schema: {
    usage: '',
    description: 'print the JSON Schema of the YAML configuration, for editors: deltaflow schema > deltaflow.schema.json',
  },
} as const satisfies Record<string, CommandSummary>

export type CommandName = keyof typeof commandSummaries

/** The description a command module registers. */
export function descriptionOf(name: CommandName): string {
  return commandSummaries[name].description
}
