import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { readBody } from '../../helpers/fault-proxy.js'

/** A request a receiver took: its path, headers and JSON body. */
export type ReceivedRequest = { method: string; path: string; contentType: string | undefined; body: unknown }

export type ReceiverAnswer = { status: number; headers?: Record<string, string>; body?: unknown }

/**
 * An HTTP receiver on loopback standing for Slack, Discord, any webhook and the Telegram Bot API: it records every
 * request, and answers what `answer` says (default 200 `{ ok: true }`); `hold` makes it never answer.
 */
export async function startReceiver() {
  const requests: ReceivedRequest[] = []
  let answer: (request: ReceivedRequest) => ReceiverAnswer | 'hold' = () => ({ status: 200, body: { ok: true } })
  const held = new Set<() => void>()
  const server = createServer((incoming: IncomingMessage, response) => {
    void (async () => {
      const text = (await readBody(incoming)).toString()
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        body = text
      }
      const request = { method: incoming.method ?? '', path: incoming.url ?? '', contentType: incoming.headers['content-type'], body }
      const reply = answer(request)
      // A request not accepted (held or not 2xx) is recorded too: `accepted` tells which were delivered.
      requests.push(request)
      if (reply === 'hold') {
        held.add(() => response.destroy())
        return
      }
      const payload = JSON.stringify(reply.body ?? { ok: reply.status < 300 })
      response.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers })
      response.end(payload)
      if (reply.status >= 200 && reply.status < 300) accepted.push(request)
    })()
  })
  const accepted: ReceivedRequest[] = []
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    /** Every request, answered or not. */
    requests,
    /** The requests answered with a 2xx. */
    accepted,
    answerWith: (next: typeof answer) => {
      answer = next
    },
    close: async () => {
      for (const release of held) release()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>
