import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { BaseError } from '../../errors/base.js'

export type AnvilParameters = {
  chainId: number
  /** 0 (the default) lets the OS pick a free loopback port. */
  port?: number | undefined
  /** Genesis timestamp, unix seconds. */
  timestamp?: bigint | undefined
  /** Seconds before a start that never prints its address is abandoned. */
  startTimeoutMs?: number | undefined
}

export type AnvilInstance = {
  chainId: number
  port: number
  rpcUrl: string
  pid: number
  /** Stops the node and resolves once the process has exited. Safe to call twice. */
  stop: () => Promise<void>
}

export class AnvilStartError extends BaseError {
  override name = 'AnvilStartError'
}

const running = new Set<ChildProcess>()
let exitHookInstalled = false

/**
 * Starts one anvil node on loopback.
 *
 * anvil runs under a small shell guard that reads its stdin: when this process dies for any reason
 * (SIGKILL included), the pipe closes and the guard kills anvil, so no node outlives its owner.
 */
export async function startAnvil(parameters: AnvilParameters): Promise<AnvilInstance> {
  const { chainId, port = 0, timestamp, startTimeoutMs = 15_000 } = parameters
  const args = ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(chainId), '--hardfork', 'prague']
  if (timestamp !== undefined) args.push('--timestamp', timestamp.toString())
  const guard =
    'trap \'kill $child 2>/dev/null; exit 0\' TERM INT; "$0" "$@" & child=$!; read _unused; kill $child 2>/dev/null; wait $child'
  const child = spawn('/bin/sh', ['-c', guard, resolveAnvilBinary(), ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
  running.add(child)
  installExitHook()
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  exited.then(() => running.delete(child))

  let output = ''
  const listeningPort = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => fail(`anvil printed no address within ${startTimeoutMs} ms`), startTimeoutMs)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /Listening on 127\.0\.0\.1:(\d+)/.exec(output)
      if (match?.[1]) {
        clearTimeout(timer)
        child.stdout?.off('data', onData)
        child.stdout?.resume()
        resolve(Number(match[1]))
      }
    }
    const fail = (reason: string) => {
      clearTimeout(timer)
      child.stdin?.end()
      reject(
        new AnvilStartError(`Could not start anvil for chain ${chainId}`, {
          details: { reason, output: output.slice(-2_000) },
          hint: 'Check that @foundry-rs/anvil installed its platform binary (npm ci) and that loopback ports are available.',
        }),
      )
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.once('exit', (code) => fail(`anvil exited with code ${code} before listening`))
  })

  let stopping: Promise<void> | undefined
  return {
    chainId,
    port: listeningPort,
    rpcUrl: `http://127.0.0.1:${listeningPort}`,
    pid: child.pid ?? -1,
    stop: () => {
      stopping ??= (async () => {
        child.stdin?.end()
        const killTimer = setTimeout(() => child.kill('SIGKILL'), 5_000)
        await exited
        clearTimeout(killTimer)
      })()
      return stopping
    },
  }
}

/** Path of the anvil binary shipped inside the platform package of `@foundry-rs/anvil`. */
export function resolveAnvilBinary(): string {
  const override = process.env.DELTAFLOW_ANVIL_BIN
  if (override) return override
  const require = createRequire(import.meta.url)
  const arch = process.arch === 'x64' ? 'amd64' : process.arch
  const platformPackage = `@foundry-rs/anvil-${process.platform}-${arch}`
  let packageDir: string
  try {
    packageDir = dirname(require.resolve(`${platformPackage}/package.json`))
  } catch (cause) {
    throw new AnvilStartError(`The anvil binary package ${platformPackage} is not installed`, {
      cause,
      hint: 'Run npm ci; @foundry-rs/anvil ships a binary for linux and darwin (x64, arm64) and win32 (x64).',
    })
  }
  const binary = join(packageDir, 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil')
  if (!existsSync(binary)) throw new AnvilStartError(`anvil binary missing at ${binary}`, { hint: 'Run npm ci again.' })
  return binary
}

/** Closing our end of each guard's stdin on exit is synchronous, so it works from an 'exit' handler too. */
function installExitHook(): void {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.once('exit', () => {
    for (const child of running) child.stdin?.destroy()
  })
}
