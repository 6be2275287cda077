import { type Hex, hexToBytes, keccak256, stringToBytes } from 'viem'
import { keccak256Bytes, keccak256Hex } from './keccak.js'

// EIP-712 hashing compiled once per type set: viem's hashTypedData re-derives type strings and validates every value
// on each call, which dominated the cost of an order submission. Each field is written into one buffer (hex through
// Buffer's native decoder) and hashed with the WebAssembly keccak. Same digest, checked against viem in the tests.

type Field = { name: string; type: string }
type Types = Readonly<Record<string, readonly Field[]>>
type StructHasher = (message: Readonly<Record<string, unknown>>) => Uint8Array
/** Writes the 32-byte encoding of a value at `offset` of a zeroed buffer. */
type Writer = (value: unknown, target: Buffer, offset: number) => void

/** Hashes `primaryType` structs of `types` (EIP-712 hashStruct). */
export function compileStructHasher(types: Types, primaryType: string): StructHasher {
  const compiled = new Map<string, StructHasher>()
  const structHasher = (name: string): StructHasher => {
    const existing = compiled.get(name)
    if (existing) return existing
    const fields = types[name]
    if (!fields) throw new Error(`EIP-712 type ${name} is not defined`)
    // Once per type, when compiled (often at import): viem's keccak, so that importing starts no WebAssembly load.
    const typeHash = keccak256(stringToBytes(encodeType(types, name)), 'bytes')
    let writers: Writer[] | undefined
    // One encoding buffer per struct type, reused: hashing is synchronous, and a struct nested in itself (through an
    // array) finds it in use and takes a fresh one.
    let spare: Buffer | undefined
    const hasher = (message: Readonly<Record<string, unknown>>) => {
      writers ??= fields.map((field) => fieldWriter(field.type, structHasher))
      const buffer = spare ?? Buffer.alloc(32 * (fields.length + 1))
      spare = undefined
      try {
        buffer.set(typeHash, 0)
        buffer.fill(0, 32)
        for (let index = 0; index < fields.length; index++) {
          ;(writers[index] as Writer)(message[(fields[index] as Field).name], buffer, 32 * (index + 1))
        }
        return keccak256Bytes(buffer)
      } finally {
        spare = buffer
      }
    }
    compiled.set(name, hasher)
    return hasher
  }
  return structHasher(primaryType)
}

/** The digest's preimage, filled and hashed synchronously at each call (0x1901 stays in front). */
const digestPreimage = Uint8Array.of(0x19, 0x01, ...new Uint8Array(64))

/** keccak256(0x1901 ‖ domainSeparator ‖ structHash). */
export function typedDataDigest(domainSeparator: Uint8Array, structHash: Uint8Array): Hex {
  if (domainSeparator.length !== 32 || structHash.length !== 32) throw new RangeError('a domain separator and a struct hash are 32 bytes')
  digestPreimage.set(domainSeparator, 2)
  digestPreimage.set(structHash, 34)
  return keccak256Hex(digestPreimage)
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

function fieldWriter(type: string, structHasher: (name: string) => StructHasher): Writer {
  const array = /^(.+)\[\]$/.exec(type)
  if (array) {
    const element = fieldWriter(array[1] as string, structHasher)
    return (value, target, offset) => {
      const items = value as readonly unknown[]
      const buffer = Buffer.alloc(32 * items.length)
      for (let index = 0; index < items.length; index++) element(items[index], buffer, 32 * index)
      target.set(keccak256Bytes(buffer), offset)
    }
  }
  if (type === 'address') return (value, target, offset) => writeHex(value as Hex, target, offset + 12, 20, 'right')
  if (type === 'bool') {
    return (value, target, offset) => {
      target[offset + 31] = value ? 1 : 0
    }
  }
  if (type === 'string') return (value, target, offset) => target.set(keccak256Bytes(stringToBytes(value as string)), offset)
  if (type === 'bytes') return (value, target, offset) => target.set(keccak256Bytes(hexToBytes(value as Hex)), offset)
  const fixed = /^bytes(\d+)$/.exec(type)
  if (fixed) {
    const length = Number(fixed[1])
    return (value, target, offset) => writeHex(value as Hex, target, offset, length, 'left')
  }
  if (/^uint\d*$/.test(type)) return (value, target, offset) => writeWord(BigInt(value as bigint | number | string), target, offset)
  if (/^int\d*$/.test(type)) {
    return (value, target, offset) => writeWord(BigInt.asUintN(256, BigInt(value as bigint | number | string)), target, offset)
  }
  const hashStruct = structHasher(type)
  return (value, target, offset) => target.set(hashStruct(value as Readonly<Record<string, unknown>>), offset)
}

/** A uint256 as a big-endian word. */
function writeWord(value: bigint, target: Buffer, offset: number): void {
  if (value < 0n || value >= 1n << 256n) throw new RangeError(`${value} does not fit in 256 bits`)
  const hex = value.toString(16)
  const even = hex.length % 2 === 0 ? hex : `0${hex}`
  target.write(even, offset + 32 - even.length / 2, 'hex')
}

/**
 * `length` bytes of hex at `offset`; anything but exactly that many hex bytes goes through viem's strict decoding,
 * right-aligned in the field for an address, left-aligned for bytesN.
 */
function writeHex(value: Hex, target: Buffer, offset: number, length: number, align: 'left' | 'right'): void {
  if (typeof value === 'string' && value.length === 2 + 2 * length && target.write(value.slice(2), offset, length, 'hex') === length) return
  const bytes = hexToBytes(value)
  target.set(bytes, align === 'left' ? offset : offset + length - bytes.length)
}
