import {
  type Abi,
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  encodeFunctionData,
  type Hex,
  parseEventLogs,
  type TransactionReceipt,
} from 'viem'
import { waitForLocalReceipt } from '../../src/sandbox/chains/receipt.js'
import { getContractArtifact } from '../../src/sandbox/contracts/compile.js'
import type { TestChain } from './chain.js'

/**
 * What a reverted call said: `reason` for `require` strings, `errorName` / `args` for custom errors of the bound ABI,
 * `signature` (the 4-byte selector) for errors the ABI does not know, such as a callee's bubbled-up error.
 */
export type ContractRevert = {
  reason: string | undefined
  errorName: string | undefined
  args: readonly unknown[] | undefined
  signature: Hex | undefined
}

/** A compiled sandbox contract at one address, with loosely typed calls for tests. */
export type BoundContract = {
  address: Address
  abi: Abi
  read: (functionName: string, args?: readonly unknown[]) => Promise<unknown>
  /** The return value of a state-changing call, from eth_call. */
  simulate: (from: Address, functionName: string, args?: readonly unknown[], value?: bigint) => Promise<unknown>
  /** Sends the call from an unlocked anvil account and waits for a successful receipt. */
  send: (from: Address, functionName: string, args?: readonly unknown[], value?: bigint) => Promise<TransactionReceipt>
  /** Simulates the call and returns its revert; throws when it does not revert. */
  revert: (from: Address, functionName: string, args?: readonly unknown[], value?: bigint) => Promise<ContractRevert>
  /** Decoded events of this contract in a receipt. */
  events: (receipt: TransactionReceipt, eventName: string) => { eventName: string; args: unknown }[]
}

/** Binds `name`'s ABI to `address`; `chain` is read lazily, so handles can be declared at describe level. */
export function bindContract(chain: () => TestChain, name: string, address: Address): BoundContract {
  const { abi } = getContractArtifact(name)
  const simulate = async (from: Address, functionName: string, args: readonly unknown[] = [], value = 0n) => {
    const { result } = await chain().publicClient.simulateContract({ account: from, address, abi, functionName, args, value })
    return result
  }
  return {
    address,
    abi,
    read: (functionName, args = []) => chain().publicClient.readContract({ address, abi, functionName, args }),
    simulate,
    send: async (from, functionName, args = [], value = 0n) => {
      const { walletClient, publicClient } = chain()
      const data: Hex = encodeFunctionData({ abi, functionName, args })
      const hash = await walletClient.sendTransaction({ account: from, chain: walletClient.chain, to: address, data, value })
      const receipt = await waitForLocalReceipt(publicClient, hash)
      if (receipt.status !== 'success') throw new Error(`${name}.${functionName} reverted in transaction ${hash}`)
      return receipt
    },
    revert: async (from, functionName, args = [], value = 0n) => {
      try {
        await simulate(from, functionName, args, value)
      } catch (error) {
        const reverted = error instanceof BaseError ? error.walk((cause) => cause instanceof ContractFunctionRevertedError) : undefined
        if (!(reverted instanceof ContractFunctionRevertedError)) throw error
        return { reason: reverted.reason, errorName: reverted.data?.errorName, args: reverted.data?.args, signature: reverted.signature }
      }
      throw new Error(`${name}.${functionName} did not revert`)
    },
    events: (receipt, eventName) =>
      parseEventLogs({ abi, logs: receipt.logs, eventName }).filter((log) => log.address.toLowerCase() === address.toLowerCase()),
  }
}
