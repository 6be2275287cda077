import fc from 'fast-check'
import { type Address, getAddress, type Hex, toHex } from 'viem'

export const addressArbitrary: fc.Arbitrary<Address> = fc
  .uint8Array({ minLength: 20, maxLength: 20 })
  .map((bytes) => getAddress(toHex(bytes)))

export const uintArbitrary = (bits: number): fc.Arbitrary<bigint> => fc.bigInt({ min: 0n, max: (1n << BigInt(bits)) - 1n })

export const bytesArbitrary = (maxLength = 80): fc.Arbitrary<Hex> => fc.uint8Array({ maxLength }).map((bytes) => toHex(bytes))

export const privateKeyArbitrary: fc.Arbitrary<Hex> = fc
  .bigInt({ min: 1n, max: 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140n })
  .map((key) => toHex(key, { size: 32 }))
