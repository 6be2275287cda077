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
  const withDomain = 'EIP712Domain' in received
  for (const name of Object.keys(expected)) {
    if (!(withDomain && name === 'EIP712Domain')) compareStructType(name, received[name], expected[name] ?? [], problems)
  }
  if (withDomain) compareStructType('EIP712Domain', received.EIP712Domain, domainFields(domain), problems)
}

function compareStructType(name: string, got: unknown, fields: readonly TypedField[], problems: Problems): void {
  if (!Array.isArray(got)) {
    problems.push(`types.${name}: missing`)
    return
  }
  if (sameFields(got, fields)) return
  const expectedText = fields.map((field) => `${field.type} ${field.name}`).join(', ')
  const receivedText = got.map((field) => (isRecord(field) ? `${String(field.type)} ${String(field.name)}` : describe(field))).join(', ')
  problems.push(`types.${name}: expected (${expectedText}), received (${receivedText})`)
}

/** Exactly these fields, in order, each an object of a `name` and a `type` only. */
function sameFields(got: readonly unknown[], fields: readonly TypedField[]): boolean {
  if (got.length !== fields.length) return false
  for (let index = 0; index < fields.length; index++) {
    const field = got[index]
    const wanted = fields[index] as TypedField
    if (!isRecord(field) || String(field.type) !== wanted.type || String(field.name) !== wanted.name) return false
    for (const key in field) if (Object.hasOwn(field, key) && key !== 'name' && key !== 'type') return false
  }
  return true
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
  const names = fieldNamesOf(fields)
  for (const key of Object.keys(value)) if (!names.has(key)) problems.push(`${path}.${key}: not a field of ${typeName}`)
  const normalised: Record<string, unknown> = {}
  for (const field of fields) {
    if (!(field.name in value)) {
      problems.push(`${path}.${field.name}: missing (${field.type})`)
      continue
    }
    normalised[field.name] = normaliseValue(types, field.type, value[field.name], path, field.name, problems)
  }
  return normalised
}

/** Field names of each struct definition, kept with the definition. */
const fieldNames = new WeakMap<readonly TypedField[], ReadonlySet<string>>()

function fieldNamesOf(fields: readonly TypedField[]): ReadonlySet<string> {
  let names = fieldNames.get(fields)
  if (!names) {
    names = new Set(fields.map((field) => field.name))
    fieldNames.set(fields, names)
  }
  return names
}

/** What a value of an EIP-712 type (other than a struct) must be, derived once per type name. */
type ValueRule =
  | { kind: 'array'; element: string }
  | { kind: 'address' | 'bool' | 'string' | 'bytes' | 'unsupported' }
  | { kind: 'fixedBytes'; length: number }
  | { kind: 'integer'; min: bigint; max: bigint }

const valueRules = new Map<string, ValueRule>()

function valueRuleOf(type: string): ValueRule {
  let rule = valueRules.get(type)
  if (!rule) {
    rule = deriveValueRule(type)
    valueRules.set(type, rule)
  }
  return rule
}

function deriveValueRule(type: string): ValueRule {
  if (type.endsWith('[]')) return { kind: 'array', element: type.slice(0, -2) }
  if (type === 'address' || type === 'bool' || type === 'string' || type === 'bytes') return { kind: type }
  const fixedBytes = /^bytes(\d+)$/.exec(type)
  if (fixedBytes) return { kind: 'fixedBytes', length: Number(fixedBytes[1]) }
  const integer = /^(u?)int(\d+)$/.exec(type)
  if (integer) {
    const bits = BigInt(integer[2] ?? '256')
    return integer[1] === 'u'
      ? { kind: 'integer', min: 0n, max: (1n << bits) - 1n }
      : { kind: 'integer', min: -(1n << (bits - 1n)), max: (1n << (bits - 1n)) - 1n }
  }
  return { kind: 'unsupported' }
}

const hexBytesPattern = /^0x([0-9a-fA-F]{2})*$/
const hexPattern = /^0x[0-9a-fA-F]*$/

/** `value` at `parent`.`key` (or `parent`[`key`] in an array), normalised for `type`; the path is spelt out only for a problem. */
function normaliseValue(
  types: TypedFields,
  type: string,
  value: unknown,
  parent: string,
  key: string | number,
  problems: Problems,
): unknown {
  const rule = valueRuleOf(type)
  if (rule.kind === 'array') {
    if (!Array.isArray(value)) return mismatch(type, value, parent, key, problems)
    const path = pathOf(parent, key)
    return value.map((item, index) => normaliseValue(types, rule.element, item, path, index, problems))
  }
  if (type in types) return normaliseStruct(types, type, value, pathOf(parent, key), problems)
  switch (rule.kind) {
    case 'address':
      return typeof value === 'string' && isAddressLike(value) ? value.toLowerCase() : mismatch('an address', value, parent, key, problems)
    case 'bool':
      return typeof value === 'boolean' ? value : mismatch('a boolean', value, parent, key, problems)
    case 'string':
      return typeof value === 'string' ? value : mismatch('a string', value, parent, key, problems)
    case 'bytes':
      return typeof value === 'string' && hexBytesPattern.test(value)
        ? value.toLowerCase()
        : mismatch('hex bytes', value, parent, key, problems)
    case 'fixedBytes':
      return typeof value === 'string' && value.length === 2 + rule.length * 2 && hexPattern.test(value)
        ? value.toLowerCase()
        : mismatch(`${rule.length} bytes of hex`, value, parent, key, problems)
    case 'integer': {
      const parsed = toInteger(value)
      return parsed !== undefined && parsed >= rule.min && parsed <= rule.max ? parsed : mismatch(`a ${type}`, value, parent, key, problems)
    }
    case 'unsupported':
      return mismatch(`a value of the unsupported type ${type}`, value, parent, key, problems)
  }
}

function pathOf(parent: string, key: string | number): string {
  return typeof key === 'number' ? `${parent}[${key}]` : `${parent}.${key}`
}

/** Adds the problem and keeps the value as received. */
function mismatch(expected: string, value: unknown, parent: string, key: string | number, problems: Problems): unknown {
  problems.push(`${pathOf(parent, key)}: expected ${expected}, received ${describe(value)}`)
  return value
}

const integerPattern = /^-?\d{1,78}$/

/** An integer from a bigint, a safe integer number or a decimal string; undefined otherwise. */
function toInteger(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : undefined
  if (typeof value === 'string' && integerPattern.test(value)) return BigInt(value)
  return undefined
}

const addressPattern = /^0x[0-9a-fA-F]{40}$/

function isAddressLike(value: string): value is Address {
  return addressPattern.test(value)
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
