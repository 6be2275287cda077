import { marketRouterAddress } from '../../protocol/addresses.js'
import { unixSeconds } from '../../time/clock.js'
import { ApiError } from '../server/api-error.js'
import type { ChainVenue } from '../venue/chain-venue.js'
import type { SandboxVenue } from '../venue/sandbox-venue.js'
import { applyPermit } from './apply-permit.js'
import { marketChainState } from './market-chain-state.js'
import { marketErrors } from './market-errors.js'
import type { PriceRouteJson } from './price-route.js'
import { isMakerRoute, planRfqSwapCall } from './rfq-swap-call.js'
import { requireRunningChain } from './running-chain.js'
import { planSwapCall, type SwapCall, type SwapIntent } from './swap-call.js'
import { checkSwapFunds, simulateSwap } from './transaction-checks.js'

/** Section 2.5: what the caller signs and broadcasts. */
export type TransactionEnvelope = {
  from: string
  to: string
  value: string
  data: string
  gasPrice?: string
  maxFeePerGas?: string
  maxPriorityFeePerGas?: string
  gas?: string
  chainId: number
}

export type BuildOptions = {
  ignoreChecks: boolean
  ignoreGasEstimate: boolean
  eip1559: boolean
  /** Wei; overrides the chain's gas price. */
  gasPrice?: bigint | undefined
}

/** The chain of a v6.2 route; a legacy v5 route gets a clear refusal. */
export function executableRouteChain(venue: SandboxVenue, route: PriceRouteJson): ChainVenue {
  if (route.version !== '6.2') {
    throw new ApiError(marketErrors.legacyRoute, {
      message: `Unsupported priceRoute version: this route was priced for the legacy v5 router (version ${route.version}, contractAddress ${route.contractAddress}), which the sandbox does not deploy; it executes only v6.2 routes. Call GET /prices with version=6.2`,
    })
  }
  return requireRunningChain(venue, route.network)
}

/**
 * Plans the router call (a maker route first obtains and checks the maker's firm order), checks funds and simulates it
 * (unless told not to), and wraps it in the envelope.
 */
export async function buildMarketTransaction(
  venue: SandboxVenue,
  route: PriceRouteJson,
  intent: SwapIntent,
  options: BuildOptions,
): Promise<{ call: SwapCall; envelope: TransactionEnvelope }> {
  const chain = executableRouteChain(venue, route)
  await marketChainState(chain).ready()
  const call = isMakerRoute(route)
    ? await planRfqSwapCall(venue, route, intent, unixSeconds(venue.clock))
    : planSwapCall(route, intent, unixSeconds(venue.clock))
  if (intent.permit !== undefined && intent.permit !== '0x') await applyPermit(chain, call, intent.userAddress, intent.permit)
  let gas: bigint | undefined
  if (!options.ignoreChecks) {
    await checkSwapFunds(chain, call, intent.userAddress)
    gas = await simulateSwap(chain, call, intent.userAddress, { estimate: !options.ignoreGasEstimate })
  }
  return {
    call,
    envelope: {
      from: intent.userAddress,
      to: marketRouterAddress,
      value: call.value.toString(),
      data: call.data,
      ...(await gasPriceFields(chain, options)),
      ...(gas === undefined ? {} : { gas: gas.toString() }),
      chainId: chain.chainId,
    },
  }
}

async function gasPriceFields(
  chain: ChainVenue,
  options: BuildOptions,
): Promise<Pick<TransactionEnvelope, 'gasPrice' | 'maxFeePerGas' | 'maxPriorityFeePerGas'>> {
  if (!options.eip1559) return { gasPrice: (options.gasPrice ?? marketChainState(chain).gasPrice()).toString() }
  const fees = await chain.clients.publicClient.estimateFeesPerGas()
  const maxFeePerGas = options.gasPrice ?? fees.maxFeePerGas
  let maxPriorityFeePerGas = fees.maxPriorityFeePerGas
  if (maxPriorityFeePerGas > maxFeePerGas) maxPriorityFeePerGas = maxFeePerGas
  return { maxFeePerGas: maxFeePerGas.toString(), maxPriorityFeePerGas: maxPriorityFeePerGas.toString() }
}
