import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import fastifyWebsocket from '@fastify/websocket'
import Fastify from 'fastify'
import type { Address } from 'viem'
import type { SigningAccount } from '../../chain/sign-token-permit.js'
import type { Logger } from '../../log/logger.js'
import type { MakerCredentials } from '../../protocol/maker-auth.js'
import type { FirmOrder, FirmRequest } from '../../protocol/maker-wire.js'
import type { Clock } from '../../time/clock.js'
import type { MakerBook } from '../maker-book.js'
import type { FirmQuoteRecord } from './answer-firm.js'
import { createIpAllowlist } from './ip-allowlist.js'
import { answerClientError, answerFrameworkError, installJsonErrors, pathOf, sendError } from './json-errors.js'
import { registerChainRoutes } from './maker-routes.js'
import { createMakerStream } from './maker-stream.js'
import { createRfqOrderDigest } from './rfq-order-digest.js'
import { createMakerAuthVerifier } from './verify-maker-auth.js'

export type { FirmQuoteRecord } from './answer-firm.js'

export type MakerServerChain = {
  chainId: number
  /** Path prefix of the chain's base URL, e.g. `/maker/1`; '' is allowed when one chain is served. */
  basePath: string
  /** The RFQ contract of the chain (the EIP-712 verifying contract of firm orders). */
  rfq: Address
}

export type StartMakerServerParameters = {
  book: MakerBook
  chains: readonly MakerServerChain[]
  /** The maker's key: it holds the funds and signs firm orders. */
  account: SigningAccount
  /** Firm expiry counts on it: the chains' time (in paper mode, the sandbox's scaled clock). */
  clock: Clock
  /**
   * The authentication window counts on it: the wall clock, which the service stamps its requests with. Defaults to
   * `clock` (the same on a real chain; a sandbox running faster than real time needs the system clock here).
   */
  authClock?: Clock | undefined
  /** Absent: no authentication. */
  auth?: { credentials: readonly MakerCredentials[]; toleranceMs?: number | undefined } | undefined
  /** Exact source IPs allowed (v4/v6, `::ffff:`-mapped handled); absent: any. */
  allowIps?: readonly string[] | undefined
  /** Default 127.0.0.1. */
  host?: string | undefined
  /** 0 (default) picks a free port. */
  port?: number | undefined
  /** Default 16,384. */
  bodyLimitBytes?: number | undefined
  /** Default 10,000. */
  requestTimeoutMs?: number | undefined
  /** Default 180; at least 120 (the document asks for two minutes). */
  firmExpirySeconds?: number | undefined
  /** Default true: GET {basePath}/ws. */
  websocket?: boolean | undefined
  /** Called with every signed firm order before it is sent; if it throws, the request fails with 500 and no order leaves. */
  recordFirmQuote?: ((record: FirmQuoteRecord) => void) | undefined
  /** Checks a firm request beyond the grid (e.g. inventory); a string refuses it with 400 and that error. */
  checkFirm?: ((request: FirmRequest, order: FirmOrder) => string | undefined) | undefined
  /** Never receives credentials or signatures. */
  logger?: Logger | undefined
  /** The 96-bit random part of nonceAndMeta; default crypto-random. */
  random?: (() => bigint) | undefined
}

export type MakerServer = {
  /** Origin, e.g. http://127.0.0.1:PORT. */
  url: string
  /** Each chain's base URL (origin + base path). */
  endpoints: { chainId: number; url: string }[]
  maker: Address
  /** Disconnects every WebSocket and refuses new ones and all requests with 503 `maker stopped`. */
  halt(reason: string): void
  close(): Promise<void>
}

const randomNonce = () => BigInt(`0x${randomBytes(12).toString('hex')}`)

/**
 * Serves the market-maker interface (the maker document) for each chain under its base path: GET /tokens, /pairs,
 * /prices, /blacklist, POST /firm and the WebSocket GET /ws, from `book`. Every answer is JSON. When `auth` is set,
 * each request (and each WebSocket handshake) must carry the four X-AUTH headers.
 */
export async function startMakerServer(parameters: StartMakerServerParameters): Promise<MakerServer> {
  const { book, chains, account, clock, auth, allowIps, logger, recordFirmQuote, checkFirm } = parameters
  const authClock = parameters.authClock ?? clock
  const host = parameters.host ?? '127.0.0.1'
  const bodyLimitBytes = parameters.bodyLimitBytes ?? 16_384
  const requestTimeoutMs = parameters.requestTimeoutMs ?? 10_000
  const firmExpirySeconds = parameters.firmExpirySeconds ?? 180
  const random = parameters.random ?? randomNonce
  checkChains(book, chains)
  if (!Number.isInteger(firmExpirySeconds) || firmExpirySeconds < 120) {
    throw new RangeError(`maker server: firmExpirySeconds must be an integer of at least 120, received ${firmExpirySeconds}`)
  }
  const log = logger?.child({ unit: 'maker-server' })
  const verifyAuth = auth === undefined ? undefined : createMakerAuthVerifier(auth)
  const isAllowed = allowIps === undefined ? undefined : createIpAllowlist(allowIps)
  let haltReason: string | undefined

  const app = Fastify({
    logger: false,
    bodyLimit: bodyLimitBytes,
    forceCloseConnections: true,
    exposeHeadRoutes: false,
    return503OnClosing: true,
    serverFactory: (handler) =>
      createServer(
        {
          requestTimeout: requestTimeoutMs,
          headersTimeout: requestTimeoutMs,
          keepAliveTimeout: 5_000,
          // node finds expired requests only when it checks: every quarter of the timeout, a slow request has its 408
          // within 1.25 × the timeout, well before a silent socket is dropped (twice the timeout), even on a busy machine.
          connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(requestTimeoutMs / 4))),
        },
        handler,
        // A silent socket is dropped after twice the request timeout, which answers a slow request with 408 first.
      ).setTimeout(2 * requestTimeoutMs),
    clientErrorHandler: answerClientError,
    frameworkErrors: answerFrameworkError,
  })
  // The signature covers the body bytes as sent: the body stays raw until authentication passed.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))

  const stream = parameters.websocket === false ? undefined : createMakerStream({ book, logger: log })
  // Before the hooks below: the plugin's own hooks must see a handshake refused by them, to close its socket.
  if (stream !== undefined) await app.register(fastifyWebsocket, { options: { maxPayload: 4_096 } })
  app.addHook('onRequest', async (request, reply) => {
    if (haltReason !== undefined) return sendError(reply, 503, 'maker stopped', { reason: haltReason })
    if (isAllowed !== undefined && !isAllowed(request.raw.socket.remoteAddress)) {
      log?.debug({ ip: request.raw.socket.remoteAddress }, 'maker request refused: source address not allowed')
      return sendError(reply, 403, `source address ${request.raw.socket.remoteAddress ?? 'unknown'} is not allowed`)
    }
  })
  app.addHook('preValidation', async (request, reply) => {
    const url = request.raw.url ?? '/'
    const path = pathOf(url)
    const query = url.slice(path.length)
    if (verifyAuth !== undefined) {
      const verdict = verifyAuth({
        headers: request.raw.headersDistinct,
        method: request.method,
        path,
        query,
        body: Buffer.isBuffer(request.body) ? request.body : undefined,
        nowMs: authClock.now(),
      })
      if (!verdict.ok) {
        log?.debug({ reason: verdict.code, ip: request.raw.socket.remoteAddress, method: request.method, path }, 'maker request refused')
        return sendError(reply, verdict.status, verdict.error)
      }
    }
    // The interface has no query parameters; the query was still part of what was signed.
    if (query !== '') {
      return sendError(reply, 400, `query parameters are not part of the maker interface: send ${request.method} ${path} without "?…"`)
    }
  })

  const routes = new Map<string, string[]>()
  for (const chain of chains) {
    const orderDigest = createRfqOrderDigest({ chainId: chain.chainId, verifyingContract: chain.rfq })
    const firm = {
      book,
      chainId: chain.chainId,
      rfq: chain.rfq,
      account,
      clock,
      firmExpirySeconds,
      random,
      orderDigest,
      recordFirmQuote,
      checkFirm,
    }
    for (const [path, methods] of registerChainRoutes(app, { basePath: chain.basePath, book, firm, stream, logger: log })) {
      routes.set(path, methods)
    }
  }
  installJsonErrors(app, { bodyLimitBytes, routes, logger: log })

  const origin = await app.listen({ host, port: parameters.port ?? 0 })
  log?.info({ url: origin, chains: chains.map((chain) => chain.chainId), auth: auth !== undefined }, 'maker server listening')
  return {
    url: origin,
    endpoints: chains.map((chain) => ({ chainId: chain.chainId, url: `${origin}${chain.basePath}` })),
    maker: account.address,
    halt(reason) {
      if (haltReason !== undefined) return
      haltReason = reason
      log?.info({ reason }, 'maker server halted')
      stream?.closeAll(`maker stopped: ${reason}`)
    },
    async close() {
      stream?.stop()
      await app.close()
    },
  }
}

function checkChains(book: MakerBook, chains: readonly MakerServerChain[]): void {
  if (chains.length === 0) throw new RangeError('maker server: no chain to serve')
  const paths = new Set<string>()
  for (const { chainId, basePath } of chains) {
    book.snapshot(chainId)
    if (basePath === '' ? chains.length > 1 : !/^(\/[A-Za-z0-9._~-]+)+$/.test(basePath)) {
      throw new RangeError(
        `maker server: base path ${JSON.stringify(basePath)} of chain ${chainId} must look like /maker/${chainId} ('' only when one chain is served)`,
      )
    }
    if (paths.has(basePath)) throw new RangeError(`maker server: base path ${JSON.stringify(basePath)} is used twice`)
    paths.add(basePath)
  }
}
