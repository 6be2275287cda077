import { type Abi, type Address, encodeFunctionData, type Hash, type Hex } from 'viem'
import { BaseError } from '../../errors/base.js'
import type { LocalClients } from './clients.js'

export class FixtureTransactionError extends BaseError {
  override name = 'FixtureTransactionError'
}

export type FixtureCall = {
  from: Address
  to: Address
  abi: Abi
  functionName: string
  args?: readonly unknown[]
  value?: bigint
}

/**
 * Sends a call from an unlocked or impersonated account with one eth_sendTransaction: anvil fills nonce and gas
 * and, with automine, mines it before answering, so calls from one sender run in order.
 */
export function sendFixtureCall(clients: LocalClients, call: FixtureCall): Promise<Hash> {
  // Desks share sandbox actors (the operator mints for several of them): concurrent sends from one account would race
  // for the same nonce, so each account's sends run one at a time.
  const key = `${clients.chain.rpcUrls.default.http[0]}|${call.from.toLowerCase()}`
  const result = (senderTails.get(key) ?? Promise.resolve()).then(() => sendNow(clients, call))
  const tail = result.then(
    () => undefined,
    () => undefined,
  )
  senderTails.set(key, tail)
  void tail.then(() => {
    if (senderTails.get(key) === tail) senderTails.delete(key)
  })
  return result
}

const senderTails = new Map<string, Promise<void>>()

async function sendNow(clients: LocalClients, call: FixtureCall): Promise<Hash> {
  const data: Hex = encodeFunctionData({ abi: call.abi, functionName: call.functionName, args: call.args ?? [] })
  const transaction: { from: Address; to: Address; data: Hex; value?: Hex } = { from: call.from, to: call.to, data }
  if (call.value !== undefined) transaction.value = `0x${call.value.toString(16)}`
  try {
    return await clients.publicClient.request({ method: 'eth_sendTransaction', params: [transaction] } as never)
  } catch (cause) {
    throw new FixtureTransactionError(`Setting up chain ${clients.chain.id} failed at ${call.functionName}`, {
      cause,
      details: { to: call.to, from: call.from, functionName: call.functionName },
    })
  }
}

/** Sends calls in order, one after the other (one sender, one nonce sequence). */
export async function sendFixtureCalls(clients: LocalClients, calls: readonly FixtureCall[]): Promise<Hash[]> {
  const hashes: Hash[] = []
  for (const call of calls) hashes.push(await sendFixtureCall(clients, call))
  return hashes
}
