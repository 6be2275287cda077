import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { findExecutable } from './find-executable.js'

// A redis-server of the test's own (the Debian package's binary; .ci/run installs it): on a free loopback port, in a
// temp directory, without persistence, stopped by `stop`. Nothing is skipped when it is missing: the test fails saying
// how to install it.

const installHint = 'Install it: `apt-get install -y redis-server` (as root; .ci/run does this in CI), or set REDIS_SERVER_PATH.'

export type RedisServer = {
  port: number
  /** redis://127.0.0.1:port, with the password when one was asked for. */
  url: string
  process: ChildProcess
  stop: () => Promise<void>
}

/** The redis-server binary: $REDIS_SERVER_PATH, else redis-server on PATH. Throws, saying how to install it. */
export function findRedisServer(): string {
  return findExecutable({ label: 'redis-server', variable: 'REDIS_SERVER_PATH', names: ['redis-server'], installHint })
}

/** Starts redis-server on a free loopback port and waits until it accepts connections. */
export async function startRedisServer({ password }: { password?: string } = {}): Promise<RedisServer> {
  const binary = findRedisServer()
  let lastError: unknown
  // A port found free may be taken before redis-server binds it: then another one.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort()
    const directory = mkdtempSync(join(tmpdir(), 'deltaflow-redis-'))
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', directory, '--save', '', '--appendonly', 'no']
    args.push('--maxmemory-policy', 'noeviction', '--loglevel', 'notice')
    if (password) args.push('--requirepass', password)
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    const stop = async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGTERM')
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000)
        await exited
        clearTimeout(timer)
      }
      rmSync(directory, { recursive: true, force: true })
    }
    try {
      await readyOf(child, 10_000)
      const auth = password ? `:${encodeURIComponent(password)}@` : ''
      return { port, url: `redis://${auth}127.0.0.1:${port}`, process: child, stop }
    } catch (error) {
      lastError = error
      await stop()
    }
  }
  throw lastError
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

/** Resolves once redis-server logs that it accepts connections; rejects with its log when it exits first. */
function readyOf(child: ChildProcess, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let log = ''
    const onData = (chunk: Buffer) => {
      log += chunk.toString()
      if (log.includes('Ready to accept connections')) finish()
    }
    const timer = setTimeout(
      () => finish(new Error(`redis-server did not get ready within ${timeoutMs} ms:\n${log.slice(-2000)}`)),
      timeoutMs,
    )
    const onExit = (code: number | null) =>
      finish(new Error(`redis-server exited (code ${code}) before it was ready:\n${log.slice(-2000)}`))
    const finish = (error?: Error) => {
      clearTimeout(timer)
      child.stdout?.off('data', onData)
      child.stderr?.off('data', onData)
      // Keep the pipes flowing (their data dropped): a full pipe would block redis-server on its next log line.
      child.stdout?.resume()
      child.stderr?.resume()
      child.off('exit', onExit)
      if (error) reject(error)
      else resolve()
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('exit', onExit)
    child.once('error', (error) => finish(error))
  })
}
