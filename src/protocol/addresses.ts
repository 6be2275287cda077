import type { Address } from 'viem'

// Production addresses (protocol-facts, /resources/contracts.json). The sandbox places its contracts at the same
// addresses, so a configuration written against the sandbox names the same spenders as production.

/** Delta settlement contract, one address on every chain that has Delta. */
export const deltaAddress: Address = '0x0000000000bbf5c5fd284e657f01bd000933c96d'
/** Wrapped-native token used by Delta. */
export const deltaWrappedNativeAddress: Address = '0x0a0d53b6684c7b32b4cbef5fe8483bfcc8406742'
/** Permit2, one address on every chain. */
export const permit2Address: Address = '0x000000000022D473030F116dDEE9F6B43aC78BA3'
/** Market router v6.2; its own token-transfer proxy, so also the Market spender. */
export const marketRouterAddress: Address = '0x6a000f20005980200259b80c5102003040001068'
/** Fee claimer, one address on every chain. */
export const feeClaimerAddress: Address = '0x00700052c0608F670705380a4900e0a8080010CC'

/** RFQ (OTC) settlement contract: differs per chain. */
export const rfqAddresses: Readonly<Record<number, Address>> = {
  1: '0xe92b586627ccA7a83dC919cc7127196d70f55a06',
  10: '0x0927FD43a7a87E3E8b81Df2c44B03C4756849F6D',
  56: '0x8DcDfe88EF0351f27437284D0710cD65b20288bb',
  100: '0x92EaD5bACf6F0E995FA46Ad8215A9b11f67ca241',
  130: '0x92EaD5bACf6F0E995FA46Ad8215A9b11f67ca241',
  137: '0xF3CD476C3C4D3Ac5cA2724767f269070CA09A043',
  8453: '0xa003dFBA51C9e1e56C67ae445b852bdEd7aC5EEd',
  42161: '0x0927FD43a7a87E3E8b81Df2c44B03C4756849F6D',
  43114: '0x34302c4267d0dA0A8c65510282Cc22E9e39df51f',
}

/** Chains on which production deploys the Delta contract (chains 100 and 43114 have none). */
export const deltaChainIds: readonly number[] = [1, 10, 56, 130, 137, 8453, 42161]

/** The native asset in API parameters, exactly in this mixed case (any other casing is rejected by the service). */
export const nativeTokenPlaceholder: Address = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE'

export const zeroAddress: Address = '0x0000000000000000000000000000000000000000'
