import { type ConsoleEvent, consoleEventSchema } from '../runtime/console/console-event.js'
import { formatAmount } from './dom.js'

const kinds = ['order-status', 'fill', 'refund', 'intent', 'strategy', 'action'] as const

export type LiveState = 'connecting' | 'live' | 'reconnecting'

export type LiveEvents = {
  /** The latest events, newest first (at most 50). */
  recent: () => readonly ConsoleEvent[]
  state: () => LiveState
}

/**
 * Follows GET /api/events with an EventSource: the browser reconnects by itself and sends Last-Event-ID, so the
 * stream resumes where it was. Each event is checked against the API's schema, kept, and passed to `onEvent`.
 */
export function followEvents(onEvent: (event: ConsoleEvent) => void, onState: (state: LiveState) => void): LiveEvents {
  const recent: ConsoleEvent[] = []
  let state: LiveState = 'connecting'
  const source = new EventSource('/api/events')
  const setState = (next: LiveState) => {
    if (next === state) return
    state = next
    onState(next)
  }
  source.addEventListener('open', () => setState('live'))
  source.addEventListener('error', () => setState(source.readyState === EventSource.CLOSED ? 'reconnecting' : 'connecting'))
  for (const kind of kinds) {
    source.addEventListener(kind, (message) => {
      const parsed = consoleEventSchema.safeParse(JSON.parse((message as MessageEvent<string>).data))
      if (!parsed.success) return
      recent.unshift(parsed.data)
      recent.length = Math.min(recent.length, 50)
      onEvent(parsed.data)
    })
  }
  return { recent: () => recent, state: () => state }
}

const short = (id: string) => (id.length > 20 ? `${id.slice(0, 8)}…${id.slice(-6)}` : id)

/** One line about an event, as the live feed shows it: its strategy first, when it has one. */
export function describeEvent(event: ConsoleEvent): string {
  const what = eventText(event)
  const strategy = event.kind === 'action' ? null : event.strategy
  return strategy ? `${strategy}: ${what}` : what
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
