import type { Hex } from 'viem'
import { type CreateApiClientParameters, createApiClient } from '../../src/api/client.js'
import type { ToSign } from '../../src/api/delta/to-sign-schema.js'
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js'
import type { SandboxWallet } from '../helpers/sandbox.js'

// Pieces the Delta tests of the API client share.

/** An API client on the sandbox with small retry delays. */
export function sandboxClient(sandbox: RunningSandbox, options: Partial<CreateApiClientParameters> = {}) {
  return createApiClient({ baseUrl: sandbox.url, retry: { retries: 2, minDelayMs: 5, maxDelayMs: 50 }, ...options })
}

/** Signs a toSign exactly as the service returned it, with viem's signTypedData and the primary type it names. */
export function signToSign(wallet: SandboxWallet, toSign: ToSign): Promise<Hex> {
  // The typed data's shape is only known at run time, so viem cannot infer the message type from it.
  return wallet.signTypedData({
    domain: toSign.domain,
    types: toSign.types,
    primaryType: toSign.primaryType,
    message: toSign.value,
  } as never)
}

/** Agents that exist: excluding all of them keeps a MARKET order PENDING (nobody bids). */
export const noAgents = ['sandbox-alpha', 'sandbox-beta', 'sandbox-gamma']

/** Sandbox time in unix seconds. */
export function sandboxSeconds(sandbox: RunningSandbox): number {
  return Math.floor(sandbox.venue.clock.now() / 1000)
}
