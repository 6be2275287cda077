import type { IncomingHttpHeaders } from 'node:http'

/**
 * Whether a request comes from a web page of another origin: browsers send `Sec-Fetch-Site` (anything but
 * same-origin or none is foreign) and `Origin` (its host must be the one the request was sent to). curl and other
 * programs send neither. The console answers no CORS header, so such a page can neither read answers nor act.
 */
export function isCrossOrigin(headers: IncomingHttpHeaders): boolean {
  const site = headers['sec-fetch-site']
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true
  const origin = headers.origin
  if (origin === undefined) return false
  try {
    return new URL(origin).host !== headers.host
  } catch {
    return true
  }
}
