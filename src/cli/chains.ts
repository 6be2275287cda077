import type { Command } from 'commander'
import { developmentAccounts } from '../sandbox/chains/accounts.js'
import { defaultChainIds, type LocalChains, startLocalChains } from '../sandbox/chains/harness.js'
import { parseChainIds } from './chain-options.js'
import { descriptionOf } from './command-summaries.js'

export function registerChainsCommand(program: Command): void {
  const chains = program.command('chains').description(descriptionOf('chains'))
  chains
    .command('up')
    .description('start local chains with the service contracts, tokens, pools and funded accounts; Ctrl-C stops them')
    .option('--chains <ids>', 'comma-separated chain ids', parseChainIds, [...defaultChainIds])
    .option('--json', 'print one JSON line describing the chains once they are ready')
    .action(async (options: { chains: number[]; json?: boolean }) => {
      await runChainsUntilSignal({ chainIds: options.chains, json: options.json === true })
    })
}

export async function runChainsUntilSignal(options: { chainIds: readonly number[]; json: boolean }): Promise<void> {
  const started = performance.now()
  const running = await startLocalChains({ chainIds: options.chainIds })
  const elapsedMs = Math.round(performance.now() - started)
  process.stdout.write(options.json ? `${JSON.stringify(describeChains(running))}\n` : formatChains(running, elapsedMs))
  await new Promise<void>((resolve) => {
    const shutdown = () => resolve()
    process.once('SIGINT', shutdown)
    process.once('SIGTERM', shutdown)
  })
  await running.stop()
  if (!options.json) process.stdout.write('chains stopped\n')
}

export function describeChains(running: LocalChains) {
  return {
    chains: running.chains.map(({ chainId, rpcUrl, fixture }) => ({
      chainId,
      rpcUrl,
      contracts: fixture.contracts,
      tokens: fixture.tokens.map(({ symbol, address, decimals }) => ({ symbol, address, decimals })),
      pools: fixture.pools.map(({ address, symbols, feeBps }) => ({ address, pair: symbols.join('/'), feeBps })),
    })),
    accounts: developmentAccounts,
  }
}

function formatChains(running: LocalChains, elapsedMs: number): string {
  const lines: string[] = [`${running.chains.length} local chain(s) ready in ${elapsedMs} ms`, '']
  for (const { chainId, rpcUrl, fixture } of running.chains) {
    lines.push(`chain ${chainId}  ${rpcUrl}`)
    const { contracts } = fixture
    lines.push(`  Delta              ${contracts.delta ?? '(not deployed on this chain)'}`)
    lines.push(`  Market router 6.2  ${contracts.marketRouter}`)
    lines.push(`  Permit2            ${contracts.permit2}`)
    lines.push(`  RFQ                ${contracts.rfq}`)
    for (const token of fixture.tokens)
      lines.push(`  ${token.symbol.padEnd(6)} ${String(token.decimals).padStart(2)} dec  ${token.address}`)
    lines.push(`  pools: ${fixture.pools.map((pool) => pool.symbols.join('/')).join(', ')}`)
    lines.push('')
  }
  lines.push('funded development accounts (anvil well-known keys, never use them on a real chain):')
  for (const account of developmentAccounts.slice(0, 3)) lines.push(`  ${account.address}  ${account.privateKey}`)
  lines.push(`  … and ${developmentAccounts.length - 3} more`, '', 'Ctrl-C stops the chains.', '')
  return lines.join('\n')
}
