import { getContractArtifact } from '../../contracts/compile.js'
import { findBestRoute } from '../../market/route-finder.js'
import type { ChainVenue } from '../../venue/chain-venue.js'
import { isNative } from './order-terms.js'
import { sendAs } from './send-as.js'
import type { FillPlan, SettledFill } from './settle-fill.js'

/**
 * After a same-chain fill the agent sells the source it received back into the pools for the destination it paid,
 * as a solver rebalancing its inventory would. The pools move by the fill, so a resting LIMIT order sees the
 * market its own fills made, and the agent keeps its edge. Returns the hedge's block, or undefined when none ran.
 */
export async function hedgeFill(chain: ChainVenue, plan: FillPlan, settled: SettledFill): Promise<bigint | undefined> {
  const { terms } = plan
  if (terms.bridge || plan.order.signed.kind === 'ExternalOrder' || settled.srcAmount === 0n) return undefined
  const wrap = (token: typeof terms.srcToken) => (isNative(token) ? chain.wrappedNative.address : token)
  const route = findBestRoute({
    pools: chain.pools,
    srcToken: wrap(terms.srcToken),
    destToken: wrap(terms.destToken),
    amount: settled.srcAmount,
    side: 'SELL',
  })
  if (!route) return undefined
  const receipt = await sendAs(chain, {
    from: plan.agent.address,
    to: chain.fixture.contracts.marketRouter,
    abi: getContractArtifact('MarketRouter').abi,
    functionName: 'swapExactAmountIn',
    args: [terms.srcToken, terms.destToken, settled.srcAmount, 0n, route.hops.map((hop) => hop.pool.address), plan.agent.address, 0n],
    value: isNative(terms.srcToken) ? settled.srcAmount : 0n,
  })
  return receipt.blockNumber
}

/** Refreshes the chain's cached pools until they include `block` (a refresh already under way may predate it). */
export async function refreshPoolsTo(chain: ChainVenue, block: bigint): Promise<void> {
  for (let attempt = 0; attempt < 5 && chain.blockNumber < block; attempt++) await chain.refresh()
}
