import type { Address } from 'viem'
import { getContractArtifact } from '../contracts/compile.js'
import type { LocalClients } from './clients.js'

export type PlaceContractParameters = {
  /** Solidity contract name. */
  name: string
  address: Address
}

/**
 * Puts a contract's runtime code at a chosen address (production addresses included) with anvil_setCode.
 * No constructor runs: every sandbox contract takes its state from an `initialize` call made afterwards.
 */
export async function placeContract(clients: LocalClients, parameters: PlaceContractParameters): Promise<Address> {
  const { deployedBytecode } = getContractArtifact(parameters.name)
  await clients.testClient.setCode({ address: parameters.address, bytecode: deployedBytecode })
  return parameters.address
}
