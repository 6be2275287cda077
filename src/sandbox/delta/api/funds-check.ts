import { type Address, type Hex, hexToBigInt, toFunctionSelector } from 'viem'
import { permit2Address } from '../../../protocol/addresses.js'
import type { DeltaPermitType } from '../../../protocol/delta-permit.js'
import type { ChainVenue } from '../../venue/chain-venue.js'
import { ethCalls, type RpcRequest } from './rpc-batch.js'

// Calldata written by hand: these few reads run on every submission, and ABI encoding through viem cost more than the
// rest of the check.
const selectors = {
  balanceOf: toFunctionSelector('balanceOf(address)'),
  allowance: toFunctionSelector('allowance(address,address)'),
  nativeBalanceOf: toFunctionSelector('nativeBalanceOf(address)'),
  permit2Allowance: toFunctionSelector('allowance(address,address,address)'),
}

export type ReadSpendableParameters = {
  chain: ChainVenue
  delta: Address
  owner: Address
  /** The source token, or the native placeholder (then the owner's deposit in the Delta contract counts). */
  token: Address
  native: boolean
  /** How the order pulls the source: a signed permit brings its own allowance. */
  permitType: DeltaPermitType
  /** Unix seconds, for the expiry of a Permit2 allowance. */
  now: bigint
}

/** What the Delta contract may take from the owner: the allowance it can use, and the balance behind it. */
export type Spendable = { allowance: bigint; balance: bigint }

const unlimited = (1n << 256n) - 1n

/**
 * Reads balance and allowance in one batched RPC round trip: ERC-20 allowance to the Delta contract (no permit), or
 * for an existing Permit2 allowance (0x01) the smaller of the token's allowance to Permit2 and Permit2's unexpired
 * allowance to Delta; a signed permit counts as unlimited (it grants the allowance at settlement). A native source
 * needs no allowance; its balance is the owner's deposit in the Delta contract.
 */
export async function readSpendable({ chain, delta, owner, token, native, permitType, now }: ReadSpendableParameters): Promise<Spendable> {
  if (native) {
    const [deposit] = await ethCalls(chain.rpcUrl, [call(delta, selectors.nativeBalanceOf, owner)])
    return { allowance: unlimited, balance: wordAt(deposit, 0) }
  }
  const balanceCall = call(token, selectors.balanceOf, owner)
  if (permitType === 'none') {
    const [allowance, balance] = await ethCalls(chain.rpcUrl, [call(token, selectors.allowance, owner, delta), balanceCall])
    return { allowance: wordAt(allowance, 0), balance: wordAt(balance, 0) }
  }
  if (permitType === 'permit2Approved') {
    const [toPermit2, permit2Allowance, balance] = await ethCalls(chain.rpcUrl, [
      call(token, selectors.allowance, owner, permit2Address),
      call(permit2Address, selectors.permit2Allowance, owner, token, delta),
      balanceCall,
    ])
    // Permit2's allowance is (uint160 amount, uint48 expiration, uint48 nonce); it is spendable up to its expiration.
    const fromPermit2 = wordAt(permit2Allowance, 1) >= now ? wordAt(permit2Allowance, 0) : 0n
    return { allowance: smallerOf(wordAt(toPermit2, 0), fromPermit2), balance: wordAt(balance, 0) }
  }
  const [balance] = await ethCalls(chain.rpcUrl, [balanceCall])
  return { allowance: unlimited, balance: wordAt(balance, 0) }
}

/** What the Delta contract can actually take: the smaller of allowance and balance. */
export function usableAmount({ allowance, balance }: Spendable): bigint {
  return smallerOf(allowance, balance)
}

function smallerOf(a: bigint, b: bigint): bigint {
  if (a < b) return a
  return b
}

function call(to: Address, selector: Hex, ...addresses: Address[]): RpcRequest {
  const data = `${selector}${addresses.map((address) => address.slice(2).toLowerCase().padStart(64, '0')).join('')}`
  return { method: 'eth_call', params: [{ to, data }, 'latest'] }
}

/** Word `index` of an answer; a reverted or short answer counts as 0 (a token that cannot answer cannot be spent). */
function wordAt(data: Hex | undefined, index: number): bigint {
  const word = data?.slice(2 + 64 * index, 2 + 64 * (index + 1))
  return word && word.length === 64 ? hexToBigInt(`0x${word}`) : 0n
}
