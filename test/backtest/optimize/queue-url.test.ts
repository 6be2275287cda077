import { describe, expect, it } from 'vitest'
import { parseQueueUrl, QueueUrlError } from '../../../src/backtest/optimize/queue-url.js'

describe('parseQueueUrl', () => {
  it('reads host, port, database, credentials and TLS; the display drops the credentials', () => {
    expect(parseQueueUrl('redis://127.0.0.1')).toEqual({ display: 'redis://127.0.0.1', redis: { host: '127.0.0.1', port: 6379, db: 0 } })
    expect(parseQueueUrl('rediss://bob:p%40ss@queue.example:6380/3')).toEqual({
      display: 'rediss://queue.example:6380/3',
      redis: { host: 'queue.example', port: 6380, db: 3, username: 'bob', password: 'p@ss', tls: { servername: 'queue.example' } },
    })
    expect(parseQueueUrl('redis://:secret@[::1]:7000').redis).toEqual({ host: '::1', port: 7000, db: 0, password: 'secret' })
  })

  it('refuses what is not a redis:// or rediss:// URL, saying why, the password masked', () => {
    const cases: [string, RegExp][] = [
      ['http://user:secret@host:6379', /received "http:\/\/\*\*\*@host:6379": the scheme is http:/],
      ['localhost:6379', /the scheme is localhost:/],
      ['host:secret@6379', /received "\*\*\*@6379"/],
      ['redis://host/not-a-db', /the path "\/not-a-db" is not a database number/],
      ['redis://host:6379?db=2', /options after \? or # are not supported/],
      ['redis://u:secret@host:99999', /received "redis:\/\/\*\*\*@host:99999": not a URL/],
      ['', /not a URL/],
    ]
    for (const [text, message] of cases) {
      expect(() => parseQueueUrl(text), text).toThrow(QueueUrlError)
      expect(() => parseQueueUrl(text), text).toThrow(message)
      expect(() => parseQueueUrl(text), text).not.toThrow(/secret/)
    }
  })
})
