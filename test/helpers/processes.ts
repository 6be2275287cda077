/** True while a process with this pid exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Waits until every pid has exited; throws after `timeoutMs`. */
export async function waitForExit(pids: readonly number[], timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (pids.some(isAlive)) {
    if (Date.now() > deadline) throw new Error(`processes still alive after ${timeoutMs} ms: ${pids.filter(isAlive).join(', ')}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Pids of anvil processes listening on this loopback port (found through the socket inode, as `ss -p` does). */
export async function anvilPidsOnPort(port: number): Promise<number[]> {
  const { readdirSync, readFileSync, readlinkSync } = await import('node:fs')
  const portHex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`
  const inodes = new Set<string>()
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const row of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = row.trim().split(/\s+/)
      // local_address is field 1, state 0A is LISTEN, inode is field 9
      if (fields[1]?.endsWith(portHex) && fields[3] === '0A' && fields[9]) inodes.add(fields[9])
    }
  }
  const pids: number[] = []
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      if (!(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '').endsWith('/anvil')) continue
      const sockets = readdirSync(`/proc/${pid}/fd`).map((fd) => {
        try {
          return readlinkSync(`/proc/${pid}/fd/${fd}`)
        } catch {
          return ''
        }
      })
      if (sockets.some((link) => inodes.has(link.replace(/^socket:\[(\d+)\]$/, '$1')))) pids.push(Number(pid))
    } catch {
      // the process ended while we looked
    }
  }
  return pids
}
