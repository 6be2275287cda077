import { type Address, getAddress, hexToBigInt, isAddress } from 'viem'
import type { DeployedToken } from '../chains/fixture.js'
import type { LocalChain } from '../chains/harness.js'
import { followNewHeads } from '../chains/new-heads.js'
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
  /** The newest block number heard of (announced, polled or refreshed to); -1 before any. */
  #head = -1n
  #watching: { poll: ReturnType<typeof setInterval>; heads: { close: () => void } } | undefined
  /** The refresh a new head asked for, held back to at most one per `minRefreshMs`. */
  #refreshTimer: ReturnType<typeof setTimeout> | undefined
  #lastRefreshAt = Number.NEGATIVE_INFINITY
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
   * The newest block number heard of: announced by the node while watching, or read by a refresh; it may be ahead of
   * `blockNumber` (the pools' block) while a refresh is on its way. -1 before the first.
   */
  get head(): bigint {
    return this.#head
  }

  /** Whether `head` follows the node (watch() is on). */
  get watching(): boolean {
    return this.#watching !== undefined
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
      if (block > this.#head) this.#head = block
    })().finally(() => {
      this.#refreshing = undefined
    })
    this.#refreshing = refreshing
    return refreshing
  }

  /**
   * Refreshes the reserves whenever the head moves: the node announces each new block on its WebSocket (newHeads), and
   * a slow poll of the block number (every `pollMs`) covers what is not announced (a revert to a snapshot, a lost
   * connection). Refreshes run at most once per `minRefreshMs` (a burst of blocks is one refresh, at its end), so a
   * busy chain costs no more than the 100 ms poll this replaced, and an idle one almost nothing.
   */
  watch({ pollMs = 1_000, minRefreshMs = 100 }: { pollMs?: number; minRefreshMs?: number } = {}): void {
    if (this.#watching) return
    const heard = (block: bigint) => {
      if (block > this.#head) this.#head = block
      if (block !== this.#block) this.#refreshSoon(minRefreshMs)
    }
    const poll = setInterval(async () => {
      try {
        heard(await this.clients.publicClient.getBlockNumber({ cacheTime: 0 }))
      } catch {
        // the node is stopping or busy; the next tick tries again
      }
    }, pollMs)
    poll.unref()
    this.#watching = { poll, heads: followNewHeads({ rpcUrl: this.rpcUrl, onHead: heard }) }
  }

  /** A refresh now, or when `minRefreshMs` have passed since the last one started; one at a time. */
  #refreshSoon(minRefreshMs: number): void {
    if (this.#refreshTimer || !this.#watching) return
    const wait = Math.max(0, this.#lastRefreshAt + minRefreshMs - performance.now())
    this.#refreshTimer = setTimeout(() => {
      this.#refreshTimer = undefined
      this.#lastRefreshAt = performance.now()
      this.refresh().catch(() => {
        // the node is stopping or busy; the next head or poll tries again
      })
    }, wait)
    this.#refreshTimer.unref()
  }

  stopWatching(): void {
    if (!this.#watching) return
    clearInterval(this.#watching.poll)
    this.#watching.heads.close()
    this.#watching = undefined
    clearTimeout(this.#refreshTimer)
    this.#refreshTimer = undefined
  }
}

export function checksum(address: string): Address {
  return getAddress(address)
}
