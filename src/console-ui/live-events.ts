import type { z } from 'zod'
import { type ConsoleEvent, consoleEventSchema } from '../runtime/console/console-event.js'
import type { fillViewSchema } from '../runtime/console/order-answers.js'
import { consoleToken, readAuthorization, readRefused } from './api-client.js'
import { formatAmount, formatUnitsText } from './dom.js'
import { followStream } from './event-stream-reader.js'

/** A fill as GET /api/fills answers it (with its tokens), to name the amounts of its live event. */
type FillView = z.infer<typeof fillViewSchema>

const kinds: ReadonlySet<string> = new Set(['order-status', 'fill', 'refund', 'intent', 'strategy', 'action'])

/** `needs-token`: the API refused the stream (401); it waits for `restart()` once the page has the token. */
export type LiveState = 'connecting' | 'live' | 'reconnecting' | 'needs-token'

export type LiveEvents = {
  /** The latest events, newest first (at most 50). */
  recent: () => readonly ConsoleEvent[]
  state: () => LiveState
  /** Connects again at once, with the token the page now holds, resuming after the last event received. */
  restart: () => void
}

/**
 * Follows GET /api/events (a fetch-based reader: it sends the console token, which EventSource cannot), resuming with
 * Last-Event-ID after each reconnect. Each event is checked against the API's schema, kept, and passed to `onEvent`.
 */
export function followEvents(onEvent: (event: ConsoleEvent) => void, onState: (state: LiveState) => void): LiveEvents {
  const recent: ConsoleEvent[] = []
  let state: LiveState = 'connecting'
  const setState = (next: LiveState) => {
    if (next === state) return
    state = next
    onState(next)
  }
  /** Whether the stream's last connection carried the token. */
  let sentToken = false
  const stream = followStream({
    url: '/api/events',
    headers: () => {
      const sent = readAuthorization()
      sentToken = 'authorization' in sent
      return sent
    },
    onState: setState,
    onUnauthorized: () => {
      // Refused without the token: reads need it, so connect again with the one the page holds, or wait for one.
      if (readRefused(sentToken) && consoleToken.get()) setTimeout(() => stream.restart(), 0)
      else setState('needs-token')
    },
    onMessage: (message) => {
      if (!kinds.has(message.event)) return
      let data: unknown
      try {
        data = JSON.parse(message.data)
      } catch {
        return
      }
      const parsed = consoleEventSchema.safeParse(data)
      if (!parsed.success) return
      recent.unshift(parsed.data)
      recent.length = Math.min(recent.length, 50)
      onEvent(parsed.data)
    },
  })
  return {
    recent: () => recent,
    state: () => state,
    restart: () => {
      if (state === 'needs-token') setState('connecting')
      stream.restart()
    },
  }
}

const short = (id: string) => (id.length > 20 ? `${id.slice(0, 8)}…${id.slice(-6)}` : id)

/**
 * One line about an event, as the live feed shows it: its strategy first, when it has one. A fill among `fills` (read
 * from the API) is told in token units with symbols; the event itself carries raw units only.
 */
export function describeEvent(event: ConsoleEvent, fills: readonly FillView[] = []): string {
  const fill = event.kind === 'fill' ? fills.find((candidate) => candidate.id === event.fillId) : undefined
  const what = fill
    ? `fill of ${short(fill.orderId)}: spent ${unitsText(fill.spentUnits, fill.spent, fill.spentLabel)}, received ${unitsText(fill.receivedUnits, fill.received, fill.receivedLabel)}`
    : eventText(event)
  const strategy = event.kind === 'action' ? null : event.strategy
  return strategy ? `${strategy}: ${what}` : what
}

function unitsText(units: string | null, raw: string, label: FillView['spentLabel']): string {
  return units !== null && label?.symbol ? `${formatUnitsText(units)} ${label.symbol}` : formatAmount(raw)
}

function eventText(event: ConsoleEvent): string {
  switch (event.kind) {
    case 'order-status':
      return `order ${short(event.orderId)} → ${event.status}${event.reason ? ` (${event.reason})` : ''}`
    case 'fill':
      return `fill of ${short(event.orderId)}: spent ${formatAmount(event.spent)}, received ${formatAmount(event.received)}`
    case 'refund':
      return `refund of ${short(event.orderId)}: ${formatAmount(event.amount)} of ${short(event.token)}`
    case 'intent':
      return `intent ${event.intentKind ?? ''} ${event.status}${event.reason ? `: ${event.reason}` : ''}`
    case 'strategy':
      return String(event.event.type ?? JSON.stringify(event.event))
    case 'action':
      return `${event.action.action}${event.action.target ? ` ${event.action.target}` : ''} by ${event.action.requestedBy}: ${event.action.status}`
  }
}
