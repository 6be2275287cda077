import fc from 'fast-check'
import { type Hex, parseSignature, recoverAddress, serializeCompactSignature, signatureToCompactSignature, size } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { ProtocolEncodingError } from '../../src/protocol/errors.js'
import { fromCompactSignature, toCompactSignature } from '../../src/protocol/signature.js'
import { privateKeyArbitrary } from './arbitraries.js'

const digestArbitrary = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => `0x${Buffer.from(bytes).toString('hex')}` as Hex)

describe('ERC-2098 signature conversion', () => {
  it('round-trips 65 → 64 → 65 bytes and both forms recover the signer', async () => {
    await fc.assert(
      fc.asyncProperty(privateKeyArbitrary, digestArbitrary, async (privateKey, hash) => {
        const account = privateKeyToAccount(privateKey)
        const full = await account.sign({ hash })
        const compact = toCompactSignature(full)
        expect(size(compact)).toBe(64)
        expect(fromCompactSignature(compact)).toBe(full.toLowerCase())
        // ERC-2098: r unchanged; second word = yParity << 255 | s.
        const vs = BigInt(`0x${compact.slice(66)}`)
        expect(compact.slice(0, 66)).toBe(full.slice(0, 66).toLowerCase())
        expect(vs & ((1n << 255n) - 1n)).toBe(BigInt(`0x${full.slice(66, 130)}`))
        expect(vs >> 255n).toBe(BigInt(`0x${full.slice(130)}`) - 27n)
        expect(await recoverAddress({ hash, signature: fromCompactSignature(compact) })).toBe(account.address)
      }),
      { numRuns: 40 },
    )
  })

  it('gives the compact form viem gives for every 65-byte word pair and v, and refuses what viem refuses', () => {
    const curveOrder = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
    const word = fc.oneof(
      fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }),
      fc.constantFrom(0n, 1n, curveOrder - 1n, curveOrder, (1n << 255n) - 1n, 1n << 255n, curveOrder - (1n << 255n)),
    )
    const v = fc.oneof(fc.constantFrom(0, 1, 27, 28), fc.integer({ min: 0, max: 255 }))
    const viemCompact = (signature: Hex) => serializeCompactSignature(signatureToCompactSignature(parseSignature(signature)))
    const outcome = (convert: () => Hex) => {
      try {
        return { compact: convert() }
      } catch (error) {
        return { error: (error as Error).message }
      }
    }
    fc.assert(
      fc.property(word, word, v, fc.boolean(), (r, s, yParityOrV, upper) => {
        const hex = `0x${r.toString(16).padStart(64, '0')}${s.toString(16).padStart(64, '0')}${yParityOrV.toString(16).padStart(2, '0')}`
        const signature = (upper ? hex.toUpperCase().replace('0X', '0x') : hex) as Hex
        expect(outcome(() => toCompactSignature(signature))).toEqual(outcome(() => viemCompact(signature)))
      }),
      { numRuns: 2_000 },
    )
  })

  it('leaves a signature already in the requested form unchanged', async () => {
    const account = privateKeyToAccount(`0x${'11'.repeat(32)}`)
    const full = await account.sign({ hash: `0x${'ab'.repeat(32)}` })
    const compact = toCompactSignature(full)
    expect(toCompactSignature(compact)).toBe(compact)
    expect(fromCompactSignature(full)).toBe(full.toLowerCase())
  })

  it('rejects a signature that is neither 64 nor 65 bytes, naming its length', () => {
    expect(() => toCompactSignature(`0x${'00'.repeat(63)}`)).toThrow(ProtocolEncodingError)
    expect(() => fromCompactSignature(`0x${'00'.repeat(66)}`)).toThrow(/64 \(ERC-2098 compact\) or 65 bytes/)
    expect(() => toCompactSignature('0xzz' as Hex)).toThrow(/bytes: -1/)
  })
})
