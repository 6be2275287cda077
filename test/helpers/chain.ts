import { type Address, getAddress, keccak256, stringToHex } from 'viem'
import { afterAll, beforeAll } from 'vitest'
import { type AnvilInstance, startAnvil } from '../../src/sandbox/chains/anvil.js'
import { createLocalClients, type LocalClients } from '../../src/sandbox/chains/clients.js'
import { placeContract } from '../../src/sandbox/chains/place-contract.js'

export type TestChain = LocalClients & {
  anvil: AnvilInstance
  /** Places `name` at an address derived from `label` (default: the name) and returns it. */
  place: (name: string, label?: string) => Promise<Address>
}

/** A deterministic address for a label, for contracts placed in tests. */
export function labelAddress(label: string): Address {
  return getAddress(`0x${keccak256(stringToHex(`deltaflow.test.${label}`)).slice(-40)}`)
}

/** Starts a fresh anvil node for the surrounding describe block and stops it afterwards. */
export function useTestChain(chainId = 31_337): () => TestChain {
  let chain: TestChain | undefined
  beforeAll(async () => {
    const anvil = await startAnvil({ chainId })
    const clients = createLocalClients(chainId, anvil.rpcUrl)
    chain = {
      ...clients,
      anvil,
      place: (name, label = name) => placeContract(clients, { name, address: labelAddress(label) }),
    }
  })
  afterAll(async () => {
    await chain?.anvil.stop()
  })
  return () => {
    if (!chain) throw new Error('useTestChain: chain not started (call inside describe, use inside it)')
    return chain
  }
}
