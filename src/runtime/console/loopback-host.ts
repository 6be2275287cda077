/**
 * Whether a request's Host header names this machine's loopback (localhost, 127.0.0.0/8, ::1), with or without a
 * port. A console bound to loopback answers only such requests: a web page whose name an attacker re-points at
 * 127.0.0.1 (DNS rebinding) sends its own name as the host, and is refused.
 */
export function isLoopbackHost(host: string | undefined): boolean {
  if (host === undefined) return false
  let hostname: string
  try {
    hostname = new URL(`http://${host}`).hostname
  } catch {
    return false
  }
  if (hostname === 'localhost' || hostname.endsWith('.localhost') || hostname === '[::1]') return true
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
}
