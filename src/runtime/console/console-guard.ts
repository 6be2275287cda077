import type { FastifyRequest } from 'fastify'
import { type BearerVerdict, createBearerCheck } from './bearer-check.js'
import type { Caller, ConsoleRoute } from './console-route.js'
import type { ConsoleToken } from './console-token.js'
import { isCrossOrigin } from './cross-origin.js'
import { ConsoleRefusal } from './error-answer.js'
import { isLoopbackHost } from './loopback-host.js'

export type CreateConsoleGuardParameters = {
  token: ConsoleToken | undefined
  /** The console listens on a non-loopback address: every request needs the token. */
  tokenForReads: boolean
  /** 0 when an action may run, else the seconds to wait (createActionRateLimit). */
  takeAction: () => number
}

/**
 * Who may do what: on a loopback bind, every request names a loopback host; an action needs the token (none
 * configured: every action is refused), comes from no foreign web page, and fits the rate limit; a read needs the
 * token on a non-loopback bind, and a wrong token is refused anywhere.
 * The caller is named by the token's name (the setting that holds it), or "loopback" for a read without one.
 */
export function createConsoleGuard({ token, tokenForReads, takeAction }: CreateConsoleGuardParameters) {
  const check = token ? createBearerCheck(token.value) : undefined
  const unauthorized = (verdict: BearerVerdict) =>
    new ConsoleRefusal(
      401,
      {
        error:
          verdict === 'wrong' ? 'the bearer token is not the console token' : 'a bearer token is required (Authorization: Bearer <token>)',
      },
      { 'www-authenticate': 'Bearer realm="deltaflow"' },
    )

  /** Lets a request through when allowed; throws the refusal otherwise. */
  function admit(request: FastifyRequest, { action }: Pick<ConsoleRoute, 'action'>): Caller {
    const header = request.headers.authorization
    // On loopback the token guards actions only, so the host is checked instead: a re-pointed name is not this machine.
    if (!tokenForReads && !isLoopbackHost(request.headers.host)) {
      throw new ConsoleRefusal(403, { error: 'the console listens on loopback and answers only requests to a loopback host' })
    }
    if (action && isCrossOrigin(request.headers)) {
      throw new ConsoleRefusal(403, { error: 'cross-origin actions are refused' })
    }
    if (action && (!check || !token)) {
      throw new ConsoleRefusal(403, {
        error: 'actions need a console token: set ops.auth.tokenEnv (default DELTAFLOW_OPS_TOKEN) or ops.auth.tokenFile',
      })
    }
    let who = 'loopback'
    if (check && token && (action || tokenForReads || header !== undefined)) {
      const verdict = check(header)
      if (verdict !== 'valid') throw unauthorized(verdict)
      who = token.name
    }
    if (action) {
      const retryAfter = takeAction()
      if (retryAfter > 0) {
        throw new ConsoleRefusal(
          429,
          { error: `too many actions: the limit is ops.actionsPerMinute; try again in ${retryAfter} s` },
          { 'retry-after': String(retryAfter) },
        )
      }
    }
    return { who }
  }

  return admit
}
