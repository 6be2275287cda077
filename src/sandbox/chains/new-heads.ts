import WebSocket, { type RawData } from 'ws'

export type NewHeadsParameters = {
  /** The node's HTTP RPC URL; anvil answers WebSocket upgrades on the same port. */
  rpcUrl: string
  /** Called with the number of each new block the node announces. */
  onHead: (block: bigint) => void
  /** Real ms before a lost or refused connection is opened again. */
  reconnectMs?: number
}

/**
 * Follows a local node's new blocks through `eth_subscribe` `newHeads` on its WebSocket, so that the sandbox hears of
 * a block (its own transactions and anyone else's) when it is mined instead of asking for the head several times a
 * second. A connection that fails or closes is opened again after `reconnectMs` until `close()`; the caller keeps a
 * slow poll beside it for what a subscription does not announce (a chain reverted to a snapshot) and for the time a
 * connection is down.
 */
export function followNewHeads({ rpcUrl, onHead, reconnectMs = 1_000 }: NewHeadsParameters): { close: () => void } {
  const url = rpcUrl.replace(/^http/, 'ws')
  let socket: WebSocket | undefined
  let retry: ReturnType<typeof setTimeout> | undefined
  let closed = false

  const open = () => {
    retry = undefined
    if (closed) return
    const current = new WebSocket(url)
    socket = current
    current.on('open', () => current.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] })))
    current.on('message', (data: RawData) => {
      const number = headNumberOf(data)
      if (number !== undefined) onHead(number)
    })
    // An 'error' is followed by 'close'; without a listener it would be thrown.
    current.on('error', () => {})
    current.on('close', () => {
      if (socket === current) socket = undefined
      if (!closed && retry === undefined) {
        retry = setTimeout(open, reconnectMs)
        retry.unref()
      }
    })
    // The subscription never keeps a process alive on its own.
    current.once('upgrade', (response) => response.socket.unref())
  }

  open()
  return {
    close: () => {
      closed = true
      clearTimeout(retry)
      socket?.terminate()
      socket = undefined
    },
  }
}

/** The block number of a `newHeads` notification; undefined for anything else (the subscription's id, an error). */
function headNumberOf(data: RawData): bigint | undefined {
  let message: unknown
  try {
    message = JSON.parse(data.toString())
  } catch {
    return undefined
  }
  if (typeof message !== 'object' || message === null || !('method' in message) || message.method !== 'eth_subscription') return undefined
  const number = (message as { params?: { result?: { number?: unknown } } }).params?.result?.number
  return typeof number === 'string' && /^0x[0-9a-f]+$/i.test(number) ? BigInt(number) : undefined
}
