import { type Address, decodeAbiParameters, encodeAbiParameters, getAddress, type Hex, size } from 'viem'

/**
 * `bridge.protocolData` of sandbox routes: `0x` when the bridge delivers the order's final token itself, and
 * abi.encode(address finalToken) for bridge-and-swap, when the bridged token is swapped into `finalToken` on the
 * destination chain after delivery.
 */
export function encodeBridgeProtocolData(finalToken: Address | undefined): Hex {
  return finalToken === undefined ? '0x' : encodeAbiParameters([{ type: 'address' }], [finalToken])
}

/** The token the beneficiary finally receives on the destination chain, when the bridge is followed by a swap. */
export function decodeBridgeFinalToken(protocolData: Hex): Address | undefined {
  if (size(protocolData) !== 32) return undefined
  const [finalToken] = decodeAbiParameters([{ type: 'address' }], protocolData)
  return getAddress(finalToken)
}
