import type { ServerResponse } from 'node:http'
import type { Journal } from '../../journal/journal.js'
import type { Logger } from '../../log/logger.js'
import { consoleEventOf } from './console-event.js'

export type CreateEventStreamParameters = {
  journal: Pick<Journal, 'consoleEventsAfter' | 'lastConsoleEventId' | 'getOperatorActionById'>
  logger: Logger
  /** Real ms between reads of the journal for new events. */
  pollMs?: number | undefined
  /** Real ms between heartbeat comments (proxies close idle streams). */
  heartbeatMs?: number
  /** A client whose unsent answer grows past this is dropped (it reconnects with Last-Event-ID and loses nothing). */
  maxBufferedBytes?: number
  /** Run before each read (the strategy watch journals what it saw). */
  beforePoll?: () => void
}

type Client = { raw: ServerResponse; open: boolean }

const pageSize = 500

/**
 * GET /api/events: Server-Sent Events read from the journal's console_events sequence. One poll of the journal feeds
 * every client; a new client first gets, from the journal, what followed its Last-Event-ID up to where the poll is,
 * then joins the live ones, so nothing is lost or repeated across a reconnect. No Last-Event-ID: live events only.
 * A slow client never holds the bot: once its unsent output passes `maxBufferedBytes` it gets a `dropped` event and
 * its connection ends.
 */
export function createEventStream({
  journal,
  logger,
  pollMs = 250,
  heartbeatMs = 15_000,
  maxBufferedBytes = 1 << 20,
  beforePoll,
}: CreateEventStreamParameters) {
  let cursor = journal.lastConsoleEventId()
  /** Caught up, fed by the poll. */
  const clients = new Set<Client>()
  /** Every open stream, those still catching up included. */
  const connected = new Set<Client>()
  const framesAfter = (after: number, upTo: number): { frames: string; last: number } | undefined => {
    const rows = journal.consoleEventsAfter({ after, upTo, limit: pageSize })
    const last = rows.at(-1)
    if (!last) return undefined
    const frames = rows
      .map((row) => {
        const event = consoleEventOf(row, journal.getOperatorActionById)
        return `id: ${event.id}\nevent: ${event.kind}\ndata: ${JSON.stringify(event)}\n\n`
      })
      .join('')
    return { frames, last: last.id }
  }

  function drop(client: Client, reason: string): void {
    if (!client.open) return
    client.open = false
    clients.delete(client)
    logger.warn({ reason, buffered: client.raw.writableLength }, 'event stream client dropped')
    client.raw.end(`event: dropped\ndata: ${JSON.stringify({ reason })}\n\n`)
    // A client that reads nothing never takes the end either.
    setTimeout(() => client.raw.destroy(), 1_000).unref()
  }

  function send(client: Client, text: string): void {
    if (!client.open) return
    if (client.raw.writableLength > maxBufferedBytes) {
      drop(client, `the client reads too slowly (over ${maxBufferedBytes} bytes unsent); reconnect with Last-Event-ID`)
      return
    }
    client.raw.write(text)
  }

  function poll(): void {
    try {
      beforePoll?.()
      for (;;) {
        const page = framesAfter(cursor, Number.MAX_SAFE_INTEGER)
        if (!page) return
        cursor = page.last
        for (const client of clients) send(client, page.frames)
      }
    } catch (error) {
      logger.error({ err: error }, 'reading console events from the journal failed')
    }
  }

  const timers = [
    setInterval(poll, pollMs),
    setInterval(() => {
      for (const client of clients) send(client, ': heartbeat\n\n')
    }, heartbeatMs),
  ]

  /** Serves one client on a response nobody else writes to (a hijacked reply). */
  async function attach(raw: ServerResponse, lastEventId: number | undefined): Promise<void> {
    const client: Client = { raw, open: true }
    connected.add(client)
    raw.once('close', () => {
      client.open = false
      clients.delete(client)
      connected.delete(client)
    })
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    })
    raw.write('retry: 1000\n\n')
    let after = Math.min(lastEventId ?? cursor, cursor)
    while (client.open) {
      const page = framesAfter(after, cursor)
      if (!page) {
        // Caught up with the poll: from here on, the poll sends it what follows.
        clients.add(client)
        return
      }
      after = page.last
      send(client, page.frames)
      if (client.open && raw.writableLength > maxBufferedBytes / 2) {
        await new Promise<void>((resolve) => {
          raw.once('drain', resolve)
          raw.once('close', resolve)
        })
      }
    }
  }

  return {
    attach,
    clientCount: () => clients.size,
    /** Ends every stream and stops polling. */
    close: (): void => {
      for (const timer of timers) clearInterval(timer)
      for (const client of connected) {
        client.open = false
        client.raw.end()
      }
      clients.clear()
      connected.clear()
    },
  }
}
