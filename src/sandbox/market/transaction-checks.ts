import { type Address, erc20Abi } from 'viem'
import { marketRouterAddress } from '../../protocol/addresses.js'
import { ApiError } from '../server/api-error.js'
import type { ChainVenue } from '../venue/chain-venue.js'
import { marketErrors } from './market-errors.js'
import type { SwapCall } from './swap-call.js'

/** Balance and allowance of the source, read on-chain: what the router may take must be there and approved to it. */
export async function checkSwapFunds(chain: ChainVenue, call: SwapCall, user: Address): Promise<void> {
  const { publicClient } = chain.clients
  const needed = call.maxSrcAmount
  if (call.srcNative) {
    const balance = await publicClient.getBalance({ address: user })
    if (balance < needed) {
      throw new ApiError(marketErrors.insufficientBalance, {
        message: `Not enough balance: ${user} holds ${balance} wei of ETH; the swap sends ${needed} wei (before gas)`,
      })
    }
    return
  }
  const token = call.srcToken
  const symbol = chain.tokenByAddress(token)?.symbol ?? token
  const [balance, allowance] = await Promise.all([
    publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [user] }),
    publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'allowance', args: [user, marketRouterAddress] }),
  ])
  if (balance < needed) {
    throw new ApiError(marketErrors.insufficientBalance, {
      message: `Not enough balance: ${user} holds ${balance} of ${symbol} (${token}); the swap needs ${needed} (raw units)`,
    })
  }
  if (allowance < needed) {
    throw new ApiError(marketErrors.insufficientAllowance, {
      message: `Not enough allowance: ${user} has approved ${allowance} of ${symbol} (${token}) to the spender ${marketRouterAddress} (Market router v6.2); the swap needs ${needed} (raw units). Approve the router first`,
    })
  }
}

/**
 * Runs the built transaction from the user against the current state: eth_estimateGas (whose figure becomes `gas`)
 * or, when no estimate is wanted, eth_call. A revert becomes the service's failure message with the reason.
 */
export async function simulateSwap(
  chain: ChainVenue,
  call: SwapCall,
  user: Address,
  { estimate }: { estimate: boolean },
): Promise<bigint | undefined> {
  const transaction = { account: user, to: marketRouterAddress, data: call.data, value: call.value }
  try {
    if (estimate) return await chain.clients.publicClient.estimateGas(transaction)
    await chain.clients.publicClient.call(transaction)
    return undefined
  } catch (cause) {
    throw new ApiError(marketErrors.simulationFailed, {
      message: `${marketErrors.simulationFailed.message} (sandbox simulation from ${user} reverted: ${revertReason(cause)})`,
    })
  }
}

function revertReason(error: unknown): string {
  const text = error instanceof Error ? `${error.message}` : String(error)
  const match = /reverted(?: with reason string)?:?\s*'?"?([^'"\n]+)/i.exec(text)
  return match?.[1]?.trim() ?? text.split('\n')[0] ?? 'unknown reason'
}
