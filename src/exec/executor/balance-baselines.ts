import type { Address } from 'viem'
import { requireChainClients } from '../../chain/chain-clients.js'
import { readTokenBalance } from '../../chain/token-flows.js'
import { nativeTokenPlaceholder } from '../../protocol/addresses.js'
import type { ExecutorContext } from './executor-context.js'

/**
 * Records the account's balances of the tokens an order will move (and of the native token, which pays the gas) the
 * first time deltaflow trades them: the starting point of the conservation check. Read at one block before anything
 * of the order is signed or sent; a token already recorded keeps its first baseline.
 */
export async function recordBalanceBaselines(
  context: Pick<ExecutorContext, 'journal' | 'chains' | 'account'>,
  holdings: readonly { chainId: number; tokens: readonly Address[] }[],
): Promise<void> {
  const { journal, account } = context
  for (const { chainId, tokens } of holdings) {
    const wanted = [...new Set([...tokens, nativeTokenPlaceholder].map((token) => token.toLowerCase() as Address))].filter(
      (token) => !journal.hasBalanceBaseline(chainId, account.address, token),
    )
    if (wanted.length === 0) continue
    const { publicClient } = requireChainClients(context.chains, chainId)
    const blockNumber = await publicClient.getBlockNumber()
    const amounts = await Promise.all(wanted.map((token) => readTokenBalance(publicClient, account.address, token, blockNumber)))
    wanted.forEach((token, index) => {
      journal.recordBalanceBaseline({
        chainId,
        account: account.address,
        token,
        amount: amounts[index] ?? 0n,
        blockNumber: Number(blockNumber),
      })
    })
  }
}
