import { BaseError, HttpRequestError, LimitExceededRpcError, SocketClosedError, TimeoutError, WebSocketRequestError } from 'viem'

/**
 * A contract read whose refusal (revert, missing function, undecodable answer) means "the token does not have
 * this": undefined then. A transport failure is not an answer about the token, so it is thrown.
 */
export async function readOptional<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read()
  } catch (error) {
    if (isTransportFailure(error)) throw error
    return undefined
  }
}

export function isTransportFailure(error: unknown): boolean {
  const transport = (cause: unknown) =>
    cause instanceof HttpRequestError ||
    cause instanceof TimeoutError ||
    cause instanceof SocketClosedError ||
    cause instanceof WebSocketRequestError ||
    cause instanceof LimitExceededRpcError
  return error instanceof BaseError ? error.walk(transport) !== null : transport(error)
}
