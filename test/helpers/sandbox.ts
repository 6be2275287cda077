import { afterAll, beforeAll } from 'vitest'
import { type RunningSandbox, type StartSandboxOptions, startSandbox } from '../../src/sandbox/start-sandbox.js'

/**
 * Starts a sandbox (chains + HTTP server) for the surrounding describe block and stops it afterwards.
 * Pools stand still unless `market: 'replay'` is asked for, so a quote can be compared with its execution.
 */
export function useSandbox(options: StartSandboxOptions = {}): () => RunningSandbox {
  let sandbox: RunningSandbox | undefined
  beforeAll(async () => {
    sandbox = await startSandbox({ market: 'still', ...options })
  })
  afterAll(async () => {
    await sandbox?.stop()
  })
  return () => {
    if (!sandbox) throw new Error('useSandbox: sandbox not started (call inside describe, use inside it)')
    return sandbox
  }
}

export type HttpAnswer = { status: number; headers: Headers; text: string; json: unknown }

/** One real HTTP request to the sandbox; the body is parsed when it is JSON. */
export async function request(baseUrl: string, method: string, path: string, body?: unknown): Promise<HttpAnswer> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? null : typeof body === 'string' ? body : JSON.stringify(body),
  })
  const text = await response.text()
  let json: unknown
  try {
    json = text ? JSON.parse(text) : undefined
  } catch {
    json = undefined
  }
  return { status: response.status, headers: response.headers, text, json }
}
