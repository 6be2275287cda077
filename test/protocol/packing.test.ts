import fc from 'fast-check'
import { zeroAddress } from 'viem'
import { describe, expect, it } from 'vitest'
import { maxNonceAndMetaNonce, packNonceAndMeta, unpackNonceAndMeta } from '../../src/protocol/nonce-and-meta.js'
import { packPartnerAndFee, unpackPartnerAndFee } from '../../src/protocol/partner-and-fee.js'
import { addressArbitrary, uintArbitrary } from './arbitraries.js'

describe('nonceAndMeta', () => {
  it('round-trips any intended taker and 96-bit nonce', () => {
    fc.assert(
      fc.property(addressArbitrary, uintArbitrary(96), (intendedTaker, nonce) => {
        const packed = packNonceAndMeta({ intendedTaker, nonce })
        expect(packed < 1n << 256n).toBe(true)
        expect(unpackNonceAndMeta(packed)).toEqual({ intendedTaker, nonce })
      }),
    )
  })

  it('keeps the intended taker in the low 160 bits (the API field takerFromMeta)', () => {
    const taker = '0x00000000000000000000000000000000000000Ff'
    expect(packNonceAndMeta({ intendedTaker: taker, nonce: 1n })).toBe((1n << 160n) + 255n)
  })

  it('decodes the real P2P order of the SDK snapshot', () => {
    // nonceAndMeta of otc-p2p-order-typed-data-sdk-1.json
    const { intendedTaker, nonce } = unpackNonceAndMeta(2693234308085732315020447542820174961101890254772n)
    expect(packNonceAndMeta({ intendedTaker, nonce })).toBe(2693234308085732315020447542820174961101890254772n)
    expect(nonce).toBeGreaterThan(0n)
  })

  it('rejects a nonce of 96 bits or more', () => {
    expect(() => packNonceAndMeta({ intendedTaker: zeroAddress, nonce: maxNonceAndMetaNonce + 1n })).toThrow(/96 bits/)
  })
})

describe('partnerAndFee', () => {
  const valueArbitrary = fc.record({
    partner: addressArbitrary,
    feeBps: fc.integer({ min: 0, max: 200 }),
    partnerTakesSurplus: fc.boolean(),
    capSurplus: fc.boolean(),
  })

  it('round-trips every partner, fee and flag combination', () => {
    fc.assert(
      fc.property(valueArbitrary, (value) => {
        expect(unpackPartnerAndFee(packPartnerAndFee(value))).toEqual(value)
      }),
    )
  })

  it('reads the service\'s "512" as capSurplus with no partner and no fee', () => {
    expect(unpackPartnerAndFee(512n)).toEqual({ partner: zeroAddress, feeBps: 0, partnerTakesSurplus: false, capSurplus: true })
  })

  it('rejects a fee above 200 bps and bits the packing leaves empty', () => {
    expect(() => packPartnerAndFee({ partner: zeroAddress, feeBps: 201, partnerTakesSurplus: false, capSurplus: false })).toThrow(
      /0 to 200/,
    )
    expect(() => unpackPartnerAndFee(1n << 10n)).toThrow(/bit 10/)
    expect(() => unpackPartnerAndFee(250n)).toThrow(/above 200/)
  })
})
