import { type ChildProcess, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))

/** A `deltaflow worker` child process as a user runs it (the compiled CLI), once it logged that it is ready. */
export type DeltaflowWorker = {
  pid: number
  /** The name BullMQ records on the jobs it takes (processedBy). */
  name: string
  child: ChildProcess
  /** Its log lines so far (JSON, as pino writes them on stderr). */
  lines: string[]
  /** Resolves with the exit code (or the signal) once it has exited. */
  exited: Promise<number | NodeJS.Signals | null>
  /** Sends `signal` (SIGTERM by default) and waits for the exit. */
  stop: (signal?: NodeJS.Signals) => Promise<number | NodeJS.Signals | null>
}

/**
 * Starts `deltaflow worker --queue <url> <args>` and waits for its ready line (rejects with its output if it exits);
 * `env` adds variables (DELTAFLOW_FROM_SOURCE=1: the sources instead of dist/).
 */
export async function startDeltaflowWorker(
  url: string,
  args: readonly string[] = [],
  env: Record<string, string> = {},
): Promise<DeltaflowWorker> {
  const child = spawn(process.execPath, ['bin/deltaflow.js', 'worker', '--queue', url, ...args], {
    cwd: root,
    env: { ...process.env, DELTAFLOW_PRIVATE_KEY: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const lines: string[] = []
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)))
  const ready = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stderr as NonNullable<typeof child.stderr> }).on('line', (line) => {
      lines.push(line)
      if (line.includes('worker ready')) resolve(line)
    })
    void exited.then((code) => reject(new Error(`deltaflow worker exited (${code}) before it was ready:\n${lines.join('\n')}`)))
  })
  child.stdout?.resume()
  const readyLine = await ready
  const { worker } = JSON.parse(readyLine) as { worker: string }
  return {
    pid: child.pid as number,
    name: worker,
    child,
    lines,
    exited,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      return exited
    },
  }
}
