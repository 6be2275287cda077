import { type Address, erc20Abi } from 'viem'
import { z } from 'zod'
import { marketRouterAddress, permit2Address } from '../../protocol/addresses.js'
import { getContractArtifact } from '../contracts/compile.js'
import { ApiError } from '../server/api-error.js'
import type { ChainVenue } from '../venue/chain-venue.js'
import { revertName } from './apply-permit.js'
import { marketErrors } from './market-errors.js'
import { invalidPermit, type Permit2Payload, permitNotSupported } from './market-permit.js'
import type { SwapCall } from './swap-call.js'

// Permit2's allowance(owner, token, spender) getter: (uint160 amount, uint48 expiration, uint48 nonce).
const permit2AllowanceSchema = z.tuple([z.bigint(), z.number(), z.number()])

/**
 * What a Permit2 payload needs beyond its bytes, checked before anything is read on-chain: an ERC-20 source; for a
 * signature transfer (96 bytes, which signs no amount or deadline of its own) the body's `deadline` and an amount
 * known before the build; for an allowance permit (192 bytes) an amount that covers the pull.
 */
export function checkPermit2Terms(call: SwapCall, permit: Permit2Payload, deadline: number | undefined): void {
  if (call.srcNative) throw permitNotSupported('the source is native ETH, which needs no approval')
  if (permit.type === 'permit2Transfer') {
    if (call.permit2Amount === undefined) {
      throw permitNotSupported(
        "a Permit2 signature transfer (96 bytes) cannot back a BUY from a market maker, whose amount the maker's firm quote sets at build time; use a Permit2 allowance permit (192 bytes) or an existing Permit2 allowance (0x01)",
      )
    }
    if (deadline === undefined) {
      throw invalidPermit(
        `a Permit2 signature transfer (96 bytes) signs a deadline: send that deadline (unix seconds) in the body; the transfer must be signed for the spender ${marketRouterAddress} and the amount ${call.permit2Amount}`,
      )
    }
  }
  if (permit.type === 'permit2Allowance' && permit.amount < call.maxSrcAmount) {
    throw invalidPermit(`its Permit2 allowance of ${permit.amount} is less than the ${call.maxSrcAmount} the swap may pull (raw units)`)
  }
}

/**
 * Checks a Permit2 payload against the chain as the router will use it: the source approved to Permit2 for the pull;
 * for 0x01 the router's Permit2 allowance, large enough and not expired; for 192 bytes Permit2's acceptance of the
 * signed allowance (unless the allowance an earlier use set still covers the pull); for 96 bytes Permit2's acceptance
 * of the signature transfer.
 */
export async function checkPermit2OnChain(
  chain: ChainVenue,
  call: SwapCall,
  user: Address,
  permit: Permit2Payload,
  deadline: bigint,
): Promise<void> {
  const { publicClient } = chain.clients
  const token = call.srcToken
  const symbol = chain.tokenByAddress(token)?.symbol ?? token
  const need = call.maxSrcAmount
  const approved = await publicClient.readContract({
    address: token,
    abi: erc20Abi,
    functionName: 'allowance',
    args: [user, permit2Address],
  })
  if (approved < need) {
    throw new ApiError(marketErrors.insufficientAllowance, {
      message: `Not enough allowance: ${user} has approved ${approved} of ${symbol} (${token}) to Permit2 (${permit2Address}); with a Permit2 payload the router pulls through Permit2 and the swap needs ${need} (raw units). Approve Permit2 first`,
    })
  }
  const abi = getContractArtifact('Permit2').abi
  const rejected = (cause: unknown) => invalidPermit(`Permit2 rejected it (${revertName(cause)})`)
  if (permit.type === 'permit2Transfer') {
    try {
      // Permit2 takes the caller as the signed spender: the router.
      await publicClient.simulateContract({
        account: marketRouterAddress,
        address: permit2Address,
        abi,
        functionName: 'permitTransferFrom',
        args: [
          { permitted: { token, amount: call.permit2Amount ?? need }, nonce: permit.nonce, deadline },
          { to: marketRouterAddress, requestedAmount: need },
          user,
          permit.signature,
        ],
      })
    } catch (cause) {
      throw rejected(cause)
    }
    return
  }
  const [allowed, expiration] = permit2AllowanceSchema.parse(
    await publicClient.readContract({ address: permit2Address, abi, functionName: 'allowance', args: [user, token, marketRouterAddress] }),
  )
  const now = (await publicClient.getBlock()).timestamp
  if (allowed >= need && BigInt(expiration) >= now) return
  if (permit.type === 'permit2Approved') {
    throw new ApiError(marketErrors.insufficientAllowance, {
      message: `Not enough allowance: the Permit2 allowance of ${user} for the router ${marketRouterAddress} is ${allowed} of ${symbol} (${token}), expiring at ${expiration}; the swap needs ${need} (raw units) before then. Approve the router on Permit2, or send a signed Permit2 payload`,
    })
  }
  if (permit.expiration !== 0n && permit.expiration < now) {
    throw invalidPermit(`its Permit2 allowance expires at ${permit.expiration}, before the latest block (${now})`)
  }
  try {
    await publicClient.simulateContract({
      account: user,
      address: permit2Address,
      abi,
      functionName: 'permit',
      args: [
        user,
        {
          details: { token, amount: permit.amount, expiration: Number(permit.expiration), nonce: Number(permit.nonce) },
          spender: marketRouterAddress,
          sigDeadline: permit.sigDeadline,
        },
        permit.signature,
      ],
    })
  } catch (cause) {
    throw rejected(cause)
  }
}
