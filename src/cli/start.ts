import type { Command } from 'commander'
import { defaultChainIds } from '../sandbox/chains/harness.js'
import { runSandboxUntilSignal } from './sandbox.js'

export function registerStartCommand(program: Command): void {
  program
    .command('start')
    .description('run deltaflow on the embedded sandbox (for now: the sandbox itself, its market moving, until Ctrl-C)')
    .option('--json', 'print one JSON line (url, chains, accounts, tokens) once ready')
    .action(async (options: { json?: boolean }) => {
      await runSandboxUntilSignal({ port: 0, chains: defaultChainIds, speed: 1, seed: 1, json: options.json === true })
    })
}
