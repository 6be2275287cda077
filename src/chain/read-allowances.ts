import { type Address, type Client, erc20Abi, isAddressEqual, parseAbi } from 'viem'
import { getBlock, readContract } from 'viem/actions'
import { nativeTokenPlaceholder, permit2Address } from '../protocol/addresses.js'
import type { Permit2Allowances } from './approval-plan.js'
import type { Spender } from './spender.js'

export const permit2Abi = parseAbi([
  'function allowance(address owner, address token, address spender) view returns (uint160 amount, uint48 expiration, uint48 nonce)',
  'function nonceBitmap(address owner, uint256 wordPosition) view returns (uint256)',
  'function approve(address token, address spender, uint160 amount, uint48 expiration)',
])

export type ReadAllowancesParameters = { token: Address; owner: Address; spender: Spender }

export type ReadAllowancesReturnType = {
  currentAllowance: bigint
  /** Delta spenders only (the other modes take no Permit2 here). */
  currentPermit2Allowance?: Permit2Allowances & { nonce: bigint; expiration: bigint }
}

/**
 * The allowances planApproval takes: the owner's ERC-20 allowance to the spender and, for Delta, to Permit2 plus
 * Permit2's allowance to the spender (counted as 0 once expired, judged by the latest block's timestamp).
 */
export async function readAllowances(
  client: Client,
  { token, owner, spender }: ReadAllowancesParameters,
): Promise<ReadAllowancesReturnType> {
  if (isAddressEqual(token, nativeTokenPlaceholder)) return { currentAllowance: 0n }
  const allowanceTo = (to: Address) => readContract(client, { address: token, abi: erc20Abi, functionName: 'allowance', args: [owner, to] })
  if (spender.mode !== 'delta') return { currentAllowance: await allowanceTo(spender.address) }
  const [currentAllowance, toPermit2, [amount, expiration, nonce], block] = await Promise.all([
    allowanceTo(spender.address),
    allowanceTo(permit2Address),
    readContract(client, { address: permit2Address, abi: permit2Abi, functionName: 'allowance', args: [owner, token, spender.address] }),
    getBlock(client, { blockTag: 'latest' }),
  ])
  // Permit2 allows spending up to and including the expiration second.
  const usable = BigInt(expiration) >= block.timestamp ? amount : 0n
  return {
    currentAllowance,
    currentPermit2Allowance: { token: toPermit2, spender: usable, nonce: BigInt(nonce), expiration: BigInt(expiration) },
  }
}
