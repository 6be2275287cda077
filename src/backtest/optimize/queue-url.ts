import { BaseError } from '../../errors/base.js'

// The Redis behind `--queue`: parsed once, at the command line, into what ioredis needs and a name that is safe to
// print. The URL's user and password never reach a message or a log line; `display` is what they show.

/** Where the trial queue lives: ioredis options (credentials included) and the URL without them, for messages. */
export type QueueAddress = {
  /** `redis://host:port` (or `rediss://…`, `/db` when not 0): no user, no password. */
  display: string
  redis: {
    host: string
    port: number
    db: number
    username?: string
    password?: string
    /** rediss://: TLS, the host name checked against the server's certificate. */
    tls?: { servername: string }
  }
}

/** A `--queue` value that is not a redis:// or rediss:// URL. Operational: fix the flag. */
export class QueueUrlError extends BaseError {
  override name = 'QueueUrlError' as const
  constructor(received: string, reason: string) {
    super(
      `--queue: expected a redis:// or rediss:// URL such as redis://127.0.0.1:6379, received "${withoutPassword(received)}": ${reason}`,
      {
        hint: 'give the Redis the trials go through: redis://[user:password@]host[:port][/db], or rediss:// for TLS',
        errorClass: 'operational',
      },
    )
  }
}

/**
 * Parses `redis://[user:password@]host[:port][/db]` or `rediss://…` (TLS); the port defaults to 6379, the database to 0.
 * Throws QueueUrlError naming what is wrong (the password masked).
 *
 * @example
 * parseQueueUrl('redis://:s3cret@10.0.0.5:6380/2').display // 'redis://10.0.0.5:6380/2'
 */
export function parseQueueUrl(text: string): QueueAddress {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new QueueUrlError(text, 'not a URL')
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new QueueUrlError(text, `the scheme is ${url.protocol.slice(0, -1)}:, not redis: or rediss:`)
  }
  // WHATWG URLs keep the brackets of an IPv6 host; ioredis wants the address alone.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
  if (host === '') throw new QueueUrlError(text, 'no host')
  const port = url.port === '' ? 6379 : Number(url.port)
  if (!Number.isSafeInteger(port) || port < 1 || port > 65_535) throw new QueueUrlError(text, `port ${url.port} is not 1–65535`)
  const path = url.pathname.replace(/^\//, '')
  if (!/^\d*$/.test(path)) throw new QueueUrlError(text, `the path "/${path}" is not a database number`)
  if (url.search !== '' || url.hash !== '') throw new QueueUrlError(text, 'options after ? or # are not supported')
  const db = path === '' ? 0 : Number(path)
  const username = decodeURIComponent(url.username)
  const password = decodeURIComponent(url.password)
  const display = `${url.protocol}//${url.host}${db === 0 ? '' : `/${db}`}`
  return {
    display,
    redis: {
      host,
      port,
      db,
      ...(username === '' ? {} : { username }),
      ...(password === '' ? {} : { password }),
      ...(url.protocol === 'rediss:' ? { tls: { servername: host } } : {}),
    },
  }
}

/** `text` with whatever stands before an `@` masked: a malformed URL may still carry a password. */
function withoutPassword(text: string): string {
  return text.replace(/[^\s/@]*@/g, '***@')
}
