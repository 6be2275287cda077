import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import { type MakerCredentials, makerAuthHeaderNames, makerSigningPayload } from '../../protocol/maker-auth.js'
import { ReplayCache } from './replay-cache.js'

// Verifies the four X-AUTH headers of a request (section 5 of the maker document). Each failure has its own text,
// specific enough to debug an integration, and never carries a credential: not the access key, not the secret, not
// the signature. Secrets are compared in constant time over equal-length digests.

export type MakerAuthParameters = {
  credentials: readonly MakerCredentials[]
  /** Accepted clock skew either way, ms (the document says about 30 s). */
  toleranceMs?: number | undefined
  /** Cap of the replay cache (signatures accepted within the window). */
  maxReplayEntries?: number | undefined
}

/** What a request offers for verification: its headers as received (each name with every value sent). */
export type MakerAuthRequest = {
  headers: Readonly<Record<string, readonly string[] | undefined>>
  method: string
  /** As received, with the base path prefix. */
  path: string
  /** With its `?`, exactly as received; empty when none. */
  query: string
  /** The raw body bytes as received; empty for GET. */
  body: Uint8Array | undefined
  nowMs: number
}

export type MakerAuthFailureCode =
  | 'missing-header'
  | 'duplicate-header'
  | 'unknown-domain'
  | 'wrong-access-key'
  | 'malformed-timestamp'
  | 'stale-timestamp'
  | 'malformed-signature'
  | 'signature-mismatch'
  | 'replayed'
  | 'replay-cache-full'

export type MakerAuthFailure = { status: 401 | 429; code: MakerAuthFailureCode; error: string }

/** The domain a request was authenticated as, or why it was refused. */
export type MakerAuthVerdict = { ok: true; domain: string } | ({ ok: false } & MakerAuthFailure)

const headerLabels = {
  domain: 'X-AUTH-DOMAIN',
  accessKey: 'X-AUTH-ACCESS-KEY',
  timestamp: 'X-AUTH-TIMESTAMP',
  signature: 'X-AUTH-SIGNATURE',
} as const satisfies Record<keyof typeof makerAuthHeaderNames, string>

const headerKeys = Object.keys(headerLabels) as (keyof typeof headerLabels)[]

type KnownDomain = { domain: string; secret: string; accessKeyDigest: Buffer }

/** A verifier bound to the configured credentials, with its own replay cache. */
export function createMakerAuthVerifier({ credentials, toleranceMs = 30_000, maxReplayEntries }: MakerAuthParameters) {
  if (credentials.length === 0) throw new RangeError('maker auth: at least one credential set is required')
  const domains = new Map<string, KnownDomain>()
  for (const { domain, accessKey, secret } of credentials) {
    if (domain === '' || accessKey === '' || secret === '')
      throw new RangeError('maker auth: domain, access key and secret must be non-empty')
    if (domains.has(domain)) throw new RangeError(`maker auth: domain ${JSON.stringify(domain)} is configured twice`)
    domains.set(domain, { domain, secret, accessKeyDigest: digest(accessKey) })
  }
  const replays = new ReplayCache({ toleranceMs, maxEntries: maxReplayEntries })

  return function verifyMakerAuth(request: MakerAuthRequest): MakerAuthVerdict {
    const values: Partial<Record<keyof typeof headerLabels, string>> = {}
    const missing: string[] = []
    for (const key of headerKeys) {
      const sent = request.headers[makerAuthHeaderNames[key]]
      if (sent === undefined || sent.length === 0 || sent[0] === '') missing.push(headerLabels[key])
      else if (sent.length > 1) return refuse('duplicate-header', `header ${headerLabels[key]} was sent ${sent.length} times; send it once`)
      else values[key] = sent[0] ?? ''
    }
    if (missing.length > 0) {
      return refuse('missing-header', `missing authentication header${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`)
    }
    const { domain = '', accessKey = '', timestamp = '', signature = '' } = values
    const known = domains.get(domain)
    if (known === undefined) return refuse('unknown-domain', `unknown X-AUTH-DOMAIN ${quote(domain)}`)
    if (!timingSafeEqual(digest(accessKey), known.accessKeyDigest)) {
      return refuse('wrong-access-key', `wrong X-AUTH-ACCESS-KEY for X-AUTH-DOMAIN ${quote(domain)}`)
    }
    if (!/^\d{1,16}$/.test(timestamp)) {
      return refuse(
        'malformed-timestamp',
        `X-AUTH-TIMESTAMP must be unix time in milliseconds as a decimal integer, received ${quote(timestamp)}`,
      )
    }
    const timestampMs = Number(timestamp)
    const skewMs = timestampMs - request.nowMs
    if (Math.abs(skewMs) > toleranceMs) {
      const looksLikeSeconds = timestamp.length <= 11 && request.nowMs > 1e12 ? '; it looks like seconds, send milliseconds' : ''
      const direction = skewMs > 0 ? 'ahead of' : 'behind'
      return refuse(
        'stale-timestamp',
        `X-AUTH-TIMESTAMP ${timestamp} is ${Math.abs(skewMs)} ms ${direction} the maker's clock (tolerance ±${toleranceMs} ms)${looksLikeSeconds}`,
      )
    }
    if (!/^[0-9a-f]{64}$/.test(signature)) {
      const detail = /^[0-9a-fA-F]{64}$/.test(signature) ? 'received uppercase hex' : `received ${signature.length} characters`
      return refuse('malformed-signature', `X-AUTH-SIGNATURE must be 64 lowercase hex characters (HMAC-SHA256), ${detail}`)
    }
    const head = makerSigningPayload({ timestamp, method: request.method, path: request.path, query: request.query })
    const hmac = createHmac('sha256', known.secret).update(head)
    if (request.body !== undefined) hmac.update(request.body)
    if (!timingSafeEqual(hmac.digest(), Buffer.from(signature, 'hex'))) {
      const bodyBytes = request.body?.byteLength ?? 0
      return refuse(
        'signature-mismatch',
        `X-AUTH-SIGNATURE does not match: expected the lowercase hex HMAC-SHA256, keyed with the secret key of X-AUTH-DOMAIN ${quote(domain)}, of ${quote(head, 300)} followed by the body as sent (${bodyBytes} bytes)`,
      )
    }
    const verdict = replays.admit(`${domain}\n${signature}`, timestampMs, request.nowMs)
    if (verdict === 'replayed') {
      return refuse('replayed', `replayed request: this X-AUTH-SIGNATURE was already accepted within the last ${toleranceMs} ms`)
    }
    if (verdict === 'full') {
      return {
        ok: false,
        status: 429,
        code: 'replay-cache-full',
        error: 'too many signed requests within the timestamp window; retry later',
      }
    }
    return { ok: true, domain }
  }
}

export type MakerAuthVerifier = ReturnType<typeof createMakerAuthVerifier>

function refuse(code: MakerAuthFailureCode, error: string): MakerAuthVerdict {
  return { ok: false, status: 401, code, error }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest()
}

/** A received value for an error text: JSON-quoted and cut short. */
function quote(value: string, max = 80): string {
  return JSON.stringify(value.length > max ? `${value.slice(0, max)}…` : value)
}
