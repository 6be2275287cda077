import { type Address, erc20Abi, type PublicClient } from 'viem'
import { minBigint } from './otc-order.js'

export type ReadMakerFundsParameters = {
  token: Address
  maker: Address
  /** The RFQ contract, which pulls the maker asset on a fill. */
  spender: Address
}

export type MakerFunds = { balance: bigint; allowance: bigint; available: bigint }

/** Balance and allowance of a maker in one token; `available` is what a fill could move (their minimum). */
export async function readMakerFunds(client: PublicClient, { token, maker, spender }: ReadMakerFundsParameters): Promise<MakerFunds> {
  const [balance, allowance] = await Promise.all([
    client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [maker] }),
    client.readContract({ address: token, abi: erc20Abi, functionName: 'allowance', args: [maker, spender] }),
  ])
  return { balance, allowance, available: minBigint(balance, allowance) }
}
