import { createHmac } from 'node:crypto'

// Request signing of the market-maker interface (section 5 of the maker document, protocol-facts): the payload is
// timestamp_ms + METHOD + path + query (with its '?', or empty) + body as sent (empty for GET), the signature the
// lowercase hex HMAC-SHA256 of it keyed with the secret string. Shared by the maker server (verifies) and the
// sandbox (signs its polls and firm requests as the service does).

export const makerAuthHeaderNames = {
  domain: 'x-auth-domain',
  accessKey: 'x-auth-access-key',
  timestamp: 'x-auth-timestamp',
  signature: 'x-auth-signature',
} as const

export type MakerRequestParts = {
  /** Unix ms as a decimal string, exactly as sent in X-AUTH-TIMESTAMP. */
  timestamp: string
  method: string
  /** Starts with `/` and includes the base URL's path prefix. */
  path: string
  /** With its leading `?`, exactly as sent; empty when there is none. */
  query?: string | undefined
  /** The body exactly as sent; empty for GET. */
  body?: string | undefined
}

export type MakerCredentials = {
  domain: string
  accessKey: string
  secret: string
}

export function makerSigningPayload({ timestamp, method, path, query = '', body = '' }: MakerRequestParts): string {
  return `${timestamp}${method.toUpperCase()}${path}${query}${body}`
}

/** Lowercase hex HMAC-SHA256 of the request's signing payload. */
export function signMakerRequest(secret: string, parts: MakerRequestParts): string {
  return createHmac('sha256', secret).update(makerSigningPayload(parts)).digest('hex')
}

export type MakerAuthHeaders = Record<(typeof makerAuthHeaderNames)[keyof typeof makerAuthHeaderNames], string>

/** The four X-AUTH headers of one request, signed at `nowMs` (recomputed for every request). */
export function makerAuthHeaders(
  credentials: MakerCredentials,
  { nowMs, method, path, query, body }: Omit<MakerRequestParts, 'timestamp'> & { nowMs: number },
): MakerAuthHeaders {
  const timestamp = String(Math.trunc(nowMs))
  return {
    [makerAuthHeaderNames.domain]: credentials.domain,
    [makerAuthHeaderNames.accessKey]: credentials.accessKey,
    [makerAuthHeaderNames.timestamp]: timestamp,
    [makerAuthHeaderNames.signature]: signMakerRequest(credentials.secret, { timestamp, method, path, query, body }),
  }
}
