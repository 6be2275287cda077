import { Writable } from 'node:stream'
import { createLogger, type Logger } from '../../../src/log/logger.js'

/** A real deltaflow logger whose JSON lines are kept in `lines` (to find a message, or prove a secret is absent). */
export function createCapturedLogger(level: string): { logger: Logger; lines: string[] } {
  const lines: string[] = []
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk))
      done()
    },
  })
  return { logger: createLogger({ level, destination }), lines }
}
