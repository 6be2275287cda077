import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/**
 * Runs a benchmark's step in a child process of its own (its memory and JIT are its own, its RSS measurable): forks
 * the benchmark's module with `marker` and `args`; the child answers with one IPC message and exits 0.
 */
export function forkBenchChild<T>(moduleUrl: string, marker: string, args: readonly string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(moduleUrl), [marker, ...args], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    let report: T | undefined
    child.on('message', (message) => {
      report = message as T
    })
    child.on('error', reject)
    child.on('exit', (code) =>
      report !== undefined && code === 0 ? resolve(report) : reject(new Error(`bench child ${args[0]} exited with ${code}`)),
    )
  })
}
