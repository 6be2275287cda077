import { type Abi, BaseError, decodeErrorResult, type Hex, isHex, size, slice } from 'viem'

/** The revert data an RPC attached to a failed call or estimate, wherever viem nested it; undefined when there is none. */
export function revertDataOf(error: unknown): Hex | undefined {
  const carriesData = (candidate: unknown): candidate is { data: Hex } => {
    if (typeof candidate !== 'object' || candidate === null || !('data' in candidate)) return false
    return typeof candidate.data === 'string' && isHex(candidate.data) && size(candidate.data) >= 4
  }
  let current: unknown = error
  while (current instanceof Error || (typeof current === 'object' && current !== null)) {
    if (carriesData(current)) return current.data
    const cause: unknown = (current as { cause?: unknown }).cause
    if (cause === undefined || cause === current) break
    current = cause
  }
  return undefined
}

/**
 * A readable revert reason: `Error(string)` as its message, `Panic(uint256)` by code, a custom error of `abi` as
 * `Name(arg, …)`, an unknown custom error by its selector.
 */
export function formatRevertReason(data: Hex | undefined, abi: Abi = []): string {
  if (data === undefined || size(data) < 4) return 'no revert reason given'
  try {
    const decoded = decodeErrorResult({ abi, data })
    if (decoded.errorName === 'Error') return String(decoded.args?.[0] ?? '')
    return `${decoded.errorName}(${(decoded.args ?? []).map(formatArgument).join(', ')})`
  } catch {
    return `unknown custom error ${slice(data, 0, 4)}`
  }
}

/** The revert reason of a viem error, or undefined when the error is not a revert. */
export function revertReasonOf(error: unknown, abi?: Abi): string | undefined {
  const data = revertDataOf(error)
  if (data !== undefined) return formatRevertReason(data, abi)
  const reverted = error instanceof BaseError && error.walk((cause) => /execution reverted|reverted/i.test((cause as Error).message ?? ''))
  return reverted ? 'no revert reason given' : undefined
}

function formatArgument(value: unknown): string {
  return typeof value === 'bigint' ? value.toString() : typeof value === 'string' ? value : JSON.stringify(value)
}
