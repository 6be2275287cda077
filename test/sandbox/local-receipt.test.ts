import { type Address, parseEther } from 'viem'
import { describe, expect, it } from 'vitest'
import { LocalReceiptTimeoutError, waitForLocalReceipt } from '../../src/sandbox/chains/receipt.js'
import { useTestChain } from '../helpers/chain.js'

// The sandbox's receipt wait asks the node for the receipt itself, again and again, rather than waiting for the block
// number to move (which a node mining on demand may never do once the block holding the transaction is reported).

const sender = '0x00000000000000000000000000000000000000a1' as Address

describe('waitForLocalReceipt', () => {
  const chain = useTestChain()

  it('returns the receipt once the node has it, with no further block after the one that holds it', async () => {
    const { testClient, walletClient, publicClient } = chain()
    await testClient.impersonateAccount({ address: sender })
    await testClient.setBalance({ address: sender, value: parseEther('1') })
    await testClient.setAutomine(false)
    try {
      const hash = await walletClient.sendTransaction({ account: sender, chain: walletClient.chain, to: sender, value: 1n })
      const waiting = waitForLocalReceipt(publicClient, hash, { pollingIntervalMs: 5 })
      await new Promise((resolve) => setTimeout(resolve, 100))
      // One block, mined on demand, and none after it.
      await testClient.mine({ blocks: 1 })
      const receipt = await waiting
      expect(receipt.transactionHash).toBe(hash)
      expect(receipt.blockNumber).toBe(await publicClient.getBlockNumber({ cacheTime: 0 }))
    } finally {
      await testClient.setAutomine(true)
    }
  })

  it('gives up after its timeout with the hash when the node never mines the transaction', async () => {
    const { testClient, walletClient, publicClient } = chain()
    await testClient.setAutomine(false)
    try {
      const hash = await walletClient.sendTransaction({ account: sender, chain: walletClient.chain, to: sender, value: 2n })
      const error = await waitForLocalReceipt(publicClient, hash, { pollingIntervalMs: 5, timeoutMs: 200 }).catch(
        (caught: unknown) => caught,
      )
      expect(error).toBeInstanceOf(LocalReceiptTimeoutError)
      expect((error as LocalReceiptTimeoutError).shortMessage).toBe(`transaction ${hash} has no receipt after 200 ms`)
    } finally {
      await testClient.setAutomine(true)
    }
  })
})
