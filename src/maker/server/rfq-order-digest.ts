import { type Address, type Hex, keccak256, stringToHex } from 'viem'
import { getRfqDomain, type RfqDomainParameters, type RfqOrder, rfqOrderTypes } from '../../protocol/rfq-order.js'

// The EIP-712 digest of an RFQ order (what hashRfqOrder computes), specialised for the firm-quote hot path: the
// domain separator and the type hash are computed once, and the eight static words of the struct are encoded by
// hand, which is several times faster than the generic typed-data encoder. Tests pin it to hashRfqOrder.

const orderType = `Order(${rfqOrderTypes.Order.map(({ type, name }) => `${type} ${name}`).join(',')})`
const domainType = 'EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)'

/** A digest function bound to one chain's RFQ contract. Throws on a value outside its EIP-712 type. */
export function createRfqOrderDigest(domainParameters: RfqDomainParameters): (order: RfqOrder) => Hex {
  const domain = getRfqDomain(domainParameters)
  const separator = keccak256(
    `0x${[
      keccak256(stringToHex(domainType)).slice(2),
      keccak256(stringToHex(domain.name)).slice(2),
      keccak256(stringToHex(domain.version)).slice(2),
      uintWord(BigInt(domain.chainId), 256, 'chainId'),
      addressWord(domain.verifyingContract),
    ].join('')}`,
  ).slice(2)
  const typeHash = keccak256(stringToHex(orderType)).slice(2)
  return (order) => {
    const struct = [
      typeHash,
      uintWord(order.nonceAndMeta, 256, 'nonceAndMeta'),
      uintWord(order.expiry, 128, 'expiry'),
      addressWord(order.makerAsset),
      addressWord(order.takerAsset),
      addressWord(order.maker),
      addressWord(order.taker),
      uintWord(order.makerAmount, 256, 'makerAmount'),
      uintWord(order.takerAmount, 256, 'takerAmount'),
    ].join('')
    return keccak256(`0x1901${separator}${keccak256(`0x${struct}`).slice(2)}`)
  }
}

function uintWord(value: bigint, bits: number, field: string): string {
  if (value < 0n || value >= 1n << BigInt(bits)) throw new RangeError(`RFQ order ${field}: ${value} is not a uint${bits}`)
  return value.toString(16).padStart(64, '0')
}

function addressWord(address: Address): string {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address)) throw new RangeError(`RFQ order: ${address} is not an address`)
  return address.slice(2).toLowerCase().padStart(64, '0')
}
