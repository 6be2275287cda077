import fc from 'fast-check'
import { keccak256, toHex } from 'viem'
import { describe, expect, it } from 'vitest'
import { keccak256Bytes, keccak256Hex, loadKeccak } from '../../src/protocol/keccak.js'

describe('keccak256Bytes', () => {
  it('gives the digest viem gives, at every length across the rate boundaries, before and after the WebAssembly loads', async () => {
    const property = fc.property(fc.uint8Array({ maxLength: 600 }), (data) => {
      expect(toHex(keccak256Bytes(data))).toBe(keccak256(data))
      expect(keccak256Hex(data)).toBe(keccak256(data))
    })
    fc.assert(property, { numRuns: 50 })
    await loadKeccak()
    fc.assert(property, { numRuns: 500 })
  })

  it('returns digests that later hashes leave intact', async () => {
    await loadKeccak()
    const first = keccak256Bytes(new Uint8Array([1, 2, 3]))
    const kept = toHex(first)
    keccak256Bytes(new Uint8Array(300).fill(9))
    expect(toHex(first)).toBe(kept)
  })
})
