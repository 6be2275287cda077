import { Command } from 'commander'
import { commandToRun, listCommands } from './commands.js'

const program = new Command()
  .name('deltaflow')
  .description('Headless trading bots for Delta, Market and OTC trading, with a local sandbox venue on real EVM chains')
  .showHelpAfterError()

// Only the command being run is imported (with all it needs); --help and unknown commands import none.
const chosen = commandToRun(process.argv.slice(2))
if (chosen) (await chosen.load())(program)
else listCommands(program)

await program.parseAsync(process.argv)
// Every command has finished its work here (long-running ones wait for a signal inside their action); HTTP keep-alive
// sockets would otherwise hold the process open for seconds. Writes to pipes and files are synchronous on Linux.
process.exit()
