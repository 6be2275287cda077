import type { Chain } from 'viem'

type NativeCurrency = Chain['nativeCurrency']

const ether: NativeCurrency = { name: 'Ether', symbol: 'ETH', decimals: 18 }

/**
 * Names and native currencies of the chains the service lists (section 1 of the API document). Kept here rather
 * than read from viem/chains, whose few hundred modules add about two seconds to every start of the CLI.
 */
export const serviceChains: Readonly<Record<number, { name: string; nativeCurrency: NativeCurrency }>> = {
  1: { name: 'Ethereum', nativeCurrency: ether },
  10: { name: 'OP Mainnet', nativeCurrency: ether },
  56: { name: 'BNB Smart Chain', nativeCurrency: { name: 'BNB', symbol: 'BNB', decimals: 18 } },
  100: { name: 'Gnosis', nativeCurrency: { name: 'xDAI', symbol: 'XDAI', decimals: 18 } },
  130: { name: 'Unichain', nativeCurrency: ether },
  137: { name: 'Polygon', nativeCurrency: { name: 'POL', symbol: 'POL', decimals: 18 } },
  8453: { name: 'Base', nativeCurrency: ether },
  42161: { name: 'Arbitrum One', nativeCurrency: ether },
  43114: { name: 'Avalanche', nativeCurrency: { name: 'Avalanche', symbol: 'AVAX', decimals: 18 } },
}
