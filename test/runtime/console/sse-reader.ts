/** One Server-Sent Event as received: its id, event name and data (comments are counted apart). */
export type ReceivedEvent = { id: string | undefined; event: string; data: string }

/**
 * A small SSE client over fetch: reads the stream as it comes, keeps every event, and lets a test wait for one.
 * Closing aborts the request (a client disconnecting).
 */
export async function openEventStream(url: string, headers: Record<string, string> = {}) {
  const controller = new AbortController()
  const response = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal })
  const events: ReceivedEvent[] = []
  let comments = 0
  let ended = false
  const waiters = new Set<() => void>()
  const wake = () => {
    for (const waiter of waiters) waiter()
  }
  const reading = (async () => {
    if (!response.body) return
    const decoder = new TextDecoder()
    let buffer = ''
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true })
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const frame = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const fields = { id: undefined as string | undefined, event: 'message', data: [] as string[] }
          let onlyComments = true
          for (const line of frame.split('\n')) {
            if (line.startsWith(':')) continue
            onlyComments = false
            const colon = line.indexOf(':')
            const name = colon < 0 ? line : line.slice(0, colon)
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
            if (name === 'id') fields.id = value
            else if (name === 'event') fields.event = value
            else if (name === 'data') fields.data.push(value)
          }
          if (onlyComments) comments += 1
          else if (fields.data.length > 0) events.push({ id: fields.id, event: fields.event, data: fields.data.join('\n') })
        }
        wake()
      }
    } catch {
      // aborted by close()
    } finally {
      ended = true
      wake()
    }
  })()

  return {
    response,
    events,
    comments: () => comments,
    /** Resolves with the first event (from the start) that `accept` takes, or fails after `timeoutMs`. */
    waitFor: async (accept: (event: ReceivedEvent) => boolean, what: string, timeoutMs = 15_000): Promise<ReceivedEvent> => {
      const deadline = Date.now() + timeoutMs
      for (;;) {
        const found = events.find(accept)
        if (found) return found
        if (ended) throw new Error(`the event stream ended before ${what}`)
        if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms (${events.length} events received)`)
        await new Promise<void>((resolve) => {
          const waiter = () => {
            waiters.delete(waiter)
            clearTimeout(timer)
            resolve()
          }
          const timer = setTimeout(waiter, 200)
          waiters.add(waiter)
        })
      }
    },
    close: async () => {
      controller.abort()
      await reading
    },
  }
}
