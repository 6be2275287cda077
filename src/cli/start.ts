import type { Command } from 'commander'
import { defaultChainIds } from '../sandbox/chains/harness.js'
import { runChainsUntilSignal } from './chains.js'

export function registerStartCommand(program: Command): void {
  program
    .command('start')
    .description('run deltaflow on the embedded sandbox (for now: the local chains with the service contracts)')
    .option('--json', 'print one JSON line describing the chains once they are ready')
    .action(async (options: { json?: boolean }) => {
      await runChainsUntilSignal({ chainIds: defaultChainIds, json: options.json === true })
    })
}
