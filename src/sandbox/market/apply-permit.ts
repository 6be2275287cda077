import { type Address, BaseError, ContractFunctionRevertedError, erc20Abi, type Hex, isAddressEqual, parseEther } from 'viem'
import { marketRouterAddress } from '../../protocol/addresses.js'
import { decodeDeltaPermit } from '../../protocol/delta-permit.js'
import { sandboxAddress } from '../chains/catalogue.js'
import { sendFixtureCall } from '../chains/send.js'
import { getContractArtifact } from '../contracts/compile.js'
import { ApiError } from '../server/api-error.js'
import type { ChainVenue } from '../venue/chain-venue.js'
import { marketErrors } from './market-errors.js'
import type { SwapCall } from './swap-call.js'

/** Submits users' permits on their behalf (the sandbox router cannot take them inside the swap). */
export const permitRelayerAddress = sandboxAddress('market.permit-relayer')

const relayerReady = new WeakMap<ChainVenue, Promise<void>>()

/**
 * Makes a `permit` payload of a build take effect: an EIP-2612 (224 bytes) or DAI-style (256 bytes) permit of the
 * source token, by the user, to the Market router, is submitted on-chain by a sandbox relayer at build time (the
 * production router runs it inside the swap). Skipped when the allowance already covers the swap, so building twice
 * with one permit works.
 */
export async function applyPermit(chain: ChainVenue, call: SwapCall, user: Address, permit: Hex): Promise<void> {
  if (call.srcNative) throw unsupported('the source is native ETH, which needs no approval')
  const decoded = decodePermit(permit)
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
  const hash = await sendFixtureCall(chain.clients, { from: permitRelayerAddress, to: call.srcToken, abi, functionName: 'permit', args })
  const receipt = await publicClient.waitForTransactionReceipt({ hash })
  if (receipt.status !== 'success') throw rejected(`transaction ${hash} reverted`)
}

function decodePermit(permit: Hex) {
  let decoded: ReturnType<typeof decodeDeltaPermit>
  try {
    decoded = decodeDeltaPermit(permit)
  } catch {
    throw unsupported(`a permit of ${(permit.length - 2) / 2} bytes has no meaning`)
  }
  if (decoded.type !== 'eip2612' && decoded.type !== 'dai') throw unsupported('Permit2 payloads are not accepted by the sandbox router')
  return decoded
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

function unsupported(detail: string): ApiError {
  return new ApiError(marketErrors.permitNotSupported, {
    message: `Permit not supported: ${detail}; send an EIP-2612 (224 bytes) or DAI-style (256 bytes) permit to the router, or approve the router`,
  })
}

function invalid(detail: string): ApiError {
  return new ApiError(marketErrors.invalidPermit, { message: `Invalid permit: ${detail}` })
}

function revertName(error: unknown): string {
  const reverted = error instanceof BaseError ? error.walk((cause) => cause instanceof ContractFunctionRevertedError) : undefined
  if (reverted instanceof ContractFunctionRevertedError && reverted.data) {
    return `${reverted.data.errorName}(${(reverted.data.args ?? []).map(String).join(', ')})`
  }
  const text = error instanceof Error ? error.message : String(error)
  return text.split('\n')[0] ?? text
}
