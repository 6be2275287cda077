import { connect } from 'node:net'

export type RawExchange = {
  /** Why a write failed (the server reset the connection before the client finished sending), or undefined. */
  writeError: string | undefined
  /** Everything the server sent, as latin1 text. */
  text: string
  /** Whether the server closed the connection before `guardMs`. */
  closed: boolean
}

/**
 * Plays a simple HTTP/1.1 client over a raw connection: writes every part, and only once all are written reads what
 * the server sends until it closes the connection, or `guardMs` passes (so a server that never answers fails a test
 * instead of hanging it). A write that fails ends the exchange, as it would for such a client.
 */
export function exchangeRaw(url: string, parts: readonly (string | Buffer)[], { guardMs }: { guardMs: number }): Promise<RawExchange> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let writeError: string | undefined
    const socket = connect(Number(port), hostname)
    const finish = (closed: boolean) => {
      clearTimeout(guard)
      socket.destroy()
      resolve({ writeError, text: Buffer.concat(chunks).toString('latin1'), closed })
    }
    const guard = setTimeout(() => finish(false), guardMs)
    socket.on('error', (error: NodeJS.ErrnoException) => {
      writeError ??= error.code ?? error.message
    })
    socket.on('close', () => finish(true))
    for (const part of parts.slice(0, -1)) socket.write(part)
    socket.write(parts.at(-1) ?? '', (error) => {
      if (error) {
        writeError ??= (error as NodeJS.ErrnoException).code ?? error.message
        finish(true)
        return
      }
      socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    })
  })
}

export type RawAnswer = { status: number; headers: Record<string, string>; json: unknown }

/** Splits the text of one or more HTTP/1.1 answers with a Content-Length each; JSON bodies are parsed. */
export function parseRawAnswers(text: string): RawAnswer[] {
  const answers: RawAnswer[] = []
  let rest = text
  while (rest.length > 0) {
    const headEnd = rest.indexOf('\r\n\r\n')
    if (headEnd === -1) throw new Error(`incomplete HTTP answer: ${JSON.stringify(rest.slice(0, 200))}`)
    const [statusLine = '', ...headerLines] = rest.slice(0, headEnd).split('\r\n')
    const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1])
    const headers = Object.fromEntries(
      headerLines.map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    )
    const length = Number(headers['content-length'] ?? 0)
    const body = rest.slice(headEnd + 4, headEnd + 4 + length)
    answers.push({ status, headers, json: body === '' ? undefined : JSON.parse(body) })
    rest = rest.slice(headEnd + 4 + length)
  }
  return answers
}
