import { formatUnits } from 'viem'
import { shortAddress, type TokenLabels } from '../token-labels.js'
import type { TokenLabelView } from './token-answer.js'

/** How the console shows tokens: each one's label (read before, see TokenLabels.read) and amounts in its units. */
export type TokenView = {
  labelOf: (chainId: number, token: string) => TokenLabelView
  /** `amount` (raw) in the token's units, or null when its decimals are unknown. */
  unitsOf: (chainId: number, token: string, amount: bigint) => string | null
}

export function tokenViewOf(labels: Pick<TokenLabels, 'known'>): TokenView {
  return {
    labelOf: (chainId, token) => {
      const label = labels.known(chainId, token)
      return {
        chainId,
        address: token,
        symbol: label?.symbol ?? null,
        decimals: label?.decimals ?? null,
        name: label?.symbol ?? shortAddress(token),
      }
    },
    unitsOf: (chainId, token, amount) => {
      const label = labels.known(chainId, token)
      return label ? formatUnits(amount, label.decimals) : null
    },
  }
}
