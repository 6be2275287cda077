import { type Abi, type Address, encodeFunctionData, type Hash, type Hex, numberToHex } from 'viem'
import { BaseError } from '../../errors/base.js'
import type { LocalClients } from './clients.js'
import { waitForLocalReceipt } from './receipt.js'

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

// anvil answers eth_sendTransaction before it mines the transaction, and fills in a missing gas limit by estimating
// the call against the last mined block. A call sent while the one before it is still waiting to be mined (a busy
// machine) is estimated without it: a pool's sync() after the mint of its second token got the gas of writing one
// reserve instead of two, ran out of gas, and left the pool with reserves of zero. So a call either waits for the one
// before it, or carries its own gas limit; and every call's receipt is checked.

/** Gas limit of the calls of sendFixtureCalls: above what any sandbox set-up call needs (a token initialize, ~200k). */
const batchCallGas = 2_000_000n

/**
 * Sends a call from an unlocked or impersonated account (anvil fills nonce and gas) and waits until it is mined, so
 * the next call from the same account is estimated against it. Throws FixtureTransactionError when it reverts.
 */
export function sendFixtureCall(clients: LocalClients, call: FixtureCall): Promise<Hash> {
  return inSenderOrder(clients, call.from, async () => {
    const hash = await sendNow(clients, call)
    await requireSuccess(clients, call, hash)
    return hash
  })
}

/**
 * Sends calls in order (one nonce sequence per sender) with a fixed gas limit, without waiting for each to be mined,
 * then waits for all of them. Throws FixtureTransactionError when one reverted.
 */
export async function sendFixtureCalls(clients: LocalClients, calls: readonly FixtureCall[]): Promise<Hash[]> {
  const hashes: Hash[] = []
  for (const call of calls) hashes.push(await inSenderOrder(clients, call.from, () => sendNow(clients, call, batchCallGas)))
  await Promise.all(calls.map((call, index) => requireSuccess(clients, call, hashes[index] as Hash)))
  return hashes
}

/**
 * Desks share sandbox actors (the operator mints for several of them): concurrent sends from one account would race
 * for the same nonce, so each account's sends run one at a time.
 */
function inSenderOrder<T>(clients: LocalClients, from: Address, send: () => Promise<T>): Promise<T> {
  const key = `${clients.chain.rpcUrls.default.http[0]}|${from.toLowerCase()}`
  const result = (senderTails.get(key) ?? Promise.resolve()).then(send)
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

async function sendNow(clients: LocalClients, call: FixtureCall, gas?: bigint): Promise<Hash> {
  const data: Hex = encodeFunctionData({ abi: call.abi, functionName: call.functionName, args: call.args ?? [] })
  const transaction: { from: Address; to: Address; data: Hex; value?: Hex; gas?: Hex } = { from: call.from, to: call.to, data }
  if (call.value !== undefined) transaction.value = numberToHex(call.value)
  if (gas !== undefined) transaction.gas = numberToHex(gas)
  try {
    return await clients.publicClient.request({ method: 'eth_sendTransaction', params: [transaction] } as never)
  } catch (cause) {
    throw new FixtureTransactionError(`Setting up chain ${clients.chain.id} failed at ${call.functionName}`, {
      cause,
      details: { to: call.to, from: call.from, functionName: call.functionName },
    })
  }
}

async function requireSuccess(clients: LocalClients, call: FixtureCall, hash: Hash): Promise<void> {
  const receipt = await waitForLocalReceipt(clients.publicClient, hash)
  if (receipt.status !== 'success') {
    throw new FixtureTransactionError(`Setting up chain ${clients.chain.id} failed at ${call.functionName}: the transaction reverted`, {
      details: { to: call.to, from: call.from, functionName: call.functionName, hash, gasUsed: receipt.gasUsed.toString() },
    })
  }
}
