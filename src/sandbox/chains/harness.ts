import { type AnvilInstance, startAnvil } from './anvil.js'
import { createLocalClients, type LocalClients } from './clients.js'
import { type ChainFixture, type ChainFixtureOptions, installChainFixture } from './fixture.js'

export type StartLocalChainsOptions = ChainFixtureOptions & {
  /** Chain ids to run, one anvil node each. Default: 1 and 8453. */
  chainIds?: readonly number[] | undefined
  /** Per-chain fixture options, merged over the shared ones. */
  perChain?: Readonly<Record<number, ChainFixtureOptions>> | undefined
  /** Genesis timestamp of every chain (unix seconds); default: now. */
  timestamp?: bigint | undefined
}

export type LocalChain = {
  chainId: number
  rpcUrl: string
  clients: LocalClients
  fixture: ChainFixture
}

export type LocalChains = {
  chains: LocalChain[]
  /** The chain with this id; throws when it is not running. */
  chain: (chainId: number) => LocalChain
  /** Stops every node; resolves once all processes have exited. */
  stop: () => Promise<void>
}

export const defaultChainIds: readonly number[] = [1, 8453]

/**
 * Starts one anvil node per chain id on free loopback ports, in parallel, and installs the service's contracts,
 * tokens, pools and funded accounts on each. If any chain fails, the ones already started are stopped.
 */
export async function startLocalChains(options: StartLocalChainsOptions = {}): Promise<LocalChains> {
  const { chainIds = defaultChainIds, perChain = {}, timestamp, ...shared } = options
  if (new Set(chainIds).size !== chainIds.length) throw new Error(`chain ids repeat: ${chainIds.join(', ')}`)
  const nodes: AnvilInstance[] = []
  const stop = async () => {
    await Promise.all(nodes.map((node) => node.stop()))
  }
  try {
    const chains = await Promise.all(
      chainIds.map(async (chainId) => {
        const node = await startAnvil({ chainId, timestamp })
        nodes.push(node)
        const clients = createLocalClients(chainId, node.rpcUrl)
        const fixture = await installChainFixture(clients, { ...shared, ...perChain[chainId] })
        return { chainId, rpcUrl: node.rpcUrl, clients, fixture }
      }),
    )
    return {
      chains,
      chain: (chainId) => {
        const found = chains.find((candidate) => candidate.chainId === chainId)
        if (!found) throw new Error(`chain ${chainId} is not running (running: ${chainIds.join(', ')})`)
        return found
      },
      stop,
    }
  } catch (error) {
    await stop()
    throw error
  }
}
