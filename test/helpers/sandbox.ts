import { type Address, createWalletClient, http, publicActions } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll } from 'vitest'
import { nativeTokenPlaceholder } from '../../src/protocol/addresses.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { defineLocalChain } from '../../src/sandbox/chains/clients.js'
import { type RunningSandbox, type StartSandboxOptions, startSandbox } from '../../src/sandbox/start-sandbox.js'

/**
 * Starts a sandbox (chains + HTTP server) for the surrounding describe block and stops it afterwards.
 * Pools stand still unless `market: 'replay'` is asked for, so a quote can be compared with its execution.
 */
export function useSandbox(options: StartSandboxOptions = {}): () => RunningSandbox {
  let sandbox: RunningSandbox | undefined
  beforeAll(async () => {
    sandbox = await startSandbox({ market: 'still', ...options })
  })
  afterAll(async () => {
    await sandbox?.stop()
  })
  return () => {
    if (!sandbox) throw new Error('useSandbox: sandbox not started (call inside describe, use inside it)')
    return sandbox
  }
}

export type HttpAnswer = { status: number; headers: Headers; text: string; json: unknown }

/** One real HTTP request to the sandbox; the body is parsed when it is JSON. */
export async function request(baseUrl: string, method: string, path: string, body?: unknown): Promise<HttpAnswer> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? null : typeof body === 'string' ? body : JSON.stringify(body),
  })
  const text = await response.text()
  let json: unknown
  try {
    json = text ? JSON.parse(text) : undefined
  } catch {
    json = undefined
  }
  return { status: response.status, headers: response.headers, text, json }
}

/** A development account's wallet on one sandbox chain, with read actions. */
export function sandboxWallet(sandbox: RunningSandbox, chainId: number, index: number) {
  const rpcUrl = sandbox.chains.find((chain) => chain.chainId === chainId)?.rpcUrl
  const key = developmentAccounts[index]?.privateKey
  if (!rpcUrl || !key) throw new Error(`no chain ${chainId} or no development account ${index}`)
  return createWalletClient({
    account: privateKeyToAccount(key),
    chain: defineLocalChain(chainId, rpcUrl),
    transport: http(rpcUrl),
  }).extend(publicActions)
}

export type SandboxWallet = ReturnType<typeof sandboxWallet>

/** A sandbox token by symbol; ETH is the native placeholder. */
export function sandboxToken(sandbox: RunningSandbox, chainId: number, symbol: string): { address: Address; decimals: number } {
  if (symbol === 'ETH') return { address: nativeTokenPlaceholder, decimals: 18 }
  const token = sandbox.tokens.find((candidate) => candidate.chainId === chainId && candidate.symbol === symbol)
  if (!token) throw new Error(`no ${symbol} on chain ${chainId}`)
  return { address: token.address, decimals: token.decimals }
}
