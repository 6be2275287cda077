import { type Address, BaseError, ContractFunctionRevertedError, erc20Abi, isAddressEqual, parseEther } from 'viem'
import { marketRouterAddress } from '../../protocol/addresses.js'
import { sandboxAddress } from '../chains/catalogue.js'
import { sendFixtureCall } from '../chains/send.js'
import { getContractArtifact } from '../contracts/compile.js'
import type { ChainVenue } from '../venue/chain-venue.js'
import { invalidPermit as invalid, type TokenPermit } from './market-permit.js'
import type { SwapCall } from './swap-call.js'

/** Submits users' EIP-2612 / DAI-style permits on their behalf (the sandbox router takes only Permit2 payloads in the swap). */
export const permitRelayerAddress = sandboxAddress('market.permit-relayer')

const relayerReady = new WeakMap<ChainVenue, Promise<void>>()

/**
 * Makes a `permit` payload of a build take effect: an EIP-2612 (224 bytes) or DAI-style (256 bytes) permit of the
 * source token, by the user, to the Market router, is submitted on-chain by a sandbox relayer at build time (the
 * production router runs it inside the swap). Skipped when the allowance already covers the swap, so building twice
 * with one permit works.
 */
export async function applyTokenPermit(chain: ChainVenue, call: SwapCall, user: Address, decoded: TokenPermit): Promise<void> {
  const owner = decoded.type === 'eip2612' ? decoded.owner : decoded.holder
  if (!isAddressEqual(owner, user)) throw invalid(`it is signed for ${owner}, not for userAddress ${user}`)
  if (!isAddressEqual(decoded.spender, marketRouterAddress)) {
    throw invalid(`its spender is ${decoded.spender}; the Market spender is the router ${marketRouterAddress}`)
  }
  const { publicClient } = chain.clients
  const allowance = await publicClient.readContract({
    address: call.srcToken,
    abi: erc20Abi,
    functionName: 'allowance',
    args: [user, marketRouterAddress],
  })
  if (allowance >= call.maxSrcAmount) return
  await prepareRelayer(chain)
  const token = chain.tokenByAddress(call.srcToken)
  const abi = getContractArtifact(token?.kind === 'daiStyle' ? 'DaiStyleToken' : 'SandboxToken').abi
  const args =
    decoded.type === 'eip2612'
      ? [decoded.owner, decoded.spender, decoded.value, decoded.deadline, decoded.v, decoded.r, decoded.s]
      : [decoded.holder, decoded.spender, decoded.nonce, decoded.expiry, decoded.allowed, decoded.v, decoded.r, decoded.s]
  const rejected = (reason: string) => invalid(`${token?.symbol ?? call.srcToken} rejected it (${reason})`)
  // anvil mines a reverting eth_sendTransaction, so the reason comes from a simulation first.
  try {
    await publicClient.simulateContract({ account: permitRelayerAddress, address: call.srcToken, abi, functionName: 'permit', args })
  } catch (cause) {
    throw rejected(revertName(cause))
  }
  // sendFixtureCall waits for the receipt and throws if the permit reverted after all.
  await sendFixtureCall(chain.clients, { from: permitRelayerAddress, to: call.srcToken, abi, functionName: 'permit', args })
}

function prepareRelayer(chain: ChainVenue): Promise<void> {
  let ready = relayerReady.get(chain)
  if (!ready) {
    ready = (async () => {
      await chain.clients.testClient.impersonateAccount({ address: permitRelayerAddress })
      await chain.clients.testClient.setBalance({ address: permitRelayerAddress, value: parseEther('1000') })
    })()
    relayerReady.set(chain, ready)
  }
  return ready
}

/** The revert of a simulated call as `Name(args)`, or the first line of the error. */
export function revertName(error: unknown): string {
  const reverted = error instanceof BaseError ? error.walk((cause) => cause instanceof ContractFunctionRevertedError) : undefined
  if (reverted instanceof ContractFunctionRevertedError && reverted.data) {
    return `${reverted.data.errorName}(${(reverted.data.args ?? []).map(String).join(', ')})`
  }
  const text = error instanceof Error ? error.message : String(error)
  return text.split('\n')[0] ?? text
}
