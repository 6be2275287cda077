import { closeSync, openSync, readSync } from 'node:fs'

/** The largest configuration file read: a bot's config is a few kilobytes; anything near this is not one. */
export const maxConfigFileBytes = 1024 * 1024

/** The text of a configuration file, or the one problem that stops it being read (`file:line:col: ...` when placed). */
export type ConfigText = { text: string } | { problem: string }

/**
 * Reads a configuration file as strict UTF-8 (a leading byte order mark is dropped): a file over maxConfigFileBytes or
 * with a byte that is not UTF-8 is refused, never decoded with replacement characters. Reads at most one byte past the
 * limit, so a huge file, a device or a pipe costs no more than a small one.
 */
export function readConfigText(file: string): ConfigText {
  const bytes = readAtMost(file, maxConfigFileBytes + 1)
  if (bytes.length > maxConfigFileBytes) {
    return {
      problem: `${file}: expected a configuration file of at most ${maxConfigFileBytes} bytes (1 MiB), received a larger file`,
    }
  }
  return decodeConfigBytes(bytes, file)
}

/** Strict UTF-8 decoding of a configuration's bytes; the problem names the line and column of the first bad byte. */
export function decodeConfigBytes(bytes: Uint8Array, file: string): ConfigText {
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) }
  } catch {
    const offset = findInvalidUtf8(bytes) ?? 0
    const lineStart = bytes.lastIndexOf(0x0a, offset - 1) + 1
    const line = countByte(bytes, 0x0a, offset) + 1
    // Columns count UTF-16 code units, as the YAML positions of every other problem do.
    const column = new TextDecoder('utf-8').decode(bytes.subarray(lineStart, offset)).length + 1
    const byte = (bytes[offset] ?? 0).toString(16).toUpperCase().padStart(2, '0')
    return {
      problem:
        `${file}:${line}:${column}: expected UTF-8 text, received the byte 0x${byte} (byte ${offset} of the file), which ` +
        'is not valid UTF-8: save the file as UTF-8',
    }
  }
}

/**
 * The offset of the first byte that starts no well-formed UTF-8 sequence (the Unicode standard's table of well-formed
 * byte sequences: no overlong forms, no surrogates, nothing past U+10FFFF), or undefined when every byte is valid.
 */
export function findInvalidUtf8(bytes: Uint8Array): number | undefined {
  let offset = 0
  while (offset < bytes.length) {
    const lead = bytes[offset] as number
    if (lead < 0x80) {
      offset += 1
      continue
    }
    const sequence = sequenceOf(lead)
    if (sequence === undefined) return offset
    for (let index = 1; index <= sequence.continuations; index += 1) {
      const byte = bytes[offset + index]
      const [low, high] = index === 1 ? sequence.second : [0x80, 0xbf]
      if (byte === undefined || byte < low || byte > high) return offset
    }
    offset += sequence.continuations + 1
  }
  return undefined
}

/** How many continuation bytes follow a lead byte, and the range its second byte must fall in. */
function sequenceOf(lead: number): { continuations: number; second: [number, number] } | undefined {
  if (lead >= 0xc2 && lead <= 0xdf) return { continuations: 1, second: [0x80, 0xbf] }
  if (lead === 0xe0) return { continuations: 2, second: [0xa0, 0xbf] }
  if (lead === 0xed) return { continuations: 2, second: [0x80, 0x9f] }
  if (lead >= 0xe1 && lead <= 0xef) return { continuations: 2, second: [0x80, 0xbf] }
  if (lead === 0xf0) return { continuations: 3, second: [0x90, 0xbf] }
  if (lead >= 0xf1 && lead <= 0xf3) return { continuations: 3, second: [0x80, 0xbf] }
  if (lead === 0xf4) return { continuations: 3, second: [0x80, 0x8f] }
  return undefined
}

function countByte(bytes: Uint8Array, byte: number, end: number): number {
  let count = 0
  for (let index = 0; index < end; index += 1) if (bytes[index] === byte) count += 1
  return count
}

/** Up to `limit` bytes of the file, read until its end or the limit. */
function readAtMost(file: string, limit: number): Uint8Array {
  const buffer = Buffer.alloc(limit)
  const descriptor = openSync(file, 'r')
  try {
    let length = 0
    while (length < limit) {
      const read = readSync(descriptor, buffer, length, limit - length, null)
      if (read === 0) break
      length += read
    }
    return buffer.subarray(0, length)
  } finally {
    closeSync(descriptor)
  }
}
