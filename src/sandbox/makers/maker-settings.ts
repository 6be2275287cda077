import { z } from 'zod'

/**
 * How the sandbox consumes a market maker, in real milliseconds (the maker lives on the wall clock, not on the
 * sandbox's scaled one). The defaults follow the maker document and protocol-facts; tests shorten them.
 */
export type MakerTiming = {
  /** Between two `/prices` polls (start to start; a poll never overlaps the previous one). */
  pricesIntervalMs: number
  /** Between two rounds of `/tokens`, `/pairs` and `/blacklist`. */
  catalogueIntervalMs: number
  /** Timeout of one polling request. */
  requestTimeoutMs: number
  /** Timeout of `POST /firm`. */
  firmTimeoutMs: number
  /** Consecutive failed `/prices` polls that pause the maker. */
  failuresBeforePause: number
  /** How long a paused maker is left alone (no polls, no routing). */
  pauseMs: number
  /** Cached levels older than this (no successful poll refreshed them) are not routed. */
  levelsMaxAgeMs: number
  /** How long a blacklisted user stays cached after the maker last named it. */
  blacklistTtlMs: number
  /** First wait before reconnecting a WebSocket that dropped or was refused; doubles on each failed attempt. */
  streamReconnectMinMs: number
  /** Longest wait between two reconnection attempts. */
  streamReconnectMaxMs: number
  /** Between two pings on an open WebSocket; a ping unanswered by the next one drops the socket. */
  streamPingIntervalMs: number
}

export const defaultMakerTiming: MakerTiming = {
  pricesIntervalMs: 1_000,
  catalogueIntervalMs: 60_000,
  requestTimeoutMs: 2_000,
  firmTimeoutMs: 3_000,
  failuresBeforePause: 3,
  pauseMs: 60_000,
  levelsMaxAgeMs: 10_000,
  blacklistTtlMs: 3 * 60 * 60 * 1_000,
  streamReconnectMinMs: 1_000,
  streamReconnectMaxMs: 30_000,
  streamPingIntervalMs: 5_000,
}

const received = (input: unknown) => `received ${JSON.stringify(input) ?? String(input)}`

const credentialText = (field: string) =>
  z
    .string({ error: (issue) => `expected the ${field} string, ${received(issue.input)}` })
    .min(1, { error: `expected a non-empty ${field}` })
    .max(1_000)

type UrlCheck = { protocols: readonly string[]; what: string; credentialsHint: string }

/** A URL of `protocols` without credentials, query or fragment (maker requests carry none); no trailing slash. */
const urlSchema = ({ protocols, what, credentialsHint }: UrlCheck) =>
  z
    .string({ error: (issue) => `expected ${what}, ${received(issue.input)}` })
    .max(2_000)
    .transform((value, context) => {
      let url: URL
      try {
        url = new URL(value)
      } catch {
        context.addIssue({ code: 'custom', message: `expected ${what}, ${received(value)}` })
        return z.NEVER
      }
      if (!protocols.includes(url.protocol)) {
        context.addIssue({ code: 'custom', message: `expected ${what}, received protocol ${url.protocol}` })
      }
      if (url.username || url.password) {
        context.addIssue({ code: 'custom', message: `expected a URL without credentials (${credentialsHint})` })
      }
      if (url.search || url.hash) {
        context.addIssue({ code: 'custom', message: 'expected a URL without query or fragment (maker requests carry none)' })
      }
      url.pathname = url.pathname.replace(/\/+$/, '')
      return url
    })

/** A maker URL: its path is the base path of every endpoint. */
const makerUrlSchema = urlSchema({ protocols: ['http:', 'https:'], what: 'an http(s) URL', credentialsHint: 'use auth for them' })

/** Where the maker's WebSocket stream is: its path is signed at the handshake. */
const streamUrlSchema = urlSchema({ protocols: ['ws:', 'wss:'], what: 'a ws(s) URL', credentialsHint: 'use auth for them' })

/**
 * A maker as `startSandbox({ makers })` and `POST /_sandbox/makers` take it. `websocket`: `true` for the stream at
 * `<url>/ws` (where `deltaflow maker` serves it), a ws(s) URL for a stream elsewhere, absent or `false` for none; the
 * interface document leaves the stream's address to onboarding.
 */
export const makerRegistrationSchema = z
  .strictObject({
    name: z.string({ error: (issue) => `expected a name, ${received(issue.input)}` }).regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, {
      error: (issue) => `expected 1 to 64 letters, digits, '.', '_' or '-', ${received(issue.input)}`,
    }),
    chainId: z
      .number({ error: (issue) => `expected a chain id, ${received(issue.input)}` })
      .int()
      .positive(),
    url: makerUrlSchema,
    auth: z
      .strictObject(
        { domain: credentialText('domain'), accessKey: credentialText('access key'), secret: credentialText('secret') },
        {
          error: (issue) =>
            `expected { domain, accessKey, secret }, ${received(issue.input === undefined ? undefined : typeof issue.input)}`,
        },
      )
      .optional(),
    websocket: z
      .union([z.boolean(), z.string()], { error: (issue) => `expected true, false or a ws(s) URL, ${received(issue.input)}` })
      .transform((value, context) => {
        if (typeof value === 'boolean') return value
        const url = streamUrlSchema.safeParse(value)
        if (url.success) return url.data
        for (const issue of url.error.issues) context.addIssue({ code: 'custom', message: issue.message })
        return z.NEVER
      })
      .optional(),
  })
  .transform(({ websocket, ...registration }) => ({
    ...registration,
    /** The stream's URL, or undefined when the maker is only polled. */
    websocket: websocket === true ? streamUrlOf(registration.url) : websocket === false ? undefined : websocket,
  }))

export type MakerRegistration = z.output<typeof makerRegistrationSchema>
export type MakerRegistrationInput = z.input<typeof makerRegistrationSchema>

/** `<base URL>/ws` with the matching ws(s) scheme. */
function streamUrlOf(baseUrl: URL): URL {
  const url = new URL(baseUrl)
  url.protocol = baseUrl.protocol === 'https:' ? 'wss:' : 'ws:'
  url.pathname = `${baseUrl.pathname}/ws`
  return url
}

/** The URL as shown (origin and path): never credentials. */
export function displayMakerUrl(url: URL): string {
  return `${url.origin}${url.pathname}`
}
