import { type Address, getAddress, hexToBigInt, isAddress } from 'viem'
import type { DeployedToken } from '../chains/fixture.js'
import type { LocalChain } from '../chains/harness.js'
import { getContractArtifact } from '../contracts/compile.js'
import type { PoolState } from '../market/route-finder.js'

/**
 * One local chain as the sandbox sees it: its clients and contracts, token look-ups, and an in-memory copy of the
 * pool reserves, refreshed whenever a new block appears, so quotes are pure arithmetic on current chain state.
 */
export class ChainVenue {
  readonly chainId: number
  readonly rpcUrl: string
  readonly clients: LocalChain['clients']
  readonly fixture: LocalChain['fixture']
  #pools: PoolState[] = []
  #block = -1n
  #watcher: ReturnType<typeof setInterval> | undefined
  #refreshing: Promise<void> | undefined
  #nextRefresh: Promise<void> | undefined
  readonly #tokensByAddress: Map<string, DeployedToken>
  readonly #tokensBySymbol: Map<string, DeployedToken>

  constructor(chain: LocalChain) {
    this.chainId = chain.chainId
    this.rpcUrl = chain.rpcUrl
    this.clients = chain.clients
    this.fixture = chain.fixture
    this.#tokensByAddress = new Map(chain.fixture.tokens.map((token) => [token.address.toLowerCase(), token]))
    this.#tokensBySymbol = new Map(chain.fixture.tokens.map((token) => [token.symbol.toUpperCase(), token]))
  }

  get tokens(): readonly DeployedToken[] {
    return this.fixture.tokens
  }

  tokenByAddress(address: string): DeployedToken | undefined {
    return this.#tokensByAddress.get(address.toLowerCase())
  }

  tokenBySymbol(symbol: string): DeployedToken | undefined {
    return this.#tokensBySymbol.get(symbol.toUpperCase())
  }

  /** A token by symbol or by address (any case). */
  resolveToken(symbolOrAddress: string): DeployedToken | undefined {
    return isAddress(symbolOrAddress, { strict: false }) ? this.tokenByAddress(symbolOrAddress) : this.tokenBySymbol(symbolOrAddress)
  }

  get wrappedNative(): DeployedToken {
    const weth = this.fixture.tokens.find((token) => token.kind === 'wrappedNative')
    if (!weth) throw new Error(`chain ${this.chainId} has no wrapped native token`)
    return weth
  }

  /** Pool reserves as of the last refresh. */
  get pools(): readonly PoolState[] {
    return this.#pools
  }

  get blockNumber(): bigint {
    return this.#block
  }

  /**
   * Reads every pool's reserves at the latest block (one batched RPC round trip after the block number), so the
   * reserves are always those of `blockNumber`. A call made while a refresh is under way gets the next one, which
   * starts after it: the one under way may have read the pools before the caller's last transaction.
   */
  refresh(): Promise<void> {
    if (!this.#refreshing) return this.#startRefresh()
    this.#nextRefresh ??= this.#refreshing
      .catch(() => {})
      .then(() => {
        this.#nextRefresh = undefined
        return this.refresh()
      })
    return this.#nextRefresh
  }

  #startRefresh(): Promise<void> {
    const refreshing = (async () => {
      const { publicClient } = this.clients
      const abi = getContractArtifact('ConstantProductPool').abi
      // Not getBlockNumber: it shares a request already in flight, which may predate the caller's transaction.
      const block = hexToBigInt(await publicClient.request({ method: 'eth_blockNumber' }))
      this.#pools = await Promise.all(
        this.fixture.pools.map(async (pool): Promise<PoolState> => {
          const [reserve0, reserve1] = (await publicClient.readContract({
            address: pool.address,
            abi,
            functionName: 'getReserves',
            blockNumber: block,
          })) as readonly [bigint, bigint]
          return {
            address: pool.address,
            token0: pool.token0,
            token1: pool.token1,
            reserve0,
            reserve1,
            feeBps: BigInt(pool.feeBps),
            name: pool.symbols.join('/'),
          }
        }),
      )
      this.#block = block
    })().finally(() => {
      this.#refreshing = undefined
    })
    this.#refreshing = refreshing
    return refreshing
  }

  /** Polls the block number and refreshes the reserves when it moves. */
  watch(intervalMs = 100): void {
    if (this.#watcher) return
    this.#watcher = setInterval(async () => {
      try {
        const block = await this.clients.publicClient.getBlockNumber({ cacheTime: 0 })
        if (block !== this.#block) await this.refresh()
      } catch {
        // the node is stopping or busy; the next tick tries again
      }
    }, intervalMs)
    this.#watcher.unref()
  }

  stopWatching(): void {
    clearInterval(this.#watcher)
    this.#watcher = undefined
  }
}

export function checksum(address: string): Address {
  return getAddress(address)
}
