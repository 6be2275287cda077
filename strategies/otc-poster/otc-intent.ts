import type { DeepReadonly, IntentRequest } from '../../src/index.js'
import type { OtcPosterConfig } from './otc-poster-config.js'
import type { Generation } from './poster-state.js'

export type OtcOrderTerms = Pick<Generation, 'generation' | 'expiry' | 'makerAmount' | 'takerAmount'>

/** The intent key of a generation: a re-post is a new generation, hence a new intent and a new order. */
export function generationKey(generation: number): string {
  return `otc-gen-${generation}`
}

/** The P2P OTC intent of one generation: sell makerAmount for takerAmount to the configured taker until expiry. */
export function otcIntentRequest(config: DeepReadonly<OtcPosterConfig>, terms: OtcOrderTerms): IntentRequest {
  return {
    key: generationKey(terms.generation),
    intent: {
      kind: 'otc',
      chainId: config.chainId,
      makerAsset: config.makerAsset,
      takerAsset: config.takerAsset,
      makerAmount: terms.makerAmount,
      takerAmount: terms.takerAmount,
      taker: config.taker,
      expiry: terms.expiry,
    },
  }
}
