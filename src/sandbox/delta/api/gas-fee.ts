import { z } from 'zod'
import { nativeTokenPlaceholder } from '../../../protocol/addresses.js'
import type { ChainVenue } from '../../venue/chain-venue.js'
import { formatAmountUsd } from '../../venue/usd.js'
import type { TokenAmountJson } from './route-json.js'

/** Gas an agent spends on one settlement (measured on the sandbox's DeltaSettlement, rounded up). */
const settlementGas = { sameChain: 180_000n, crosschain: 140_000n }

const gasPriceCache = new WeakMap<ChainVenue, { block: bigint; gasPrice: bigint }>()

/**
 * `fees.gas` of a route: what the winning agent pays to settle, in the source chain's native asset (as the real
 * service's example writes it, lowercase placeholder). Agents fold it into their quote: the route's amounts are
 * already net of it.
 */
export async function settlementGasFee(chain: ChainVenue, crosschain: boolean): Promise<TokenAmountJson> {
  const amount = (crosschain ? settlementGas.crosschain : settlementGas.sameChain) * (await gasPriceOf(chain))
  return {
    token: { chainId: chain.chainId, address: nativeTokenPlaceholder.toLowerCase() },
    amount: amount.toString(),
    amountUSD: formatAmountUsd(chain, chain.wrappedNative.address, amount),
  }
}

/** eth_gasPrice, read once per block. */
async function gasPriceOf(chain: ChainVenue): Promise<bigint> {
  const cached = gasPriceCache.get(chain)
  if (cached && cached.block === chain.blockNumber) return cached.gasPrice
  const block = chain.blockNumber
  const gasPrice = z
    .bigint()
    .nonnegative()
    .parse(await chain.clients.publicClient.getGasPrice())
  gasPriceCache.set(chain, { block, gasPrice })
  return gasPrice
}
