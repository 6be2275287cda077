import { type Address, encodeFunctionData, erc20Abi, isAddressEqual } from 'viem'
import { marketRouterAddress } from '../../protocol/addresses.js'
import { getContractArtifact } from '../contracts/compile.js'
import { ApiError } from '../server/api-error.js'
import type { ChainVenue } from '../venue/chain-venue.js'
import { marketErrors } from './market-errors.js'
import type { SwapCall } from './swap-call.js'

/**
 * Balance and allowance of the source, read on-chain: what the router may take must be there and approved to it.
 * With a Permit2 payload (`viaPermit2`) the allowance is Permit2's business (check-permit2.ts) and only the balance is
 * read here.
 */
export async function checkSwapFunds(chain: ChainVenue, call: SwapCall, user: Address, { viaPermit2 = false } = {}): Promise<void> {
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
  if (!viaPermit2 && allowance < needed) {
    throw new ApiError(marketErrors.insufficientAllowance, {
      message: `Not enough allowance: ${user} has approved ${allowance} of ${symbol} (${token}) to the spender ${marketRouterAddress} (Market router v6.2); the swap needs ${needed} (raw units). Approve the router first`,
    })
  }
}

/**
 * Runs the built transaction from the user against the current state: eth_estimateGas (whose figure becomes `gas`)
 * or, when no estimate is wanted, eth_call. With a `txOrigin` other than the user (an intermediary contract), it runs
 * as a transaction from txOrigin in which the user's contract calls the router: the contract's code is overridden,
 * for that call only, by a forwarder. A revert becomes the service's failure message with the reason.
 */
export async function simulateSwap(
  chain: ChainVenue,
  call: SwapCall,
  user: Address,
  { estimate, txOrigin }: { estimate: boolean; txOrigin?: Address | undefined },
): Promise<bigint | undefined> {
  const direct = { account: user, to: marketRouterAddress, data: call.data, value: call.value }
  const transaction =
    txOrigin === undefined || isAddressEqual(txOrigin, user)
      ? direct
      : {
          account: txOrigin,
          to: user,
          data: encodeFunctionData({
            abi: getContractArtifact('CallForwarder').abi,
            functionName: 'forward',
            args: [marketRouterAddress, call.value, call.data],
          }),
          stateOverride: [{ address: user, code: getContractArtifact('CallForwarder').deployedBytecode }],
        }
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
