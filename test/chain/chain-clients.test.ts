import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { ChainConfigurationError, createChainClients, requireChainClients } from '../../src/chain/chain-clients.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { useSandbox } from '../helpers/sandbox.js'

/** Nothing listens there: connections are refused at once. */
const deadRpcUrl = 'http://127.0.0.1:9'

describe('createChainClients', () => {
  const sandbox = useSandbox({ chainIds: [1, 8453] })
  const rpcUrlOf = (chainId: number) =>
    sandbox().chains.find((chain) => chain.chainId === chainId)?.rpcUrl ?? expect.unreachable('no chain')

  it('builds a public client per configured chain that reads that chain', async () => {
    const clients = createChainClients({ chains: [1, 8453].map((chainId) => ({ chainId, rpcUrls: [rpcUrlOf(chainId)] })) })
    expect(await requireChainClients(clients, 1).publicClient.getChainId()).toBe(1)
    expect(await requireChainClients(clients, 8453).publicClient.getChainId()).toBe(8453)
    expect(requireChainClients(clients, 8453).chain.name).toBe('Base')
  })

  it('falls back to the next RPC URL when the first one is down', async () => {
    const clients = createChainClients({ chains: [{ chainId: 1, rpcUrls: [deadRpcUrl, rpcUrlOf(1)] }], timeoutMs: 2_000 })
    expect(await requireChainClients(clients, 1).publicClient.getBlockNumber()).toBeGreaterThan(0n)
  })

  it('adds a wallet client that sends from the given account', async () => {
    const account = privateKeyToAccount(developmentAccounts[0]?.privateKey ?? expect.unreachable('no account'))
    const clients = createChainClients({ chains: [{ chainId: 1, rpcUrls: [rpcUrlOf(1)] }], account })
    const { walletClient } = requireChainClients(clients, 1)
    expect(walletClient?.account.address).toBe(account.address)
    expect(await walletClient?.getChainId()).toBe(1)
  })

  it('has no wallet client without an account', () => {
    const clients = createChainClients({ chains: [{ chainId: 1, rpcUrls: [rpcUrlOf(1)] }] })
    expect(requireChainClients(clients, 1).walletClient).toBeUndefined()
  })

  it('throws ChainConfigurationError for a chain that is not configured, naming the configured ones', () => {
    const clients = createChainClients({ chains: [{ chainId: 1, rpcUrls: [rpcUrlOf(1)] }] })
    expect(() => requireChainClients(clients, 100)).toThrow(ChainConfigurationError)
    expect(() => requireChainClients(clients, 100)).toThrow(/chain 100 has no RPC configured\n {2}configured: 1/)
  })

  it('refuses a chain without RPC URLs and a chain listed twice', () => {
    expect(() => createChainClients({ chains: [{ chainId: 1, rpcUrls: [] }] })).toThrow(/rpcUrls/)
    expect(() => createChainClients({ chains: [1, 1].map((chainId) => ({ chainId, rpcUrls: [deadRpcUrl] })) })).toThrow(/configured twice/)
  })
})
