import { Command } from 'commander'
import { registerChainsCommand } from './chains.js'
import { registerStartCommand } from './start.js'

const program = new Command()
  .name('deltaflow')
  .description('Headless trading bots for Delta, Market and OTC trading, with a local sandbox venue on real EVM chains')
  .showHelpAfterError()

registerStartCommand(program)
registerChainsCommand(program)

await program.parseAsync(process.argv)
