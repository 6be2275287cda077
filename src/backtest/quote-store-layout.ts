import { endianness } from 'node:os'
import { crc32 } from 'node:zlib'
import { issueMessage } from '../domain/wire-fields.js'
import { BaseError } from '../errors/base.js'

// The binary layout of a quote store block (quote-store.md, "Blocks"): a 24-byte header, then one column per field,
// all little-endian, each 8-byte column 8-byte aligned so that it is read through a typed array without copying.

export const quoteStoreFormat = 'deltaflow-quote-store'
export const quoteStoreVersion = 1
/** Quotes per block unless told otherwise; at most maxBlockSize (a quote's costs index is 16 bits). */
export const defaultBlockSize = 4096
export const maxBlockSize = 65_536

/** "DFQB" read as a little-endian u32. */
const blockMagic = 0x42514644
const headerBytes = 24

/** Bits of a quote's flags byte. */
export const amountFlags = {
  /** The amount is at least 2^64: its high 64 bits are in the hi column. */
  srcHigh: 1,
  /** The amount is at least 2^128: the lo column holds its index in the wide section. */
  srcWide: 2,
  destHigh: 4,
  destWide: 8,
  /** The answer came from Delta (else Market); tells a `unified` quote's mode when no answer was kept. */
  deltaAnswer: 16,
} as const

/** A block's columns, `count` entries each (wide: 4 words, least significant first, per amount of 2^128 or more). */
export type BlockColumns = {
  count: number
  times: Float64Array
  requestedAts: Float64Array
  srcLo: BigUint64Array
  srcHi: BigUint64Array
  destLo: BigUint64Array
  destHi: BigUint64Array
  wide: BigUint64Array
  ids: Uint32Array
  costIndexes: Uint16Array
  flags: Uint8Array
  /** UTF-8 JSON array of the block's distinct costs (`{gas?, fees?}` as in a recording line). */
  costs: Uint8Array
}

/** A store file that cannot be written or read as a quote store. Operational: pack the recording again. */
export class QuoteStoreError extends BaseError {
  override name = 'QuoteStoreError' as const
  constructor(where: string, problem: string, options: { cause?: unknown; hint?: string } = {}) {
    super(`${where}: ${problem}`, {
      details: { where },
      cause: options.cause,
      errorClass: 'operational',
      hint: options.hint ?? 'A quote store is made by `deltaflow quotes pack`; pack the recording again.',
    })
  }
}

/** Zod issues in one line: the first with its path, and how many more. */
export function describeIssues(issues: readonly { path: PropertyKey[]; code: string; message: string; input?: unknown }[]): string {
  const described = issues.map((issue) => {
    const path = issue.path.map(String).join('.')
    return path ? `${path}: ${issueMessage(issue)}` : issueMessage(issue)
  })
  return described.length > 1 ? `${described[0]} (and ${described.length - 1} more)` : (described[0] ?? 'invalid')
}

const bigEndianHost = endianness() === 'BE'

type Sections = { [Name in Exclude<keyof BlockColumns, 'count'>]: { offset: number; bytes: number; width: number } }

function sectionsOf(count: number, wideWords: number, costsBytes: number): { sections: Sections; total: number } {
  let offset = headerBytes
  const next = (width: number, entries: number) => {
    const section = { offset, bytes: width * entries, width }
    offset += section.bytes
    return section
  }
  const sections: Sections = {
    times: next(8, count),
    requestedAts: next(8, count),
    srcLo: next(8, count),
    srcHi: next(8, count),
    destLo: next(8, count),
    destHi: next(8, count),
    wide: next(8, wideWords),
    ids: next(4, count),
    costIndexes: next(2, count),
    flags: next(1, count),
    costs: next(1, costsBytes),
  }
  return { sections, total: offset }
}

/** The block's bytes: header, columns (the first `count` entries of each), costs JSON. */
export function encodeBlock(columns: BlockColumns): Buffer {
  const { count } = columns
  const { sections, total } = sectionsOf(count, columns.wide.length, columns.costs.length)
  const data = Buffer.alloc(total)
  for (const [name, section] of Object.entries(sections) as [keyof Sections, Sections[keyof Sections]][]) {
    const column = columns[name]
    const source = new Uint8Array(column.buffer, column.byteOffset, section.bytes)
    data.set(source, section.offset)
  }
  if (bigEndianHost) swapColumns(data, sections)
  data.writeUInt32LE(blockMagic, 0)
  data.writeUInt32LE(count, 4)
  data.writeUInt32LE(columns.wide.length / 4, 8)
  data.writeUInt32LE(columns.costs.length, 12)
  data.writeUInt32LE(crc32(data.subarray(headerBytes)), 16)
  return data
}

/**
 * The columns of a stored block, as views of `data` (copied first when not 8-byte aligned). Returns a problem in
 * words when the bytes are not a whole, intact block of `expectedCount` quotes.
 */
export function decodeBlock(data: Uint8Array, expectedCount: number): BlockColumns | string {
  if (data.length < headerBytes) return `${data.length} bytes, shorter than a block header (${headerBytes} bytes)`
  const view = new DataView(data.buffer, data.byteOffset, data.length)
  if (view.getUint32(0, true) !== blockMagic) return 'no block header (expected the bytes "DFQB" first)'
  const count = view.getUint32(4, true)
  const wideCount = view.getUint32(8, true)
  const costsBytes = view.getUint32(12, true)
  if (count !== expectedCount) return `the block says it holds ${count} quotes, its row says ${expectedCount}`
  const { sections, total } = sectionsOf(count, wideCount * 4, costsBytes)
  if (data.length !== total) return `${data.length} bytes, expected ${total} for ${count} quotes (truncated?)`
  if (crc32(data.subarray(headerBytes)) !== view.getUint32(16, true)) return 'its checksum does not match its bytes'
  let bytes = data
  if (data.byteOffset % 8 !== 0 || bigEndianHost) {
    bytes = new Uint8Array(data)
    if (bigEndianHost) swapColumns(bytes, sections)
  }
  const { buffer, byteOffset } = bytes
  const at = (name: keyof Sections) => byteOffset + sections[name].offset
  return {
    count,
    times: new Float64Array(buffer, at('times'), count),
    requestedAts: new Float64Array(buffer, at('requestedAts'), count),
    srcLo: new BigUint64Array(buffer, at('srcLo'), count),
    srcHi: new BigUint64Array(buffer, at('srcHi'), count),
    destLo: new BigUint64Array(buffer, at('destLo'), count),
    destHi: new BigUint64Array(buffer, at('destHi'), count),
    wide: new BigUint64Array(buffer, at('wide'), wideCount * 4),
    ids: new Uint32Array(buffer, at('ids'), count),
    costIndexes: new Uint16Array(buffer, at('costIndexes'), count),
    flags: new Uint8Array(buffer, at('flags'), count),
    costs: new Uint8Array(buffer, at('costs'), costsBytes),
  }
}

/** Typed arrays use the host's byte order; the file is little-endian. Swapping is its own inverse. */
function swapColumns(data: Uint8Array, sections: Sections): void {
  const buffer = Buffer.from(data.buffer, data.byteOffset, data.length)
  for (const { offset, bytes, width } of Object.values(sections)) {
    const column = buffer.subarray(offset, offset + bytes)
    if (width === 8) column.swap64()
    else if (width === 4) column.swap32()
    else if (width === 2) column.swap16()
  }
}

const twoTo64 = 1n << 64n
const twoTo128 = 1n << 128n

/** Stores `value` at `index` of the lo/hi columns (or in `wide`); returns the flags it needs. */
export function putAmount(
  value: bigint,
  index: number,
  lo: BigUint64Array,
  hi: BigUint64Array,
  wide: bigint[],
  flags: { high: number; wide: number },
): number {
  if (value < twoTo64) {
    lo[index] = value
    hi[index] = 0n
    return 0
  }
  if (value < twoTo128) {
    lo[index] = BigInt.asUintN(64, value)
    hi[index] = value >> 64n
    return flags.high
  }
  lo[index] = BigInt(wide.length / 4)
  hi[index] = 0n
  for (let word = 0; word < 4; word++) wide.push(BigInt.asUintN(64, value >> BigInt(64 * word)))
  return flags.wide
}

/** The amount putAmount stored, given that its flags say it is at least 2^64. */
export function readLargeAmount(lo: bigint, hi: bigint, wide: BigUint64Array, isWide: boolean): bigint {
  if (!isWide) return (hi << 64n) | lo
  const at = Number(lo) * 4
  let value = 0n
  for (let word = 3; word >= 0; word--) value = (value << 64n) | (wide[at + word] ?? 0n)
  return value
}
