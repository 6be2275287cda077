import fc from 'fast-check'
import { type Hex, numberToHex, parseEther, recoverAddress, recoverMessageAddress, recoverTypedDataAddress } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { localAccount } from '../../src/chain/local-account.js'
import { buildRfqOrderTypedData } from '../../src/protocol/rfq-order.js'
import { privateKeyArbitrary, uintArbitrary } from '../protocol/arbitraries.js'

/** The order of secp256k1's group: private keys are 1 … n − 1; digests at and above it are reduced. */
const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
const hex32 = (value: bigint) => numberToHex(value, { size: 32 })
const hashArbitrary = uintArbitrary(256).map(hex32)

describe('localAccount', () => {
  it("signs digests byte for byte as viem's privateKeyToAccount does, and the signature recovers its address", async () => {
    await fc.assert(
      fc.asyncProperty(privateKeyArbitrary, hashArbitrary, async (key, hash) => {
        const account = localAccount(key)
        const signature = await account.sign({ hash })
        expect(account.address).toBe(privateKeyToAccount(key).address)
        expect(signature).toBe(await privateKeyToAccount(key).sign({ hash }))
        expect(await recoverAddress({ hash, signature })).toBe(account.address)
      }),
      { numRuns: 200, seed: 20261202 },
    )
  })

  it('gives the same signatures at the edges of keys and digests (digests at and above the group order included)', async () => {
    const keys = [1n, 2n, n - 1n, 0x1234n << 200n].map(hex32)
    const hashes = [0n, 1n, n - 1n, n, n + 1n, 2n ** 255n, 2n ** 256n - 1n].map(hex32)
    for (const key of keys) {
      for (const hash of hashes)
        expect(await localAccount(key).sign({ hash }), `${key} / ${hash}`).toBe(await privateKeyToAccount(key).sign({ hash }))
    }
  })

  it("signs typed data and messages as viem does, and leaves transactions to viem's own signer", async () => {
    const key = hex32(0xdeadbeefn << 100n)
    const account = localAccount(key)
    const reference = privateKeyToAccount(key)
    const typedData = buildRfqOrderTypedData(
      {
        nonceAndMeta: 7n,
        expiry: 1_900_000_000n,
        makerAsset: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
        takerAsset: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
        maker: account.address,
        taker: '0x0000000000000000000000000000000000000000',
        makerAmount: 1_000_000_000n,
        takerAmount: 400_000_000_000_000_000n,
      },
      { chainId: 1, verifyingContract: '0xe92b586627ccA7a83dC919cc7127196d70f55a06' },
    )
    const typedSignature = await account.signTypedData(typedData)
    expect(typedSignature).toBe(await reference.signTypedData(typedData))
    expect(await recoverTypedDataAddress({ ...typedData, signature: typedSignature })).toBe(account.address)
    for (const message of ['deltaflow', { raw: '0x00ff' as Hex }]) {
      const signature = await account.signMessage({ message })
      expect(signature).toBe(await reference.signMessage({ message }))
      expect(await recoverMessageAddress({ message, signature })).toBe(account.address)
    }
    const transaction = {
      chainId: 1,
      type: 'eip1559',
      to: account.address,
      value: parseEther('1'),
      nonce: 3,
      gas: 21_000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 10n ** 9n,
    } as const
    expect(await account.signTransaction(transaction)).toBe(await reference.signTransaction(transaction))
  })

  it('refuses a digest that is not 32 bytes, naming its length and never the key', async () => {
    const key = hex32(0x5eedn << 180n)
    const account = localAccount(key)
    const refusal = await account.sign({ hash: '0x1234' }).catch((error: unknown) => error)
    expect(refusal).toBeInstanceOf(TypeError)
    expect(String(refusal)).toContain('expected a 32-byte hash to sign, received 2 bytes')
    expect(String(refusal)).not.toContain(key.slice(2))
    expect(JSON.stringify(account)).not.toContain(key.slice(2))
  })
})
