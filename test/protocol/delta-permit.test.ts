import fc from 'fast-check'
import { type Hex, size } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { type DeltaPermit, decodeDeltaPermit, deltaPermitLengths, encodeDeltaPermit } from '../../src/protocol/delta-permit.js'
import { toCompactSignature } from '../../src/protocol/signature.js'
import { addressArbitrary, uintArbitrary } from './arbitraries.js'

const word = uintArbitrary(256)
const bytes32 = word.map((value) => `0x${value.toString(16).padStart(64, '0')}` as Hex)
const compactSignature = fc
  .tuple(fc.integer({ min: 1, max: 2 ** 31 }), bytes32)
  .map(([key, hash]) => privateKeyToAccount(`0x${key.toString(16).padStart(64, '0')}`).sign({ hash }))

const permitArbitrary: fc.Arbitrary<Promise<DeltaPermit>> = fc.oneof(
  fc.constant(Promise.resolve({ type: 'none' } as const)),
  fc.constant(Promise.resolve({ type: 'permit2Approved' } as const)),
  fc.tuple(word, compactSignature).map(async ([nonce, signature]) => ({
    type: 'permit2Transfer' as const,
    nonce,
    signature: toCompactSignature(await signature),
  })),
  fc
    .tuple(uintArbitrary(160), uintArbitrary(48), uintArbitrary(48), word, compactSignature)
    .map(async ([amount, nonce, expiration, sigDeadline, signature]) => ({
      type: 'permit2Allowance' as const,
      amount,
      nonce,
      expiration,
      sigDeadline,
      signature: toCompactSignature(await signature),
    })),
  fc
    .tuple(addressArbitrary, addressArbitrary, word, word, fc.integer({ min: 27, max: 28 }), bytes32, bytes32)
    .map(async ([owner, spender, value, deadline, v, r, s]) => ({ type: 'eip2612' as const, owner, spender, value, deadline, v, r, s })),
  fc
    .tuple(addressArbitrary, addressArbitrary, word, word, fc.boolean(), fc.integer({ min: 27, max: 28 }), bytes32, bytes32)
    .map(async ([holder, spender, nonce, expiry, allowed, v, r, s]) => ({
      type: 'dai' as const,
      holder,
      spender,
      nonce,
      expiry,
      allowed,
      v,
      r,
      s,
    })),
)

describe('Delta permit bytes', () => {
  it('encodes each kind at its documented length and decodes it back', async () => {
    await fc.assert(
      fc.asyncProperty(permitArbitrary, async (pending) => {
        const permit = await pending
        const encoded = encodeDeltaPermit(permit)
        expect(size(encoded)).toBe(deltaPermitLengths[permit.type])
        expect(decodeDeltaPermit(encoded)).toEqual(permit)
      }),
      { numRuns: 120 },
    )
  })

  it('stores a 65-byte signature in its 64-byte compact form', async () => {
    const signature = await privateKeyToAccount(`0x${'22'.repeat(32)}`).sign({ hash: `0x${'01'.repeat(32)}` })
    const encoded = encodeDeltaPermit({ type: 'permit2Transfer', nonce: 7n, signature })
    expect(size(encoded)).toBe(96)
    expect(decodeDeltaPermit(encoded)).toEqual({ type: 'permit2Transfer', nonce: 7n, signature: toCompactSignature(signature) })
  })

  it('decodes the 96-byte Permit2 transfer of a real executed order', () => {
    // permit of delta-order-v2-executed-weth-usdc-1.json
    const permit = decodeDeltaPermit(
      '0x0000000000000000000000000000000000000000000000000000000000000011b7130d8420811c9f39ed0393c106255bae4619e2ad0d41ca8bbf81a91b257a89dd67bca7d8a48faba04f51dd84f4e587865e7f5c9c92858663bfb4eb809e4c26',
    )
    expect(permit).toMatchObject({ type: 'permit2Transfer', nonce: 17n })
  })

  it('rejects lengths that have no meaning, and a 1-byte permit other than 0x01', () => {
    expect(() => decodeDeltaPermit(`0x${'00'.repeat(32)}`)).toThrow(/32 bytes has no meaning/)
    expect(() => decodeDeltaPermit('0x02')).toThrow(/must be 0x01/)
  })

  it('refuses Permit2 fields wider than their on-chain types', () => {
    const signature = `0x${'00'.repeat(64)}` as Hex
    const base = { type: 'permit2Allowance', amount: 1n, nonce: 1n, expiration: 1n, sigDeadline: 1n, signature } as const
    expect(() => encodeDeltaPermit({ ...base, amount: 1n << 160n })).toThrow(/amount out of range/)
    expect(() => encodeDeltaPermit({ ...base, nonce: 1n << 48n })).toThrow(/nonce out of range/)
  })
})
