import { type Address, isAddressEqual } from 'viem'
import { marketRouterAddress } from '../../protocol/addresses.js'
import { unixSeconds } from '../../time/clock.js'
import { ApiError, commonErrors } from '../server/api-error.js'
import type { ChainVenue } from '../venue/chain-venue.js'
import type { SandboxVenue } from '../venue/sandbox-venue.js'
import { applyTokenPermit } from './apply-permit.js'
import { checkPermit2OnChain, checkPermit2Terms } from './check-permit2.js'
import { marketChainState } from './market-chain-state.js'
import { marketErrors } from './market-errors.js'
import { classifyPermit, permitNotSupported } from './market-permit.js'
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
 * Plans the router call (a maker route first obtains and checks the maker's firm order), applies or checks its permit,
 * checks funds and simulates it (unless told not to), and wraps it in the envelope.
 */
export async function buildMarketTransaction(
  venue: SandboxVenue,
  route: PriceRouteJson,
  intent: SwapIntent,
  options: BuildOptions,
): Promise<{ call: SwapCall; envelope: TransactionEnvelope }> {
  const chain = executableRouteChain(venue, route)
  await marketChainState(chain).ready()
  await checkTxOrigin(chain, intent)
  const permit = classifyPermit(intent.permit)
  const permit2 = permit.kind === 'permit2' ? permit.bytes : undefined
  const call = isMakerRoute(route)
    ? await planRfqSwapCall(venue, route, intent, unixSeconds(venue.clock), permit2)
    : planSwapCall(route, intent, unixSeconds(venue.clock), permit2)
  if (permit.kind === 'token') {
    if (call.srcNative) throw permitNotSupported('the source is native ETH, which needs no approval')
    await applyTokenPermit(chain, call, intent.userAddress, permit.permit)
  }
  if (permit.kind === 'permit2') checkPermit2Terms(call, permit.permit, intent.deadline)
  let gas: bigint | undefined
  if (!options.ignoreChecks) {
    await checkSwapFunds(chain, call, intent.userAddress, { viaPermit2: permit.kind === 'permit2' })
    if (permit.kind === 'permit2') {
      await checkPermit2OnChain(chain, call, intent.userAddress, permit.permit, BigInt(intent.deadline ?? 0))
    }
    gas = await simulateSwap(chain, call, intent.userAddress, { estimate: !options.ignoreGasEstimate, txOrigin: intent.txOrigin })
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

/**
 * `txOrigin` names the account that sends the transaction when `userAddress` (msg.sender of the router) is another
 * one: it must be an account without code, and `userAddress` then the contract that calls the router for it.
 */
async function checkTxOrigin(chain: ChainVenue, intent: SwapIntent): Promise<void> {
  const { txOrigin, userAddress } = intent
  if (txOrigin === undefined) return
  const hasCode = async (address: Address) => ((await chain.clients.publicClient.getCode({ address })) ?? '0x') !== '0x'
  if (await hasCode(txOrigin)) {
    throw invalidTxOrigin(`${txOrigin} is a contract; txOrigin is the account that signs and sends the transaction`)
  }
  if (isAddressEqual(txOrigin, userAddress)) return
  if (!(await hasCode(userAddress))) {
    throw invalidTxOrigin(
      `${txOrigin} differs from userAddress ${userAddress}, which has no contract code and so can only call the router in its own transactions; omit txOrigin, or set userAddress to the contract that calls the router`,
    )
  }
}

function invalidTxOrigin(detail: string): ApiError {
  return new ApiError(commonErrors.validation, { message: `Validation failed: body.txOrigin: ${detail}` })
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
