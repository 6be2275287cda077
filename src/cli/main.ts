import { Command } from 'commander'
import { exitCodes, reportCommandError } from './command-errors.js'
import { commandToRun, listCommands } from './commands.js'
import { packageVersion } from './package-version.js'

const program = new Command()
  .name('deltaflow')
  .description('Headless trading bots for Delta, Market and OTC trading, with a local sandbox venue on real EVM chains')
  .version(packageVersion(), '-V, --version', 'print the version of deltaflow')
  .showHelpAfterError('(add --help for the usage)')
  // Commander's own errors (unknown option, missing or invalid value) are usage errors: exit 2. Set before the
  // commands are registered, which inherit it. Help and --version exit 0.
  .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : exitCodes.usage))

// Only the command being run is imported (with all it needs); --help and unknown commands import none.
const chosen = commandToRun(process.argv.slice(2))
if (chosen) (await chosen.load())(program)
else listCommands(program)

// Commands report their own failures; anything that escapes them is still a failure (exit 1), told the same way.
await program.parseAsync(process.argv).catch((error: unknown) => reportCommandError(error, process.argv.includes('--json')))
// Every command has finished its work here (long-running ones wait for a signal inside their action); HTTP keep-alive
// sockets would otherwise hold the process open for seconds. Writes to pipes and files are synchronous on Linux.
process.exit()
