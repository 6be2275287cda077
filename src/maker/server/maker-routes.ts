import type { FastifyInstance, FastifyReply } from 'fastify'
import type { Logger } from '../../log/logger.js'
import type { MakerBook } from '../maker-book.js'
import { answerFirm, type FirmContext } from './answer-firm.js'
import { sendError } from './json-errors.js'
import type { MakerStream } from './maker-stream.js'
import { createWireBodies } from './wire-bodies.js'

// The endpoints of one chain under its base path (section 4 of the maker document). Authentication, the IP
// allowlist and the refusal of query strings run before these, in the server's hooks.

export type RegisterChainRoutesParameters = {
  basePath: string
  book: MakerBook
  firm: FirmContext
  /** Absent: no WebSocket endpoint. */
  stream?: MakerStream | undefined
  logger?: Logger | undefined
}

/** Registers the chain's routes; returns path → methods, for telling a wrong method from an unknown path. */
export function registerChainRoutes(
  app: FastifyInstance,
  { basePath, book, firm, stream, logger }: RegisterChainRoutesParameters,
): Map<string, string[]> {
  const { chainId } = firm
  const bodies = createWireBodies()
  const sendJson = (reply: FastifyReply, body: string) => reply.type('application/json; charset=utf-8').send(body)
  const routes = new Map<string, string[]>()
  const get = (path: string, body: (reply: FastifyReply) => FastifyReply) => {
    routes.set(`${basePath}${path}`, ['GET'])
    app.get(`${basePath}${path}`, (_request, reply) => body(reply))
  }

  get('/tokens', (reply) => sendJson(reply, bodies.tokens(book.snapshot(chainId))))
  get('/pairs', (reply) => sendJson(reply, bodies.pairs(book.snapshot(chainId))))
  get('/blacklist', (reply) => sendJson(reply, bodies.blacklist(book.snapshot(chainId))))
  get('/prices', (reply) => {
    const snapshot = book.snapshot(chainId)
    // Failing /prices is the maker's off switch: the service disables a maker whose /prices fails.
    if (snapshot.offReason !== undefined) return sendError(reply, 503, `maker is off: ${snapshot.offReason}`)
    return sendJson(reply, bodies.prices(snapshot))
  })

  routes.set(`${basePath}/firm`, ['POST'])
  app.post(`${basePath}/firm`, async (request, reply) => {
    const answer = await answerFirm(firm, Buffer.isBuffer(request.body) ? request.body : undefined)
    if ('body' in answer) return sendJson(reply.code(answer.status), answer.body)
    if (answer.failure !== undefined) logger?.error({ err: answer.failure, chainId }, 'maker firm quote failed')
    return sendError(reply, answer.status, answer.error)
  })

  if (stream !== undefined) {
    const path = `${basePath}/ws`
    routes.set(path, ['GET'])
    app.route({
      method: 'GET',
      url: path,
      handler: (_request, reply) =>
        sendError(reply, 426, `${path} is a WebSocket endpoint: send a WebSocket handshake (Upgrade: websocket)`),
      wsHandler: (socket) => stream.attach(chainId, socket),
    })
  }
  return routes
}
