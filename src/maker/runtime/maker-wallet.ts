import { type Address, erc20Abi } from 'viem'
import { getBlockNumber, readContract } from 'viem/actions'
import type { ChainClients } from '../../chain/chain-clients.js'
import { requireChainClients } from '../../chain/chain-clients.js'
import type { Clock } from '../../time/clock.js'
import type { MakerBalanceRequest } from '../maker-strategy.js'

/** What the maker wallet holds of a token and what the chain's RFQ contract may pull of it. */
export type MakerWalletEntry = MakerBalanceRequest & { balance: bigint; allowance: bigint; at: number }

export type MakerWallet = {
  /**
   * Reads every token's balance and RFQ allowance, each chain at one block. Calls made while a read runs share the
   * read that follows it (so a caller that saw a fill gets a read made after the fill).
   */
  refresh: () => Promise<void>
  get: (chainId: number, token: Address) => MakerWalletEntry | undefined
  entries: () => MakerWalletEntry[]
}

export type CreateMakerWalletParameters = {
  chains: ReadonlyMap<number, ChainClients>
  owner: Address
  tokens: readonly MakerBalanceRequest[]
  /** The RFQ contract of a chain. */
  rfqOf: (chainId: number) => Address
  clock: Clock
}

export function createMakerWallet({ chains, owner, tokens, rfqOf, clock }: CreateMakerWalletParameters): MakerWallet {
  const known = new Map<string, MakerWalletEntry>()
  const keyOf = (chainId: number, token: Address) => `${chainId}:${token.toLowerCase()}`
  const byChain = new Map<number, Address[]>()
  for (const { chainId, token } of tokens) {
    const list = byChain.get(chainId) ?? []
    if (!list.some((other) => other.toLowerCase() === token.toLowerCase())) list.push(token)
    byChain.set(chainId, list)
  }
  let running: Promise<void> | undefined
  let next: Promise<void> | undefined

  async function read(): Promise<void> {
    await Promise.all(
      [...byChain].map(async ([chainId, list]) => {
        const client = requireChainClients(chains, chainId).publicClient
        const rfq = rfqOf(chainId)
        const blockNumber = await getBlockNumber(client, { cacheTime: 0 })
        const entries = await Promise.all(
          list.map(async (token) => {
            const [balance, allowance] = await Promise.all([
              readContract(client, { address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner], blockNumber }),
              readContract(client, { address: token, abi: erc20Abi, functionName: 'allowance', args: [owner, rfq], blockNumber }),
            ])
            return { chainId, token, balance, allowance, at: clock.now() }
          }),
        )
        for (const entry of entries) known.set(keyOf(chainId, entry.token), entry)
      }),
    )
  }

  function refresh(): Promise<void> {
    if (!running) {
      running = read().finally(() => {
        running = undefined
      })
      return running
    }
    next ??= running
      .catch(() => undefined)
      .then(() => {
        next = undefined
        return refresh()
      })
    return next
  }

  return { refresh, get: (chainId, token) => known.get(keyOf(chainId, token)), entries: () => [...known.values()] }
}

/** What the RFQ contract can actually take of a token: the smaller of the balance and the allowance. */
export function spendableOf({ balance, allowance }: Pick<MakerWalletEntry, 'balance' | 'allowance'>): bigint {
  if (allowance < balance) return allowance
  return balance
}
