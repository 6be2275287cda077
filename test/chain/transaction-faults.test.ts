import {
  type Address,
  type Chain,
  createWalletClient,
  type Hex,
  http,
  type PublicClient,
  parseGwei,
  publicActions,
  type Transport,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterEach, describe, expect, it } from 'vitest'
import { createChainClients } from '../../src/chain/chain-clients.js'
import { TransactionDroppedError } from '../../src/chain/transaction-errors.js'
import { createTransactionQueue, type SignedTransaction } from '../../src/chain/transaction-queue.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { defineLocalChain } from '../../src/sandbox/chains/clients.js'
import { waitForLocalReceipt } from '../../src/sandbox/chains/receipt.js'
import { useTestChain } from '../helpers/chain.js'
import { nodeRequest } from '../helpers/rpc-interceptor.js'

const chainId = 31_337

function keyOf(index: number): Hex {
  const key = developmentAccounts[index]?.privateKey
  if (!key) throw new Error(`no development account ${index}`)
  return key
}

let recipientCounter = 0
function recipient(): Address {
  recipientCounter += 1
  return `0x${(0xfa170000 + recipientCounter).toString(16).padStart(40, '0')}`
}

/** Polls `condition` every 25 ms; fails with `what` after 800 tries (a bound for a loaded machine, not a timing check). */
async function waitUntil(what: string, condition: () => Promise<boolean>): Promise<void> {
  for (let attempt = 0; attempt < 800; attempt++) {
    if (await condition()) return
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`gave up waiting until ${what}`)
}

describe('transaction queue under mempool faults', () => {
  const testChain = useTestChain(chainId)
  const rpcUrl = () => testChain().anvil.rpcUrl
  const rpc = (method: string, params: readonly unknown[] = []) => nodeRequest(rpcUrl(), method, params)
  const client = (): PublicClient<Transport, Chain> =>
    createChainClients({ chains: [{ chainId, rpcUrls: [rpcUrl()] }], pollingIntervalMs: 50 }).get(chainId)?.publicClient ??
    expect.unreachable('no client')
  /** Another process holding the same key: its own client, its own nonces. */
  const otherProcess = (index: number) =>
    createWalletClient({
      account: privateKeyToAccount(keyOf(index)),
      chain: defineLocalChain(chainId, rpcUrl()),
      transport: http(rpcUrl()),
    }).extend(publicActions)
  /** A queue for a development account that records every transaction it signs, in order. */
  const recordingQueue = (index: number) => {
    const signed: SignedTransaction[] = []
    const queue = createTransactionQueue({
      client: client(),
      account: privateKeyToAccount(keyOf(index)),
      receiptTimeoutMs: 15_000,
      beforeBroadcast: (transaction) => {
        signed.push(transaction)
      },
    })
    return { queue, signed }
  }
  const inMempool = async (hash: Hex) => (await rpc('eth_getTransactionByHash', [hash])) !== null
  const minedNonce = (address: Address) => client().getTransactionCount({ address, blockTag: 'latest' })

  afterEach(async () => {
    await rpc('evm_setAutomine', [true])
  })

  it.each(['anvil_dropTransaction', 'anvil_dropAllTransactions'] as const)(
    'broadcasts a transaction the node dropped (%s) again with its nonce and hash, leaving no gap behind it',
    async (drop) => {
      const { queue, signed } = recordingQueue(drop === 'anvil_dropTransaction' ? 1 : 2)
      const start = await minedNonce(queue.account)
      await rpc('evm_setAutomine', [false])
      const sends = [queue.send({ to: recipient(), value: 1n }), queue.send({ to: recipient(), value: 2n })]
      await waitUntil('both transactions wait in the mempool', async () => {
        const hashes = signed.map((transaction) => transaction.hash)
        return hashes.length === 2 && (await Promise.all(hashes.map(inMempool))).every(Boolean)
      })
      const [first, second] = signed as [SignedTransaction, SignedTransaction]
      if (drop === 'anvil_dropTransaction') await rpc(drop, [first.hash])
      else await rpc(drop)
      expect(await inMempool(first.hash)).toBe(false)

      // A transaction behind a gap waits unseen; both show again once the first is back.
      await waitUntil('both transactions wait in the mempool again', async () =>
        (await Promise.all([first.hash, second.hash].map(inMempool))).every(Boolean),
      )
      await rpc('evm_mine')
      const sent = await Promise.all(sends)

      expect(sent.map((transaction) => [transaction.hash, transaction.nonce])).toEqual([
        [first.hash, start],
        [second.hash, start + 1],
      ])
      expect(sent.map((transaction) => transaction.receipt.transactionHash)).toEqual([first.hash, second.hash])
      expect(sent.every((transaction) => transaction.receipt.status === 'success')).toBe(true)
      // Signed once each: the same bytes went out again, so neither could be mined twice.
      expect(signed).toHaveLength(2)
      expect(await minedNonce(queue.account)).toBe(start + 2)
    },
  )

  it('reports a transaction whose nonce another sender took as dropped, never with the other sender’s receipt', async () => {
    const { queue, signed } = recordingQueue(3)
    const other = otherProcess(3)
    const start = await minedNonce(queue.account)
    await rpc('evm_setAutomine', [false])
    const send = queue.send({ to: recipient(), value: 1n }).catch((error: unknown) => error)
    await waitUntil('the transaction waits in the mempool', async () => signed[0] !== undefined && (await inMempool(signed[0].hash)))
    const ours = signed[0] as SignedTransaction
    // The other process sends at the same nonce with higher fees: the node replaces ours with it.
    const foreign = await other.sendTransaction({
      to: recipient(),
      value: 7n,
      nonce: start,
      maxFeePerGas: parseGwei('100'),
      maxPriorityFeePerGas: parseGwei('10'),
    })
    expect(await inMempool(ours.hash)).toBe(false)
    await rpc('evm_mine')

    const error = await send
    expect(error).toBeInstanceOf(TransactionDroppedError)
    expect(error).toMatchObject({ hash: ours.hash, nonce: start, errorClass: 'operational' })
    expect((await client().getTransactionReceipt({ hash: foreign })).status).toBe('success')

    await rpc('evm_setAutomine', [true])
    const next = await queue.send({ to: recipient(), value: 2n })
    expect(next.nonce).toBe(start + 1)
    expect(next.receipt.transactionHash).toBe(next.hash)
    expect(signed.map((transaction) => transaction.hash)).toEqual([ours.hash, next.hash])
    expect(await minedNonce(queue.account)).toBe(start + 2)
  })

  it('takes the next free nonce when another sender’s transaction waits in the mempool at the one it would use', async () => {
    const { queue, signed } = recordingQueue(4)
    const other = otherProcess(4)
    const first = await queue.send({ to: recipient(), value: 1n })
    await rpc('evm_setAutomine', [false])
    const foreign = await other.sendTransaction({
      to: recipient(),
      value: 7n,
      nonce: first.nonce + 1,
      maxFeePerGas: parseGwei('100'),
      maxPriorityFeePerGas: parseGwei('10'),
    })
    const send = queue.send({ to: recipient(), value: 2n })
    await waitUntil('the transaction waits in the mempool', async () => signed[1] !== undefined && (await inMempool(signed[1].hash)))
    await rpc('evm_mine')
    const next = await send

    expect(next.nonce).toBe(first.nonce + 2)
    // Signed once, at the free nonce: nothing was written down for a transaction the node was bound to refuse.
    expect(signed.map((transaction) => transaction.nonce)).toEqual([first.nonce, first.nonce + 2])
    expect((await client().getTransaction({ hash: foreign })).nonce).toBe(first.nonce + 1)
    expect(signed.map((transaction) => transaction.hash)).not.toContain(foreign)
    expect(await minedNonce(queue.account)).toBe(first.nonce + 3)
  })

  it('signs again with the next free nonce when another sender’s transaction is mined just before its broadcast', async () => {
    const other = otherProcess(5)
    let foreign: Hex | undefined
    const signed: SignedTransaction[] = []
    const refused: [Hex, string][] = []
    const queue = createTransactionQueue({
      client: client(),
      account: privateKeyToAccount(keyOf(5)),
      beforeBroadcast: async (transaction) => {
        signed.push(transaction)
        // The other process wins the race for the nonce between our read of it and our broadcast.
        if (foreign === undefined) {
          foreign = await other.sendTransaction({ to: recipient(), value: 7n, nonce: transaction.nonce })
          await waitForLocalReceipt(other, foreign)
        }
      },
      afterNonceRefusal: (transaction, reason) => {
        refused.push([transaction.hash, reason])
      },
    })
    const start = await minedNonce(queue.account)
    const sent = await queue.send({ to: recipient(), value: 1n })

    expect(sent.nonce).toBe(start + 1)
    expect(sent.receipt.transactionHash).toBe(sent.hash)
    expect(signed.map((transaction) => transaction.nonce)).toEqual([start, start + 1])
    // Told of the refused signature before the second one, so a journal can mark it dropped.
    expect(refused).toEqual([[signed[0]?.hash, 'nonce too low']])
    expect(signed.map((transaction) => transaction.hash)).not.toContain(foreign)
    expect(await minedNonce(queue.account)).toBe(start + 2)
  })
})
