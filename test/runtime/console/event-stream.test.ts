import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { connect } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { openJournal } from '../../../src/journal/journal.js'
import { createEventStream } from '../../../src/runtime/console/event-stream.js'
import { systemClock } from '../../../src/time/clock.js'
import { createTempDirectory } from '../../helpers/temp-directory.js'
import { createCapturedLogger } from './captured-logger.js'
import { openEventStream } from './sse-reader.js'

const directory = createTempDirectory('deltaflow-event-stream-')
afterAll(() => directory.cleanup())

describe('createEventStream', () => {
  it('drops a client that reads nothing once its unsent output passes the bound, while the others keep receiving', async () => {
    const journal = openJournal({ file: directory.path('events.sqlite'), clock: systemClock })
    const { logger, lines: warnings } = createCapturedLogger('warn')
    const stream = createEventStream({ journal, logger, pollMs: 20, maxBufferedBytes: 64 * 1024 })
    const server = createServer((request, response) => {
      void stream.attach(response, request.url?.includes('from=0') ? 0 : undefined)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    try {
      // A client that sends its request, then never reads a byte.
      const stalled = connect(port, '127.0.0.1')
      stalled.write(`GET /events HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n\r\n`)
      stalled.pause()
      const reader = await openEventStream(`http://127.0.0.1:${port}/events?from=0`)
      const deadline = Date.now() + 10_000
      while (stream.clientCount() < 2) {
        if (Date.now() > deadline) throw new Error('both clients did not join')
        await new Promise((resolve) => setTimeout(resolve, 20))
      }

      const padding = 'x'.repeat(4_000)
      let written = 0
      while (!warnings.some((line) => line.includes('event stream client dropped'))) {
        if (Date.now() > deadline + 20_000) throw new Error(`the stalled client was not dropped after ${written} events`)
        for (let index = 0; index < 200; index++) journal.recordStrategyEvent('busy', { type: 'error', index: written++, padding })
        await new Promise((resolve) => setTimeout(resolve, 30))
      }
      expect(stream.clientCount()).toBe(1)
      const dropped = JSON.parse(warnings.find((line) => line.includes('event stream client dropped')) ?? '{}') as { buffered: number }
      // Bounded: at most one page of events beyond the limit was ever queued for it.
      expect(dropped.buffered).toBeLessThan(64 * 1024 + 500 * 4_200)

      const last = journal.lastConsoleEventId()
      await reader.waitFor((event) => Number(event.id) === last, 'the last event')
      expect(reader.events.map((event) => Number(event.id))).toEqual(Array.from({ length: last }, (_, index) => index + 1))
      await reader.close()
      stalled.destroy()
    } finally {
      stream.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      journal.close()
    }
  }, 60_000)
})
