import { type Address, getAddress, isAddress, numberToHex } from 'viem'
import { ProtocolEncodingError } from './errors.js'

/** The partner fee is capped at 200 bps (2 %). */
export const maxPartnerFeeBps = 200

export type PartnerAndFee = {
  partner: Address
  feeBps: number
  partnerTakesSurplus: boolean
  capSurplus: boolean
}

const reservedMask = ((1n << 96n) - 1n) ^ 0x3ffn

/** `(partner << 96) | (capSurplus << 9) | (partnerTakesSurplus << 8) | feeBps` (protocol-facts). */
export function packPartnerAndFee({ partner, feeBps, partnerTakesSurplus, capSurplus }: PartnerAndFee): bigint {
  if (!isAddress(partner, { strict: false })) throw new ProtocolEncodingError('partnerAndFee: partner is not an address', { partner })
  if (!Number.isInteger(feeBps) || feeBps < 0 || feeBps > maxPartnerFeeBps) {
    throw new ProtocolEncodingError(`partnerAndFee: feeBps must be an integer from 0 to ${maxPartnerFeeBps}`, { feeBps })
  }
  return (BigInt(partner) << 96n) | (capSurplus ? 1n << 9n : 0n) | (partnerTakesSurplus ? 1n << 8n : 0n) | BigInt(feeBps)
}

export function unpackPartnerAndFee(value: bigint): PartnerAndFee {
  if (value < 0n || value >= 1n << 256n) throw new ProtocolEncodingError('partnerAndFee must be a uint256', { value })
  if ((value & reservedMask) !== 0n) {
    throw new ProtocolEncodingError('partnerAndFee has bits set between bit 10 and bit 95, which the packing leaves empty', {
      value,
    })
  }
  const feeBps = Number(value & 0xffn)
  if (feeBps > maxPartnerFeeBps) throw new ProtocolEncodingError(`partnerAndFee: feeBps above ${maxPartnerFeeBps}`, { value, feeBps })
  return {
    partner: getAddress(numberToHex(value >> 96n, { size: 20 })),
    feeBps,
    partnerTakesSurplus: ((value >> 8n) & 1n) === 1n,
    capSurplus: ((value >> 9n) & 1n) === 1n,
  }
}
