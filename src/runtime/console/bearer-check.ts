import { createHash, timingSafeEqual } from 'node:crypto'

/** What a request's Authorization header is worth against the console's token. */
export type BearerVerdict = 'valid' | 'missing' | 'wrong'

/**
 * A check of `Authorization: Bearer <token>` in constant time: both sides are hashed first, so that their lengths
 * are equal and nothing about the token's length leaks.
 */
export function createBearerCheck(token: string): (header: string | undefined) => BearerVerdict {
  const expected = createHash('sha256').update(token).digest()
  return (header) => {
    const match = header === undefined ? null : /^Bearer[ \t]+(\S+)\s*$/i.exec(header)
    if (!match?.[1]) return 'missing'
    const given = createHash('sha256').update(match[1]).digest()
    return timingSafeEqual(given, expected) ? 'valid' : 'wrong'
  }
}
