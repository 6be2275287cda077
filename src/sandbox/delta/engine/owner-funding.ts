import { type Address, erc20Abi, type Hex, maxUint256 } from 'viem'
import { permit2Address } from '../../../protocol/addresses.js'
import { type DeltaPermit, decodeDeltaPermit } from '../../../protocol/delta-permit.js'
import { getContractArtifact } from '../../contracts/compile.js'
import type { ChainVenue } from '../../venue/chain-venue.js'
import type { StoredDeltaOrder } from '../order-store.js'
import { isNative, type OrderTerms } from './order-terms.js'

/** What the owner can pay towards an order right now: its balance (or deposit) and what the contract may pull. */
export type OwnerFunding = { balance: bigint; allowance: bigint }

/**
 * Reads the owners' funding of several orders on one chain; the reads go out together in one JSON-RPC batch.
 * Native source: the owner's deposit in the Delta contract, no allowance needed. Otherwise the token balance and the
 * allowance the order's permit type pulls through (plain, or Permit2's), where a permit not yet used (no fill so far)
 * counts as the allowance it grants.
 */
export async function readOwnerFunding(
  chain: ChainVenue,
  orders: readonly { order: StoredDeltaOrder; terms: OrderTerms }[],
  nowSeconds: bigint,
): Promise<Map<string, OwnerFunding>> {
  const delta = chain.fixture.contracts.delta
  const result = new Map<string, OwnerFunding>()
  if (!delta) return result
  const reads = new Map<string, Promise<unknown>>()
  const read = (key: string, load: () => Promise<unknown>) => {
    let pending = reads.get(key)
    if (!pending) {
      pending = load()
      reads.set(key, pending)
    }
    return pending
  }
  const { publicClient } = chain.clients
  const erc20 = (token: Address, functionName: 'balanceOf' | 'allowance', args: readonly Address[]) =>
    read(`${token}:${functionName}:${args.join(':')}`.toLowerCase(), () =>
      publicClient.readContract({ address: token, abi: erc20Abi, functionName, args } as never),
    ) as Promise<bigint>

  await Promise.all(
    orders.map(async ({ order, terms }) => {
      const owner = terms.owner
      if (isNative(terms.srcToken)) {
        const deposit = (await read(`native:${owner}`.toLowerCase(), () =>
          publicClient.readContract({
            address: delta,
            abi: getContractArtifact('DeltaSettlement').abi,
            functionName: 'nativeBalanceOf',
            args: [owner],
          }),
        )) as bigint
        result.set(order.id, { balance: deposit, allowance: maxUint256 })
        return
      }
      const token = terms.srcToken
      const unused = order.transactions.length === 0
      const permit = decodePermitOrNone(terms.permit)
      const [balance, allowance] = await Promise.all([
        erc20(token, 'balanceOf', [owner]),
        (async () => {
          switch (permit.type) {
            case 'none':
              return erc20(token, 'allowance', [owner, delta])
            case 'eip2612': {
              const plain = await erc20(token, 'allowance', [owner, delta])
              return unused && permit.value > plain ? permit.value : plain
            }
            case 'dai': {
              const plain = await erc20(token, 'allowance', [owner, delta])
              return unused && permit.allowed ? maxUint256 : plain
            }
            case 'permit2Transfer':
              return erc20(token, 'allowance', [owner, permit2Address])
            case 'permit2Approved':
            case 'permit2Allowance': {
              const [toPermit2, [amount, expiration]] = await Promise.all([
                erc20(token, 'allowance', [owner, permit2Address]),
                read(`permit2:${owner}:${token}:${delta}`.toLowerCase(), () =>
                  publicClient.readContract({
                    address: permit2Address,
                    abi: getContractArtifact('Permit2').abi,
                    functionName: 'allowance',
                    args: [owner, token, delta],
                  }),
                ) as Promise<readonly [bigint, bigint | number, bigint | number]>,
              ])
              const granted = permit.type === 'permit2Allowance' && unused ? permit.amount : BigInt(expiration) >= nowSeconds ? amount : 0n
              return toPermit2 < granted ? toPermit2 : granted
            }
          }
        })(),
      ])
      result.set(order.id, { balance, allowance })
    }),
  )
  return result
}

/** A permit of a length with no meaning is judged by the contract at settlement (InvalidPermitLength → FAILED). */
function decodePermitOrNone(permit: Hex): DeltaPermit {
  try {
    return decodeDeltaPermit(permit)
  } catch {
    return { type: 'none' }
  }
}
