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
  /**
   * Settles when the node's process ends, whoever ended it: how it ended and the last of what it printed. A set-up
   * step waiting on the node races this, so a node that dies fails the step with anvil's own last words instead of
   * leaving it polling a dead port.
   */
  exited: Promise<AnvilExit>
  /** Stops the node and resolves once the process has exited. Safe to call twice. */
  stop: () => Promise<void>
}

export type AnvilExit = { code: number | null; signal: NodeJS.Signals | null; output: string }

/** How much of anvil's latest output is kept for an error (it logs every request, so older output is dropped). */
const outputTailChars = 4_000

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
  // The guard waits on anvil, not on its stdin, so it ends (with anvil's exit code) when anvil ends by itself; a
  // watcher beside it reads the stdin (fd 3: a background list's own stdin is /dev/null) and kills anvil at its EOF.
  const guard = [
    'exec 3<&0',
    "trap 'kill $child $watcher 2>/dev/null; exit 0' TERM INT",
    '"$0" "$@" </dev/null 3<&- & child=$!',
    '(read _unused <&3; kill $child 2>/dev/null) & watcher=$!',
    'wait $child; code=$?',
    'kill $watcher 2>/dev/null',
    'exit $code',
  ].join('\n')
  const child = spawn('/bin/sh', ['-c', guard, resolveAnvilBinary(), ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
  running.add(child)
  installExitHook()
  let output = ''
  const keep = (chunk: Buffer) => {
    output += chunk.toString()
    if (output.length > 2 * outputTailChars) output = output.slice(-outputTailChars)
  }
  const exited = new Promise<AnvilExit>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, output: output.slice(-outputTailChars) })),
  )
  exited.then(() => running.delete(child))

  const listeningPort = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => fail(`anvil printed no address within ${startTimeoutMs} ms`), startTimeoutMs)
    const onData = () => {
      const match = /Listening on 127\.0\.0\.1:(\d+)/.exec(output)
      if (match?.[1]) {
        clearTimeout(timer)
        child.stdout?.off('data', onData)
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
    // Both streams are read for the node's whole life (a pipe nobody reads would stall anvil once full); only a
    // bounded tail is kept.
    child.stdout?.on('data', keep)
    child.stderr?.on('data', keep)
    child.stdout?.on('data', onData)
    child.once('exit', (code) => fail(`anvil exited with code ${code} before listening`))
  })

  let stopping: Promise<void> | undefined
  return {
    chainId,
    port: listeningPort,
    rpcUrl: `http://127.0.0.1:${listeningPort}`,
    pid: child.pid ?? -1,
    exited,
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
