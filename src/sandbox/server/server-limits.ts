import type { Server } from 'node:http'
import type { FastifyHttpOptions } from 'fastify'

/**
 * Limits of the sandbox's HTTP server, in bytes and real milliseconds.
 *
 * There is no idle-socket timeout (fastify's `connectionTimeout` stays 0): an answer may legitimately take long (an
 * injected latency is up to 120 s), a silent client mid-request is bounded by `requestTimeoutMs` and an idle
 * keep-alive connection by `keepAliveTimeoutMs`. The sandbox serves no WebSocket (it is a client of the makers').
 */
export type SandboxServerLimits = {
  /** Largest request body; a larger one is answered 413 `{ error }`. Default 5 MiB. */
  bodyLimitBytes: number
  /**
   * Time to receive a whole request, headers and body (not the time to answer it): a request still incomplete then,
   * e.g. one whose Content-Length overstates its body, is answered 408 `{ error }` and its connection closed. It also
   * bounds reading away the rest of a body refused with 413. Default 30 s.
   */
  requestTimeoutMs: number
  /** Time to receive the headers; at most `requestTimeoutMs`. Default: `requestTimeoutMs`. */
  headersTimeoutMs: number
  /** An idle keep-alive connection is closed after this. Default 72 s. */
  keepAliveTimeoutMs: number
}

export const defaultSandboxServerLimits: Omit<SandboxServerLimits, 'headersTimeoutMs'> = {
  bodyLimitBytes: 5 * 1024 * 1024,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 72_000,
}

/** Fills the defaults and checks the values: a bad one stops the start with a RangeError naming it. */
export function resolveSandboxServerLimits(input: Partial<SandboxServerLimits> = {}): SandboxServerLimits {
  const limits = { ...defaultSandboxServerLimits, ...definedOnly(input) }
  const resolved = { ...limits, headersTimeoutMs: input.headersTimeoutMs ?? limits.requestTimeoutMs }
  for (const [name, value] of Object.entries(resolved)) {
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new RangeError(`sandbox server: ${name} must be a positive integer, received ${JSON.stringify(value) ?? String(value)}`)
    }
  }
  if (resolved.headersTimeoutMs > resolved.requestTimeoutMs) {
    throw new RangeError(
      `sandbox server: headersTimeoutMs (${resolved.headersTimeoutMs}) must not exceed requestTimeoutMs (${resolved.requestTimeoutMs})`,
    )
  }
  return resolved
}

/** The fastify and node:http options that enforce `limits`. */
export function serverOptionsOf(limits: SandboxServerLimits) {
  return {
    bodyLimit: limits.bodyLimitBytes,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: {
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: limits.headersTimeoutMs,
      // node checks for expired requests this often (30 s by default, which would stretch a short timeout).
      connectionsCheckingInterval: Math.min(1_000, limits.requestTimeoutMs),
    },
  } satisfies FastifyHttpOptions<Server>
}

function definedOnly<T extends object>(input: T): Partial<T> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as Partial<T>
}
