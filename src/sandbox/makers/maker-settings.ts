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
}

const received = (input: unknown) => `received ${JSON.stringify(input) ?? String(input)}`

const credentialText = (field: string) =>
  z
    .string({ error: (issue) => `expected the ${field} string, ${received(issue.input)}` })
    .min(1, { error: `expected a non-empty ${field}` })
    .max(1_000)

/** A maker URL: http(s), no credentials, query or fragment; its path is the base path of every endpoint. */
const makerUrlSchema = z
  .string({ error: (issue) => `expected an http(s) URL, ${received(issue.input)}` })
  .max(2_000)
  .transform((value, context) => {
    let url: URL
    try {
      url = new URL(value)
    } catch {
      context.addIssue({ code: 'custom', message: `expected an http(s) URL, ${received(value)}` })
      return z.NEVER
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      context.addIssue({ code: 'custom', message: `expected an http or https URL, received protocol ${url.protocol}` })
    }
    if (url.username || url.password) {
      context.addIssue({ code: 'custom', message: 'expected a URL without credentials (use auth for them)' })
    }
    if (url.search || url.hash) {
      context.addIssue({ code: 'custom', message: 'expected a URL without query or fragment (maker requests carry none)' })
    }
    url.pathname = url.pathname.replace(/\/+$/, '')
    return url
  })

/** A maker as `startSandbox({ makers })` and `POST /_sandbox/makers` take it. */
export const makerRegistrationSchema = z.strictObject({
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
        error: (issue) => `expected { domain, accessKey, secret }, ${received(issue.input === undefined ? undefined : typeof issue.input)}`,
      },
    )
    .optional(),
})

export type MakerRegistration = z.output<typeof makerRegistrationSchema>
export type MakerRegistrationInput = z.input<typeof makerRegistrationSchema>

/** The URL as shown (origin and path): never credentials. */
export function displayMakerUrl(url: URL): string {
  return `${url.origin}${url.pathname}`
}
