import type { Abi, Address, Hash, TransactionReceipt } from 'viem'
import { BaseError } from '../../../errors/base.js'
import { waitForLocalReceipt } from '../../chains/receipt.js'
import type { ChainVenue } from '../../venue/chain-venue.js'

export type SandboxCall = {
  from: Address
  to: Address
  abi: Abi
  functionName: string
  args?: readonly unknown[]
  value?: bigint
}

/**
 * Sends a call from an impersonated sandbox account and returns its receipt. The call is simulated first, so a call
 * that would revert throws viem's ContractFunctionExecutionError with the decoded revert and costs no transaction.
 */
export async function sendAs(chain: ChainVenue, call: SandboxCall): Promise<TransactionReceipt> {
  const { request } = await chain.clients.publicClient.simulateContract({
    // The block about to be mined: its timestamp (moved on by the sandbox clock) is what the contract will see.
    blockTag: 'pending',
    account: call.from,
    address: call.to,
    abi: call.abi,
    functionName: call.functionName,
    args: call.args ?? [],
    ...(call.value ? { value: call.value } : {}),
  } as never)
  const hash = await chain.clients.walletClient.writeContract({ ...(request as object), chain: chain.clients.chain } as never)
  return waitForReceipt(chain, hash)
}

/** Sends native coin from an impersonated sandbox account. */
export async function sendNativeAs(chain: ChainVenue, from: Address, to: Address, value: bigint): Promise<TransactionReceipt> {
  const hash = await chain.clients.walletClient.sendTransaction({ account: from, chain: chain.clients.chain, to, value })
  return waitForReceipt(chain, hash)
}

/** A transaction that passed simulation but reverted when mined (the state moved in between). */
export class SandboxTransactionRevertedError extends BaseError {
  override name = 'SandboxTransactionRevertedError'
}

async function waitForReceipt(chain: ChainVenue, hash: Hash): Promise<TransactionReceipt> {
  const receipt = await waitForLocalReceipt(chain.clients.publicClient, hash, { pollingIntervalMs: 25 })
  if (receipt.status !== 'success') {
    throw new SandboxTransactionRevertedError('Sandbox transaction reverted', {
      details: { hash, chainId: chain.chainId },
      errorClass: 'retryable',
    })
  }
  return receipt
}
