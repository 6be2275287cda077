import {
  type Address,
  type Chain,
  createPublicClient,
  custom,
  encodeFunctionData,
  erc20Abi,
  http,
  type PublicClient,
  parseEther,
  type Transport,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { createChainClients } from '../../src/chain/chain-clients.js'
import { TransactionRevertedError, TransactionSendError } from '../../src/chain/transaction-errors.js'
import { createTransactionQueue } from '../../src/chain/transaction-queue.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { defineLocalChain } from '../../src/sandbox/chains/clients.js'
import { waitForLocalReceipt } from '../../src/sandbox/chains/receipt.js'
import { getContractArtifact } from '../../src/sandbox/contracts/compile.js'
import { ManualClock } from '../../src/time/clock.js'
import { sandboxToken, sandboxWallet, useSandbox } from '../helpers/sandbox.js'

const chainId = 8453
const usdtAbi = getContractArtifact('UsdtStyleToken').abi

function accountOf(index: number) {
  const key = developmentAccounts[index]?.privateKey
  if (!key) throw new Error(`no development account ${index}`)
  return privateKeyToAccount(key)
}

/** A fresh address per call, so transfers in one test never touch another's state. */
let recipientCounter = 0
function recipient(): Address {
  recipientCounter += 1
  return `0x${(0xc0de0000 + recipientCounter).toString(16).padStart(40, '0')}`
}

describe('createTransactionQueue', () => {
  const sandbox = useSandbox({ chainIds: [chainId] })
  const rpcUrl = () => sandbox().chains[0]?.rpcUrl ?? expect.unreachable('no chain')
  const client = (): PublicClient<Transport, Chain> =>
    createChainClients({ chains: [{ chainId, rpcUrls: [rpcUrl()] }], pollingIntervalMs: 50 }).get(chainId)?.publicClient ??
    expect.unreachable('no client')

  it('gives 20 concurrent sends 20 consecutive nonces, all mined', async () => {
    const account = accountOf(1)
    const publicClient = client()
    const start = await publicClient.getTransactionCount({ address: account.address, blockTag: 'pending' })
    const queue = createTransactionQueue({ client: publicClient, account })
    const sent = await Promise.all(Array.from({ length: 20 }, () => queue.send({ to: recipient(), value: 1n })))
    expect(sent.map((transaction) => transaction.nonce).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, index) => start + index),
    )
    expect(sent.every((transaction) => transaction.receipt.status === 'success')).toBe(true)
    expect(await publicClient.getTransactionCount({ address: account.address })).toBe(start + 20)
  })

  it('reuses the nonce of a send the node refused, leaving no gap', async () => {
    const account = accountOf(2)
    const publicClient = client()
    const queue = createTransactionQueue({ client: publicClient, account })
    const before = await queue.send({ to: recipient(), value: 1n })
    const balance = await publicClient.getBalance({ address: account.address })
    const refused = await queue.send({ to: recipient(), value: balance + parseEther('1'), fallbackGas: 21_000n }).catch((error) => error)
    expect(refused).toBeInstanceOf(TransactionSendError)
    expect(refused.errorClass).toBe('operational')
    const after = await queue.send({ to: recipient(), value: 1n })
    expect(after.nonce).toBe(before.nonce + 1)
    expect(after.receipt.status).toBe('success')
  })

  it('recovers when another sender used the account’s nonce behind its back', async () => {
    const account = accountOf(3)
    const publicClient = client()
    const queue = createTransactionQueue({ client: publicClient, account })
    const first = await queue.send({ to: recipient(), value: 1n })
    const wallet = sandboxWallet(sandbox(), chainId, 3)
    await waitForLocalReceipt(wallet, await wallet.sendTransaction({ to: recipient(), value: 1n }))
    const next = await queue.send({ to: recipient(), value: 1n })
    expect(next.nonce).toBe(first.nonce + 2)
    expect(next.receipt.status).toBe('success')
  })

  it('sends with the fallback gas plus the margin when the RPC cannot estimate, and reports the on-chain revert reason', async () => {
    const account = accountOf(4)
    const publicClient = client()
    const queue = createTransactionQueue({ client: publicClient, account, fallbackGasMarginPercent: 25 })
    const usdt = sandboxToken(sandbox(), chainId, 'USDT').address
    const spender = recipient()
    const approve = (amount: bigint) => encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, amount] })
    await queue.send({ to: usdt, data: approve(1n) })
    const error = await queue
      .send({ to: usdt, data: approve(2n), fallbackGas: 80_000n, abi: usdtAbi, label: 'approve USDT again' })
      .catch((caught) => caught)
    expect(error).toBeInstanceOf(TransactionRevertedError)
    expect(error.reason).toBe('ApproveFromNonZero(1)')
    expect(error.message).toMatch(/^Transaction 0x[0-9a-f]{64} reverted on chain 8453: ApproveFromNonZero\(1\)/)
    const mined = await publicClient.getTransaction({ hash: error.hash })
    expect(mined.gas).toBe(100_000n)
    expect((await publicClient.getTransactionReceipt({ hash: error.hash })).status).toBe('reverted')
  })

  it('refuses a transaction that would revert when there is no fallback gas, without sending it', async () => {
    const account = accountOf(5)
    const publicClient = client()
    const queue = createTransactionQueue({ client: publicClient, account })
    const usdt = sandboxToken(sandbox(), chainId, 'USDT').address
    const balance = await publicClient.readContract({ address: usdt, abi: erc20Abi, functionName: 'balanceOf', args: [account.address] })
    const nonce = await publicClient.getTransactionCount({ address: account.address })
    const transfer = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [recipient(), balance + 1n] })
    const error = await queue.send({ to: usdt, data: transfer, abi: usdtAbi }).catch((caught) => caught)
    expect(error).toBeInstanceOf(TransactionRevertedError)
    expect(error.details.stage).toBe('estimate')
    expect(error.reason).toMatch(/^ERC20InsufficientBalance\(/)
    expect(await publicClient.getTransactionCount({ address: account.address })).toBe(nonce)
  })

  it('pays EIP-1559 fees on a chain with a base fee', async () => {
    const queue = createTransactionQueue({ client: client(), account: accountOf(6), clock: new ManualClock(1_234) })
    const sent = await queue.send({ to: recipient(), value: 1n })
    expect(sent.receipt.type).toBe('eip1559')
    expect(sent.submittedAt).toBe(1_234)
  })

  it('pays a legacy gasPrice on a chain whose blocks have no base fee', async () => {
    // anvil always runs a fee market; this transport hides the base fee the way a pre-London chain's blocks look.
    const upstream = http(rpcUrl())({ chain: undefined, retryCount: 0 })
    const transport = custom({
      request: async ({ method, params }) => {
        const result = await upstream.request({ method, params })
        if (method === 'eth_getBlockByNumber' && result && typeof result === 'object') {
          const { baseFeePerGas: _hidden, ...block } = result as Record<string, unknown>
          return block
        }
        return result
      },
    })
    const legacyClient = createPublicClient({ chain: defineLocalChain(chainId, rpcUrl()), transport, pollingInterval: 50 })
    const queue = createTransactionQueue({ client: legacyClient, account: accountOf(7) })
    const sent = await queue.send({ to: recipient(), value: 1n })
    expect(sent.receipt.type).toBe('legacy')
  })

  it('refuses an envelope built for another account or chain', async () => {
    const queue = createTransactionQueue({ client: client(), account: accountOf(8) })
    await expect(queue.send({ to: recipient(), chainId: 1 })).rejects.toThrow(/chainId is 1, but this queue sends from .* on chain 8453/)
    await expect(queue.send({ to: recipient(), from: accountOf(9).address })).rejects.toThrow(/from is 0x/)
  })

  it('refuses a fallback margin outside 15 to 25 percent', () => {
    expect(() => createTransactionQueue({ client: client(), account: accountOf(8), fallbackGasMarginPercent: 50 })).toThrow(RangeError)
  })
})
