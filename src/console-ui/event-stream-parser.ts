/** One message of a text/event-stream: its type (`event:`, default "message"), its `data:` lines joined, its `id:`. */
export type StreamMessage = { event: string; data: string; id: string | undefined }

/**
 * Parses a text/event-stream as it arrives, chunk by chunk: lines end in CRLF, LF or CR; a line starting with ":" is a
 * comment; an empty line ends a message. `retry:` (digits only) changes the reconnection delay. An `id:` counts once
 * its message is complete (a message cut short by the connection is asked for again), even a message without data.
 */
export function createStreamParser(onMessage: (message: StreamMessage) => void, onRetry: (ms: number) => void) {
  let buffer = ''
  let event = ''
  let data: string[] = []
  let lastId: string | undefined
  /** The `id:` of the message being read. */
  let id: string | undefined

  function line(text: string): void {
    if (text === '') {
      lastId = id
      if (data.length > 0) onMessage({ event: event || 'message', data: data.join('\n'), id: lastId })
      event = ''
      data = []
      return
    }
    if (text.startsWith(':')) return
    const colon = text.indexOf(':')
    const field = colon === -1 ? text : text.slice(0, colon)
    const value = colon === -1 ? '' : text.slice(colon + (text[colon + 1] === ' ' ? 2 : 1))
    if (field === 'event') event = value
    else if (field === 'data') data.push(value)
    else if (field === 'id' && !value.includes('\0')) id = value
    else if (field === 'retry' && /^\d+$/.test(value)) onRetry(Number(value))
  }

  return {
    push(chunk: string): void {
      buffer += chunk
      let start = 0
      for (;;) {
        const end = buffer.slice(start).search(/[\r\n]/)
        if (end === -1) break
        const at = start + end
        // A CR at the end of the chunk may be the first half of a CRLF: wait for the next one.
        if (buffer[at] === '\r' && at === buffer.length - 1) break
        line(buffer.slice(start, at))
        start = at + (buffer[at] === '\r' && buffer[at + 1] === '\n' ? 2 : 1)
      }
      buffer = buffer.slice(start)
    },
    /** Forgets a half-received message (the connection ended); the last complete one's id is kept for the reconnect. */
    reset(): void {
      buffer = ''
      id = lastId
      event = ''
      data = []
    },
    lastId: (): string | undefined => lastId,
  }
}
