import type { Address } from 'viem'
import type { ChainVenue } from '../venue/chain-venue.js'
import { usdPerToken } from '../venue/usd.js'
import { calibrateRouterGas, fallbackGasTable, type RouterGasTable } from './gas-calibration.js'
import type { PoolState } from './route-finder.js'

/**
 * What pricing needs from a chain without an RPC call per request: the router's gas table (measured once), the
 * gas price (re-read in the background when the block moves) and USD prices (recomputed per pool snapshot).
 */
export class MarketChainState {
  readonly chain: ChainVenue
  #gasTable: RouterGasTable = fallbackGasTable
  #gasPrice = 0n
  #gasPriceBlock = -1n
  #gasPriceRefresh: Promise<void> | undefined
  #ready: Promise<void> | undefined
  #usdSnapshot: readonly PoolState[] | undefined
  #usd = new Map<string, number>()

  constructor(chain: ChainVenue) {
    this.chain = chain
  }

  /** Calibrates the gas table and reads the first gas price; runs once, later calls share it. */
  ready(): Promise<void> {
    this.#ready ??= (async () => {
      try {
        this.#gasTable = await calibrateRouterGas(this.chain)
      } catch {
        // a node that is stopping or a fixture without the usual pools: the typical figures stand in
      }
      await this.#refreshGasPrice().catch(() => {})
    })()
    return this.#ready
  }

  get gasTable(): RouterGasTable {
    return this.#gasTable
  }

  /** Gas price (wei) as of the last block seen; a new block triggers a background re-read. */
  gasPrice(): bigint {
    if (this.chain.blockNumber !== this.#gasPriceBlock && !this.#gasPriceRefresh) {
      this.#gasPriceRefresh = this.#refreshGasPrice()
        .catch(() => {})
        .finally(() => {
          this.#gasPriceRefresh = undefined
        })
    }
    return this.#gasPrice
  }

  /** USD per whole token at the current pool snapshot (WETH's price for the native asset's pool token). */
  usdPerToken(poolToken: Address): number {
    const pools = this.chain.pools
    if (pools !== this.#usdSnapshot) {
      this.#usdSnapshot = pools
      this.#usd = new Map()
    }
    const key = poolToken.toLowerCase()
    let price = this.#usd.get(key)
    if (price === undefined) {
      price = usdPerToken(this.chain, poolToken)
      this.#usd.set(key, price)
    }
    return price
  }

  async #refreshGasPrice(): Promise<void> {
    const block = this.chain.blockNumber
    this.#gasPrice = await this.chain.clients.publicClient.getGasPrice()
    this.#gasPriceBlock = block
  }
}

const states = new WeakMap<ChainVenue, MarketChainState>()

export function marketChainState(chain: ChainVenue): MarketChainState {
  let state = states.get(chain)
  if (!state) {
    state = new MarketChainState(chain)
    states.set(chain, state)
  }
  return state
}
