import { type Hex, hexToBytes, keccak256, stringToBytes } from 'viem'

// EIP-712 hashing compiled once per type set: viem's hashTypedData re-derives type strings and validates every value
// on each call, which dominated the cost of an order submission. Same digest, checked against viem in the tests.

type Field = { name: string; type: string }
type Types = Readonly<Record<string, readonly Field[]>>
type Encoder = (value: unknown) => Uint8Array

/** Hashes `primaryType` structs of `types` (EIP-712 hashStruct). */
export function compileStructHasher(types: Types, primaryType: string): (message: Readonly<Record<string, unknown>>) => Uint8Array {
  const compiled = new Map<string, (message: Readonly<Record<string, unknown>>) => Uint8Array>()
  const structHasher = (name: string): ((message: Readonly<Record<string, unknown>>) => Uint8Array) => {
    const existing = compiled.get(name)
    if (existing) return existing
    const fields = types[name]
    if (!fields) throw new Error(`EIP-712 type ${name} is not defined`)
    const typeHash = keccak256(stringToBytes(encodeType(types, name)), 'bytes')
    let encoders: Encoder[] | undefined
    const hasher = (message: Readonly<Record<string, unknown>>) => {
      encoders ??= fields.map((field) => fieldEncoder(field.type, structHasher))
      const buffer = new Uint8Array(32 * (fields.length + 1))
      buffer.set(typeHash, 0)
      for (const [index, field] of fields.entries()) buffer.set((encoders[index] as Encoder)(message[field.name]), 32 * (index + 1))
      return keccak256(buffer, 'bytes')
    }
    compiled.set(name, hasher)
    return hasher
  }
  return structHasher(primaryType)
}

/** keccak256(0x1901 ‖ domainSeparator ‖ structHash). */
export function typedDataDigest(domainSeparator: Uint8Array, structHash: Uint8Array): Hex {
  const buffer = new Uint8Array(66)
  buffer[0] = 0x19
  buffer[1] = 0x01
  buffer.set(domainSeparator, 2)
  buffer.set(structHash, 34)
  return keccak256(buffer)
}

const domainTypes = {
  EIP712Domain: [
    { name: 'name', type: 'string' },
    { name: 'version', type: 'string' },
    { name: 'chainId', type: 'uint256' },
    { name: 'verifyingContract', type: 'address' },
  ],
} as const
const hashDomain = compileStructHasher(domainTypes, 'EIP712Domain')
const domainSeparators = new Map<string, Uint8Array>()

/** Separator of a {name, version, chainId, verifyingContract} domain (cached). */
export function domainSeparatorOf(domain: { name: string; version: string; chainId: number; verifyingContract: string }): Uint8Array {
  const key = `${domain.name}|${domain.version}|${domain.chainId}|${domain.verifyingContract.toLowerCase()}`
  let separator = domainSeparators.get(key)
  if (!separator) {
    separator = hashDomain(domain)
    domainSeparators.set(key, separator)
  }
  return separator
}

function encodeType(types: Types, primaryType: string): string {
  const referenced = new Set<string>()
  const collect = (name: string) => {
    for (const field of types[name] ?? []) {
      const base = field.type.replace(/\[\d*\]$/, '')
      if (types[base] && !referenced.has(base) && base !== primaryType) {
        referenced.add(base)
        collect(base)
      }
    }
  }
  collect(primaryType)
  const describe = (name: string) => `${name}(${(types[name] ?? []).map((field) => `${field.type} ${field.name}`).join(',')})`
  return [primaryType, ...[...referenced].sort()].map(describe).join('')
}

function fieldEncoder(type: string, structHasher: (name: string) => (message: Readonly<Record<string, unknown>>) => Uint8Array): Encoder {
  const array = /^(.+)\[\]$/.exec(type)
  if (array) {
    const element = fieldEncoder(array[1] as string, structHasher)
    return (value) => {
      const items = value as readonly unknown[]
      const buffer = new Uint8Array(32 * items.length)
      for (const [index, item] of items.entries()) buffer.set(element(item), 32 * index)
      return keccak256(buffer, 'bytes')
    }
  }
  if (type === 'address') return (value) => leftPad(hexToBytes(value as Hex))
  if (type === 'bool') return (value) => word(value ? 1n : 0n)
  if (type === 'string') return (value) => keccak256(stringToBytes(value as string), 'bytes')
  if (type === 'bytes') return (value) => keccak256(hexToBytes(value as Hex), 'bytes')
  if (/^bytes\d+$/.test(type)) {
    return (value) => {
      const buffer = new Uint8Array(32)
      buffer.set(hexToBytes(value as Hex))
      return buffer
    }
  }
  if (/^uint\d*$/.test(type)) return (value) => word(BigInt(value as bigint | number | string))
  if (/^int\d*$/.test(type)) return (value) => word(BigInt.asUintN(256, BigInt(value as bigint | number | string)))
  const hashStruct = structHasher(type)
  return (value) => hashStruct(value as Readonly<Record<string, unknown>>)
}

function word(value: bigint): Uint8Array {
  return hexToBytes(`0x${value.toString(16).padStart(64, '0')}`)
}

function leftPad(bytes: Uint8Array): Uint8Array {
  const buffer = new Uint8Array(32)
  buffer.set(bytes, 32 - bytes.length)
  return buffer
}
