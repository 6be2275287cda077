import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { type ApiClient, createApiClient } from '../../src/api/client.js'

// Recorded answers of the real service, replayed through the API client by a fetch that answers them (the sandbox
// cannot produce them: they are the real service's bytes).

export const fixturesDirectory = join(import.meta.dirname, '..', 'fixtures', 'velora')

export function fixtureText(name: string): string {
  return readFileSync(join(fixturesDirectory, name), 'utf8')
}

export function fixtureJson(name: string): unknown {
  return JSON.parse(fixtureText(name))
}

export function recordedJsonFixtures(): string[] {
  return readdirSync(fixturesDirectory).filter((name) => name.endsWith('.json'))
}

/** A client whose every request is answered with `body` (text, or a value serialised as JSON) and `status`. */
export function answeringClient(body: unknown, status = 200, headers: Record<string, string> = {}): ApiClient {
  const text = typeof body === 'string' ? body : JSON.stringify(body)
  return createApiClient({
    baseUrl: 'http://recorded.invalid',
    retry: false,
    rateLimit: false,
    fetch: async () => new Response(text, { status, headers: { 'content-type': 'application/json', ...headers } }),
  })
}
