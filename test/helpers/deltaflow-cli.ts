import { execFile, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { SandboxInfo } from '../../src/sandbox/start-sandbox.js'

const root = fileURLToPath(new URL('../..', import.meta.url))
const run = promisify(execFile)

/**
 * `deltaflow <args>` as a user runs it (the compiled CLI, from the repository), without a key unless `env` gives one;
 * resolves with its exit code and output, never rejects.
 */
export async function runDeltaflow(args: readonly string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, ['bin/deltaflow.js', ...args], {
      cwd: root,
      env: { ...process.env, DELTAFLOW_PRIVATE_KEY: '', ...env },
      maxBuffer: 64 * 2 ** 20,
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

/** A `deltaflow sandbox --json` child process once it printed its ready line, and how to stop it. */
export type DeltaflowSandbox = { info: SandboxInfo; stop: () => Promise<void> }

/** Starts `deltaflow sandbox --json <args>` as a user runs it and waits for its ready line. */
export async function startDeltaflowSandbox(args: readonly string[]): Promise<DeltaflowSandbox> {
  const child = spawn(process.execPath, ['bin/deltaflow.js', 'sandbox', '--json', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const line = await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout as NonNullable<typeof child.stdout> }).once('line', resolve),
  )
  return {
    info: JSON.parse(line) as SandboxInfo,
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    },
  }
}
