import { BlockList, isIPv4, isIPv6 } from 'node:net'

const mappedPrefix = '::ffff:'

/**
 * A check of a source address against exact IPs (v4 or v6, compared in canonical form; an IPv4-mapped v6 address
 * `::ffff:a.b.c.d` counts as `a.b.c.d` either way). Throws on an entry that is not an IP.
 */
export function createIpAllowlist(ips: readonly string[]): (remoteAddress: string | undefined) => boolean {
  const allowed = new BlockList()
  for (const entry of ips) {
    const ip = unmap(entry.trim())
    if (isIPv4(ip)) allowed.addAddress(ip, 'ipv4')
    else if (isIPv6(ip)) allowed.addAddress(ip, 'ipv6')
    else throw new RangeError(`maker allowIps: ${JSON.stringify(entry)} is not an IPv4 or IPv6 address`)
  }
  return (remoteAddress) => {
    if (remoteAddress === undefined) return false
    const ip = unmap(remoteAddress)
    if (isIPv4(ip)) return allowed.check(ip, 'ipv4')
    return isIPv6(ip) && allowed.check(ip, 'ipv6')
  }
}

function unmap(ip: string): string {
  return ip.toLowerCase().startsWith(mappedPrefix) && isIPv4(ip.slice(mappedPrefix.length)) ? ip.slice(mappedPrefix.length) : ip
}
