import type { Address } from 'viem'

/**
 * A ladder strategy's config that sells 0.01 WETH at four prices far above any market on chain 1: every level stays
 * open until cancelled (on stop, or by hand).
 */
export function farLadderConfig({ weth, usdc }: { weth: Address; usdc: Address }) {
  return {
    chainId: 1,
    side: 'sell',
    base: { address: weth, decimals: 18 },
    quote: { address: usdc, decimals: 6 },
    lowerPrice: '100000',
    upperPrice: '100300',
    levels: 4,
    sizePerLevel: '10000000000000000',
    validitySeconds: 7200,
  }
}
