import { type Command, InvalidArgumentError } from 'commander'
import { defaultChainIds } from '../sandbox/chains/harness.js'
import { type SandboxInfo, startSandbox } from '../sandbox/start-sandbox.js'
import { parseChainIds } from './chain-options.js'
import { descriptionOf } from './command-summaries.js'

export function registerSandboxCommand(program: Command): void {
  program
    .command('sandbox')
    .description(descriptionOf('sandbox'))
    .option('--port <n>', 'HTTP port on 127.0.0.1 (0 picks a free one)', parseInteger('--port', 0, 65_535), 0)
    .option('--chains <ids>', 'comma-separated chain ids', parseChainIds, [...defaultChainIds])
    .option('--speed <x>', 'time compression (60 = one sandbox minute per second)', parsePositive('--speed'), 1)
    .option('--seed <s>', 'seed of every random choice', parseInteger('--seed', 0, 2 ** 32 - 1), 1)
    .option('--json', 'print exactly one JSON line (url, chains, accounts, tokens) once ready')
    .action(async (options: SandboxCommandOptions) => {
      await runSandboxUntilSignal(options)
    })
}

export type SandboxCommandOptions = { port: number; chains: readonly number[]; speed: number; seed: number; json?: boolean }

/** Starts the sandbox, prints where it is (one JSON line with --json), and stops it on SIGINT / SIGTERM. */
export async function runSandboxUntilSignal(options: SandboxCommandOptions): Promise<void> {
  const sandbox = await startSandbox({ port: options.port, chainIds: options.chains, speed: options.speed, seed: options.seed })
  const info: SandboxInfo = { url: sandbox.url, chains: sandbox.chains, accounts: sandbox.accounts, tokens: sandbox.tokens }
  process.stdout.write(options.json ? `${JSON.stringify(info)}\n` : formatSandbox(info, options.speed))
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve())
    process.once('SIGTERM', () => resolve())
  })
  await sandbox.stop()
  if (!options.json) process.stdout.write('sandbox stopped\n')
}

function formatSandbox(info: SandboxInfo, speed: number): string {
  const lines = [`sandbox listening on ${info.url}${speed === 1 ? '' : ` (time x${speed})`}`]
  for (const chain of info.chains) lines.push(`  chain ${chain.chainId}: ${chain.rpcUrl}`)
  lines.push(
    `  contracts: ${info.url}/resources/contracts.json`,
    '',
    'funded development accounts (anvil well-known keys, never use them on a real chain):',
  )
  for (const account of info.accounts.slice(0, 3)) lines.push(`  ${account.address}  ${account.privateKey}`)
  lines.push(`  … and ${info.accounts.length - 3} more`, '', 'Ctrl-C stops it.', '')
  return lines.join('\n')
}

function parseInteger(flag: string, min: number, max: number) {
  return (value: string): number => {
    const parsed = Number(value)
    if (!/^\d+$/.test(value) || parsed < min || parsed > max) {
      throw new InvalidArgumentError(`${flag} expects an integer from ${min} to ${max}, received "${value}"`)
    }
    return parsed
  }
}

function parsePositive(flag: string) {
  return (value: string): number => {
    const parsed = Number(value)
    if (!Number.isFinite(parsed) || parsed <= 0) throw new InvalidArgumentError(`${flag} expects a positive number, received "${value}"`)
    return parsed
  }
}
