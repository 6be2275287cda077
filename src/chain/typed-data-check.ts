import { type Address, isAddressEqual } from 'viem'
import { BaseError } from '../errors/base.js'

// Checks a server-built EIP-712 payload against the protocol's own definition before anything is signed, and turns
// its wire values (decimal strings, numbers) into the bigints the hash needs.

export type TypedField = { readonly name: string; readonly type: string }
export type TypedFields = Readonly<Record<string, readonly TypedField[]>>

/** Problems found, each `path: what is wrong`. */
export type Problems = string[]

/**
 * Problems unless `received` lists exactly the fields of `expected`, in order, for every struct. An `EIP712Domain`
 * entry is optional (wallets derive it from the domain); when present it must describe `domain`'s fields.
 */
export function compareTypes(received: unknown, expected: TypedFields, domain: ExpectedDomain, problems: Problems): void {
  if (!isRecord(received)) {
    problems.push(`types: expected an object, received ${describe(received)}`)
    return
  }
  for (const name of Object.keys(received)) {
    if (name !== 'EIP712Domain' && !(name in expected)) problems.push(`types.${name}: not a type of this payload`)
  }
  const all = 'EIP712Domain' in received ? { ...expected, EIP712Domain: domainFields(domain) } : expected
  for (const [name, fields] of Object.entries(all)) {
    const got = received[name]
    if (!Array.isArray(got)) {
      problems.push(`types.${name}: missing`)
      continue
    }
    const expectedText = fields.map((field) => `${field.type} ${field.name}`).join(', ')
    const receivedText = got.map((field) => (isRecord(field) ? `${String(field.type)} ${String(field.name)}` : describe(field))).join(', ')
    const extraKeys = got.some((field) => !isRecord(field) || Object.keys(field).some((key) => key !== 'name' && key !== 'type'))
    if (expectedText !== receivedText || extraKeys) problems.push(`types.${name}: expected (${expectedText}), received (${receivedText})`)
  }
}

export type ExpectedDomain = { name: string; version?: string; chainId: number; verifyingContract: Address }

function domainFields(domain: ExpectedDomain): TypedField[] {
  return [
    { name: 'name', type: 'string' },
    ...(domain.version === undefined ? [] : [{ name: 'version', type: 'string' }]),
    { name: 'chainId', type: 'uint256' },
    { name: 'verifyingContract', type: 'address' },
  ]
}

/** Problems unless `received` has exactly the fields of `expected` with the same values. */
export function compareDomain(received: unknown, expected: ExpectedDomain, problems: Problems): void {
  if (!isRecord(received)) {
    problems.push(`domain: expected an object, received ${describe(received)}`)
    return
  }
  const keys = Object.keys(expected)
  for (const key of Object.keys(received)) if (!keys.includes(key)) problems.push(`domain.${key}: not expected in this domain`)
  for (const key of keys) if (!(key in received)) problems.push(`domain.${key}: missing`)
  if ('name' in received && received.name !== expected.name)
    problems.push(`domain.name: expected "${expected.name}", received ${describe(received.name)}`)
  if (expected.version !== undefined && 'version' in received && received.version !== expected.version) {
    problems.push(`domain.version: expected "${expected.version}", received ${describe(received.version)}`)
  }
  if ('chainId' in received && toInteger(received.chainId) !== BigInt(expected.chainId)) {
    problems.push(`domain.chainId: expected ${expected.chainId}, received ${describe(received.chainId)}`)
  }
  const contract = received.verifyingContract
  if (
    'verifyingContract' in received &&
    !(typeof contract === 'string' && isAddressLike(contract) && isAddressEqual(contract, expected.verifyingContract))
  ) {
    problems.push(`domain.verifyingContract: expected ${expected.verifyingContract}, received ${describe(contract)}`)
  }
}

/**
 * The struct `typeName` of `value` with exactly its fields, each valid for its EIP-712 type: uints and ints as
 * bigint, addresses and bytes lowercased, nested structs and arrays likewise. Problems are added for every field.
 */
export function normaliseStruct(
  types: TypedFields,
  typeName: string,
  value: unknown,
  path: string,
  problems: Problems,
): Record<string, unknown> {
  const fields = types[typeName] ?? []
  if (!isRecord(value)) {
    problems.push(`${path}: expected a ${typeName} object, received ${describe(value)}`)
    return {}
  }
  const names = fields.map((field) => field.name)
  for (const key of Object.keys(value)) if (!names.includes(key)) problems.push(`${path}.${key}: not a field of ${typeName}`)
  const normalised: Record<string, unknown> = {}
  for (const field of fields) {
    if (!(field.name in value)) {
      problems.push(`${path}.${field.name}: missing (${field.type})`)
      continue
    }
    normalised[field.name] = normaliseValue(types, field.type, value[field.name], `${path}.${field.name}`, problems)
  }
  return normalised
}

function normaliseValue(types: TypedFields, type: string, value: unknown, path: string, problems: Problems): unknown {
  const fail = (expected: string) => {
    problems.push(`${path}: expected ${expected}, received ${describe(value)}`)
    return value
  }
  if (type.endsWith('[]')) {
    if (!Array.isArray(value)) return fail(type)
    return value.map((item, index) => normaliseValue(types, type.slice(0, -2), item, `${path}[${index}]`, problems))
  }
  if (type in types) return normaliseStruct(types, type, value, path, problems)
  if (type === 'address') return typeof value === 'string' && isAddressLike(value) ? value.toLowerCase() : fail('an address')
  if (type === 'bool') return typeof value === 'boolean' ? value : fail('a boolean')
  if (type === 'string') return typeof value === 'string' ? value : fail('a string')
  if (type === 'bytes') return typeof value === 'string' && /^0x([0-9a-fA-F]{2})*$/.test(value) ? value.toLowerCase() : fail('hex bytes')
  const fixedBytes = /^bytes(\d+)$/.exec(type)
  if (fixedBytes) {
    const length = Number(fixedBytes[1])
    return typeof value === 'string' && value.length === 2 + length * 2 && /^0x[0-9a-fA-F]*$/.test(value)
      ? value.toLowerCase()
      : fail(`${length} bytes of hex`)
  }
  const integer = /^(u?)int(\d+)$/.exec(type)
  if (integer) {
    const bits = BigInt(integer[2] ?? '256')
    const parsed = toInteger(value)
    const [min, max] = integer[1] === 'u' ? [0n, (1n << bits) - 1n] : [-(1n << (bits - 1n)), (1n << (bits - 1n)) - 1n]
    return parsed !== undefined && parsed >= min && parsed <= max ? parsed : fail(`a ${type}`)
  }
  return fail(`a value of the unsupported type ${type}`)
}

/** An integer from a bigint, a safe integer number or a decimal string; undefined otherwise. */
function toInteger(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : undefined
  if (typeof value === 'string' && /^-?\d{1,78}$/.test(value)) return BigInt(value)
  return undefined
}

function isAddressLike(value: string): value is Address {
  return /^0x[0-9a-fA-F]{40}$/.test(value)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing'
  const text = JSON.stringify(value, (_key, inner) => (typeof inner === 'bigint' ? inner.toString() : inner)) ?? String(value)
  return text.length > 120 ? `${text.slice(0, 120)}…` : text
}

/**
 * A payload to be signed differs from what was built or asked for: a field added, missing or of the wrong type,
 * another domain, another owner, or a hash other than the server's. Fatal for the order: nothing is signed, the
 * bot reports it (a server or a man in the middle may be tampering with orders).
 */
export class SignedPayloadMismatchError extends BaseError {
  override name = 'SignedPayloadMismatchError' as const
  readonly problems: readonly string[]
  constructor(payload: string, problems: readonly string[], details: Record<string, unknown> = {}) {
    super(
      `Refusing to sign the ${payload}: it differs from what was built (${problems.length} problem${problems.length === 1 ? '' : 's'})`,
      {
        details: { ...details, problems: problems.join('; ') },
        hint: 'Nothing was signed. Build the order again; if this repeats, the service answered a payload this client does not recognise.',
        errorClass: 'fatal',
      },
    )
    this.problems = problems
  }
}
