import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

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
