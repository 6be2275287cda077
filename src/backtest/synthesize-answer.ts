import type { Address } from 'viem'
import type { z } from 'zod'
import { deltaPriceSchema } from '../api/delta/delta-price-schema.js'
import { marketPriceRouteSchema } from '../api/market/price-route-schema.js'
import type { Quote } from '../feed/quote.js'
import { deltaAddress, marketRouterAddress, nativeTokenPlaceholder } from '../protocol/addresses.js'
import type { ReplayCosts, ReplayRequest } from './replay-source.js'

// A quote store packed without answers keeps only the flat fields of each quote. A replayed quote still needs an
// answer a client could have parsed (the executor reads its costs, the simulated venue its amounts), so one is made
// from those fields, in the service's JSON, and parsed with the real schemas.

/** Names the synthesized answers: as exchange, bridge-less route id prefix and hmac. Not a route the service issued. */
export const synthesizedAnswerTag = 'deltaflow-replay'

export type SynthesizeAnswerParameters = {
  request: ReplayRequest
  /** Which mode answered: the request's source, or for a `unified` request the one the recording names. */
  source: 'delta' | 'market'
  srcAmount: bigint
  destAmount: bigint
  costs: ReplayCosts
  /** Clock ms of the quote (for the Delta price id). */
  time: number
}

/**
 * A minimal answer carrying the quote's amounts and costs: a Delta PriceV2 (gas in the native token, partner fee,
 * bridge fees; a crosschain route without bridge details) or a Market priceRoute v6.2 (one swap on the exchange
 * `deltaflow-replay`, gas, partner fee, destAmountAfterFee). Writing it back with toRecordedQuoteJson gives the same
 * flat fields. It cannot be executed against the service (no hmac, no real route); a backtest fills it on paper.
 */
export function synthesizeAnswer(parameters: SynthesizeAnswerParameters): Quote['answer'] {
  return parameters.source === 'delta'
    ? { source: 'delta', price: deltaPriceSchema.parse(synthesizeDeltaPrice(parameters)) }
    : { source: 'market', route: marketPriceRouteSchema.parse(synthesizeMarketRoute(parameters)) }
}

function synthesizeDeltaPrice({
  request,
  srcAmount,
  destAmount,
  costs,
  time,
}: SynthesizeAnswerParameters): z.input<typeof deltaPriceSchema> {
  const { chainId, srcToken, destToken, side } = request.request
  const destChainId = request.request.destChainId ?? chainId
  const token = (chain: number, address: Address) => ({ chainId: chain, address: address.toLowerCase() as Address })
  const src = { token: token(chainId, srcToken), amount: srcAmount.toString(), amountUSD: '0' }
  const dest = { token: token(destChainId, destToken), amount: destAmount.toString(), amountUSD: '0' }
  return {
    id: `${synthesizedAnswerTag}-${time}-${request.id}`,
    side,
    inputToken: src.token,
    outputToken: dest.token,
    route: {
      // Crosschain: the source amount leaves on its chain and the destination amount arrives on the other.
      origin: { input: src, output: destChainId === chainId ? dest : src },
      destination: { input: dest, output: dest },
      bridge: null,
      fees: {
        gas: { token: token(chainId, nativeTokenPlaceholder), amount: (costs.gasWei ?? 0n).toString(), amountUSD: costs.gasUsd ?? '0' },
        bridge: (costs.bridge ?? []).map((fee) => ({
          token: token(fee.chainId, fee.token),
          amount: fee.amount.toString(),
          amountUSD: fee.usd,
        })),
      },
    },
    alternatives: [],
    partner: { name: 'anon', feePercent: costs.partnerPercent ?? 0 },
    spender: deltaAddress,
  }
}

function synthesizeMarketRoute({ request, srcAmount, destAmount, costs }: SynthesizeAnswerParameters): Record<string, unknown> {
  const { chainId, side } = request.request
  const srcToken = request.request.srcToken.toLowerCase()
  const destToken = request.request.destToken.toLowerCase()
  const amounts = { srcAmount: srcAmount.toString(), destAmount: destAmount.toString() }
  const swap = { srcToken, srcDecimals: request.srcDecimals, destToken, destDecimals: request.destDecimals }
  return {
    blockNumber: 0,
    network: chainId,
    srcToken,
    srcDecimals: request.srcDecimals,
    srcAmount: amounts.srcAmount,
    destToken,
    destDecimals: request.destDecimals,
    destAmount: amounts.destAmount,
    bestRoute: [{ percent: 100, swaps: [{ ...swap, swapExchanges: [{ exchange: synthesizedAnswerTag, ...amounts, percent: 100 }] }] }],
    gasCostUSD: costs.gasUsd ?? '0',
    gasCost: (costs.gasUnits ?? 0n).toString(),
    side,
    version: '6.2',
    contractAddress: marketRouterAddress,
    tokenTransferProxy: marketRouterAddress,
    contractMethod: side === 'SELL' ? 'swapExactAmountIn' : 'swapExactAmountOut',
    partnerFee: costs.partnerPercent ?? 0,
    srcUSD: '0',
    destUSD: '0',
    ...(costs.destAmountAfterFee !== undefined ? { destAmountAfterFee: costs.destAmountAfterFee.toString() } : {}),
    partner: 'anon',
    maxImpactReached: false,
    hmac: synthesizedAnswerTag,
  }
}
