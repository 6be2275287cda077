import { Command } from 'commander'
import { registerBacktestCommand } from './backtest.js'
import { registerCancelCommand } from './cancel.js'
import { registerChainsCommand } from './chains.js'
import { registerMakerCommand } from './maker.js'
import { registerOrderCommand } from './order.js'
import { registerOrdersCommand } from './orders.js'
import { registerQuoteCommand } from './quote.js'
import { registerQuotesCommand } from './quotes.js'
import { registerReconcileCommand } from './reconcile.js'
import { registerRecordCommand } from './record.js'
import { registerRunCommand } from './run.js'
import { registerSandboxCommand } from './sandbox.js'
import { registerSchemaCommand } from './schema.js'
import { registerStatusCommand } from './status.js'
import { registerSwapCommand } from './swap.js'

const program = new Command()
  .name('deltaflow')
  .description('Headless trading bots for Delta, Market and OTC trading, with a local sandbox venue on real EVM chains')
  .showHelpAfterError()

registerRunCommand(program)
registerStatusCommand(program)
registerRecordCommand(program)
registerBacktestCommand(program)
registerChainsCommand(program)
registerSandboxCommand(program)
registerMakerCommand(program)
registerQuoteCommand(program)
registerQuotesCommand(program)
registerSwapCommand(program)
registerOrdersCommand(program)
registerOrderCommand(program)
registerCancelCommand(program)
registerReconcileCommand(program)
registerSchemaCommand(program)

await program.parseAsync(process.argv)
// Every command has finished its work here (long-running ones wait for a signal inside their action); HTTP keep-alive
// sockets would otherwise hold the process open for seconds. Writes to pipes and files are synchronous on Linux.
process.exit()
