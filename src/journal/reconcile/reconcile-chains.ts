import type { PublicClient } from 'viem'

/** Read clients of the chains the account trades on, by chain id (createChainClients' map fits). */
export type ReconcileChains = ReadonlyMap<number, { publicClient: PublicClient }>
