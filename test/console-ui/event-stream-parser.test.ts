import { describe, expect, it } from 'vitest'
import { createStreamParser, type StreamMessage } from '../../src/console-ui/event-stream-parser.js'

// The web console's Server-Sent Events parser (pure: the page feeds it what fetch reads), fed in awkward chunks.

function parse(chunks: readonly string[]) {
  const messages: StreamMessage[] = []
  const retries: number[] = []
  const parser = createStreamParser(
    (message) => messages.push(message),
    (ms) => retries.push(ms),
  )
  for (const chunk of chunks) parser.push(chunk)
  return { messages, retries, parser }
}

describe('the console page’s event-stream parser', () => {
  it('reads id, event and data, skips comments and takes retry', () => {
    const { messages, retries, parser } = parse([
      'retry: 1000\n\n: heartbeat\n\nid: 7\nevent: fill\ndata: {"a":1}\n\n',
      'id: 8\ndata:first\ndata: second\n\n',
    ])
    expect(retries).toEqual([1000])
    expect(messages).toEqual([
      { id: '7', event: 'fill', data: '{"a":1}' },
      { id: '8', event: 'message', data: 'first\nsecond' },
    ])
    expect(parser.lastId()).toBe('8')
  })

  it('gives the same messages however the bytes are split, CRLF and CR line ends included', () => {
    const text = 'id: 1\r\nevent: action\r\ndata: x\r\n\r\nid: 2\revent: intent\rdata: y\r\rid: 3\ndata: z\n\n'
    const whole = parse([text]).messages
    expect(whole.map((message) => message.id)).toEqual(['1', '2', '3'])
    for (let cut = 1; cut < text.length; cut++) {
      expect(parse([text.slice(0, cut), text.slice(cut)]).messages).toEqual(whole)
    }
    expect(parse([...text]).messages).toEqual(whole)
  })

  it('dispatches nothing for a message cut before its blank line and resumes after the last whole one; ignores a bad retry', () => {
    const { messages, retries, parser } = parse(['id: 4\ndata: a\n\nid: 5\nretry: soon\ndata: half'])
    expect(messages).toEqual([{ id: '4', event: 'message', data: 'a' }])
    expect(retries).toEqual([])
    expect(parser.lastId()).toBe('4')
    parser.reset()
    parser.push('\n\n')
    expect(messages).toHaveLength(1)
    expect(parser.lastId()).toBe('4')
    parser.push('id: 6\n\n')
    expect(parser.lastId()).toBe('6')
    expect(messages).toHaveLength(1)
  })
})
