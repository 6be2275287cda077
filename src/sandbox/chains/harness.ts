import { type AnvilExit, type AnvilInstance, AnvilStartError, startAnvil } from './anvil.js'
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
  /** Settles when the node's process ends (see AnvilInstance.exited). */
  exited: Promise<AnvilExit>
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
        const fixture = await untilNodeExits(
          [{ chainId, exited: node.exited }],
          installChainFixture(clients, { ...shared, ...perChain[chainId] }),
          'installing the sandbox contracts',
        )
        return { chainId, rpcUrl: node.rpcUrl, clients, fixture, exited: node.exited }
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

/** How long a failed request waits for its node's exit to show: a dying node resets its connections first. */
const exitGraceMs = 500

/**
 * `work` on the chains, or an AnvilStartError as soon as one chain's node ends before it, naming the exit and anvil's
 * last output rather than whatever request happened to be in flight. A request that fails because its node is dying
 * fails with the exit too (the request's own error as the cause).
 */
export async function untilNodeExits<T>(
  chains: readonly Pick<LocalChain, 'chainId' | 'exited'>[],
  work: Promise<T>,
  step: string,
): Promise<T> {
  type Ended = { chainId: number; exit: AnvilExit }
  const ended = Promise.race(chains.map((chain) => chain.exited.then((exit): Ended => ({ chainId: chain.chainId, exit }))))
  const endedError = ({ chainId, exit }: Ended, cause?: unknown) =>
    new AnvilStartError(`The anvil node of chain ${chainId} ended while ${step}`, {
      details: { code: exit.code, signal: exit.signal, output: exit.output.slice(-2_000) },
      hint: 'anvil’s last output is in the details; a node killed by the system (signal) may mean the machine ran out of memory.',
      ...(cause === undefined ? {} : { cause }),
    })
  let grace: ReturnType<typeof setTimeout> | undefined
  try {
    const outcome = await Promise.race([
      work.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
      ended.then((death) => ({ death })),
    ])
    if ('value' in outcome) return outcome.value
    if ('death' in outcome) throw endedError(outcome.death)
    const death = await Promise.race([
      ended,
      new Promise<undefined>((resolve) => (grace = setTimeout(() => resolve(undefined), exitGraceMs))),
    ])
    throw death ? endedError(death, outcome.error) : outcome.error
  } finally {
    clearTimeout(grace)
  }
}
