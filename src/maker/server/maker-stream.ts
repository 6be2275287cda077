import type { WebSocket } from 'ws'
import type { Logger } from '../../log/logger.js'
import type { PriceGrid } from '../../protocol/price-grid.js'
import type { MakerBook, MakerBookChange, MakerChainSnapshot } from '../maker-book.js'
import { blacklistToWire, gridToWire, pricesToWire, tokensToWire } from './wire-bodies.js'

// The optional WebSocket channel (section 4 of the maker document): one-way, maker → service. The first message
// is the complete tokens, pairs, prices and blacklist; later messages carry what changed only. While the maker is
// off every pair is sent as `{}` (no side quoted), so the service stops routing through it at once; when it comes
// back the full prices follow. Never an `order`.

/** A socket further behind than this is dropped rather than buffered without bound. */
const maxBufferedBytes = 4 * 1024 * 1024

export type MakerStreamPayload = {
  tokens?: unknown
  pairs?: unknown
  prices?: Record<string, PriceGrid>
  blacklist?: string[]
  message?: string
}

/** The first message of a connection. */
export function snapshotMessage(snapshot: MakerChainSnapshot): MakerStreamPayload {
  const message: MakerStreamPayload = {
    tokens: tokensToWire(snapshot.tokens),
    pairs: snapshot.pairs,
    prices: snapshot.offReason === undefined ? pricesToWire(snapshot.prices) : unquotedPrices(snapshot),
    blacklist: blacklistToWire(snapshot.blacklist),
  }
  if (snapshot.offReason !== undefined) message.message = `maker is off: ${snapshot.offReason}`
  return message
}

/** The message of one book change, or undefined when nothing the service caches changed. */
export function changeMessage(change: MakerBookChange, snapshot: MakerChainSnapshot): MakerStreamPayload | undefined {
  const message: MakerStreamPayload = {}
  if (change.tokens !== undefined) message.tokens = tokensToWire(change.tokens)
  if (change.pairs !== undefined) message.pairs = change.pairs
  if (change.blacklist !== undefined) message.blacklist = blacklistToWire(change.blacklist)
  if (typeof change.off === 'string') {
    message.prices = unquotedPrices(snapshot)
    message.message = `maker is off: ${change.off}`
  } else if (change.off === null) {
    // Back on: the service dropped every level when the maker went off, so all of them are sent again.
    message.prices = pricesToWire(snapshot.prices)
  } else if (change.prices !== undefined && snapshot.offReason === undefined) {
    message.prices = Object.fromEntries(Object.entries(change.prices).map(([pairId, grid]) => [pairId, gridToWire(grid)]))
  }
  return Object.keys(message).length > 0 ? message : undefined
}

/** Every pair the maker lists or quoted, as `{}`. */
function unquotedPrices(snapshot: MakerChainSnapshot): Record<string, PriceGrid> {
  const pairIds = new Set([...Object.keys(snapshot.pairs), ...Object.keys(snapshot.prices)])
  return Object.fromEntries([...pairIds].map((pairId) => [pairId, {}]))
}

export type MakerStreamParameters = { book: MakerBook; logger?: Logger | undefined }

/** The connected sockets per chain, fed from the book's changes. */
export function createMakerStream({ book, logger }: MakerStreamParameters) {
  const sockets = new Map<number, Set<WebSocket>>()
  const send = (socket: WebSocket, text: string) => {
    if (socket.readyState !== socket.OPEN) return
    if (socket.bufferedAmount > maxBufferedBytes) {
      logger?.warn({ bufferedBytes: socket.bufferedAmount }, 'maker stream: a consumer fell too far behind; disconnecting it')
      socket.terminate()
      return
    }
    socket.send(text)
  }
  const unsubscribe = book.onChange((change) => {
    const connected = sockets.get(change.chainId)
    if (connected === undefined || connected.size === 0) return
    const message = changeMessage(change, book.snapshot(change.chainId))
    if (message === undefined) return
    const text = JSON.stringify(message)
    for (const socket of connected) send(socket, text)
  })

  return {
    /** Sends the snapshot and keeps the socket for the chain's changes until it closes. */
    attach(chainId: number, socket: WebSocket): void {
      let connected = sockets.get(chainId)
      if (connected === undefined) {
        connected = new Set()
        sockets.set(chainId, connected)
      }
      const chainSockets = connected
      chainSockets.add(socket)
      socket.on('close', () => chainSockets.delete(socket))
      // The channel is one-way: anything the consumer sends is ignored.
      socket.on('message', () => {})
      send(socket, JSON.stringify(snapshotMessage(book.snapshot(chainId))))
    },
    /** Closes every socket (1001 going away) with `reason`. */
    closeAll(reason: string): void {
      const closeReason = truncateUtf8(reason, 123)
      for (const connected of sockets.values()) {
        for (const socket of connected) socket.close(1001, closeReason)
      }
    },
    /** Stops following the book and drops every socket at once (the server is closing). */
    stop(): void {
      unsubscribe()
      for (const connected of sockets.values()) {
        for (const socket of connected) socket.terminate()
      }
    },
  }
}

export type MakerStream = ReturnType<typeof createMakerStream>

/** A WebSocket close reason fits in 123 bytes. */
function truncateUtf8(text: string, maxBytes: number): string {
  let cut = text
  while (Buffer.byteLength(cut) > maxBytes) cut = cut.slice(0, -1)
  return cut
}
