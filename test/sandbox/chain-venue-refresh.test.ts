import { type Address, createWalletClient, erc20Abi, type Hash, http, parseUnits, publicActions } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { defineLocalChain, type LocalClients } from '../../src/sandbox/chains/clients.js'
import { type LocalChain, type LocalChains, startLocalChains } from '../../src/sandbox/chains/harness.js'
import { waitForLocalReceipt } from '../../src/sandbox/chains/receipt.js'
import { getContractArtifact } from '../../src/sandbox/contracts/compile.js'
import { refreshPoolsTo } from '../../src/sandbox/delta/engine/hedge-fill.js'
import { ChainVenue } from '../../src/sandbox/venue/chain-venue.js'
import { interceptedClients } from '../helpers/rpc-interceptor.js'

// The pools the sandbox prices against are a copy of the chain's reserves, refreshed from the node. Two ways that copy
// went stale while claiming to be current, each forced below by holding back the node's answers as a starved machine
// does, in an order it may:
// - a refresh asked for after a trade joined a refresh already under way, which had read the pools before the trade;
// - a refresh read the block number and the reserves side by side: the block number could come from after a trade
//   whose reserves it did not read, and then the copy claimed a block it did not hold (the engine's wait for its own
//   fills trusts that number, and the watcher refreshes only when it changes).

type Gate = {
  /** Clients whose answers the gate holds back while it is shut. */
  clients: LocalClients
  /**
   * From now on each eth_call runs on the node at once but its answer waits; with `holdBlockNumber`, each
   * eth_blockNumber waits before it is even sent (so it will read the head as of the opening).
   */
  shut: (options: { holdBlockNumber: boolean }) => void
  /** Resolves once whatever is under way has reached the node: something is held and no eth_call is still running. */
  settled: () => Promise<void>
  /** Lets everything through. */
  open: () => void
}

function gatedClients(chain: LocalChain): Gate {
  let shut: { released: Promise<void>; holdBlockNumber: boolean } | undefined
  let release = () => {}
  let held = 0
  let running = 0
  const clients = interceptedClients(chain.chainId, chain.rpcUrl, async ({ method }, forward) => {
    const gate = shut
    if (gate?.holdBlockNumber && method === 'eth_blockNumber') {
      held++
      await gate.released
    }
    if (!gate || method !== 'eth_call') return forward()
    running++
    const answer = await forward()
    running--
    held++
    await gate.released
    return answer
  })
  return {
    clients,
    shut: ({ holdBlockNumber }) => {
      held = 0
      shut = {
        holdBlockNumber,
        released: new Promise((resolve) => {
          release = resolve
        }),
      }
    },
    settled: async () => {
      while (!(held > 0 && running === 0)) await new Promise((resolve) => setTimeout(resolve, 1))
    },
    open: () => {
      shut = undefined
      release()
    },
  }
}

/** Development account 1 on the chain, with read actions. */
function developmentWallet(chain: LocalChain) {
  const key = developmentAccounts[1]?.privateKey
  if (!key) throw new Error('no development account 1')
  return createWalletClient({
    account: privateKeyToAccount(key),
    chain: defineLocalChain(chain.chainId, chain.rpcUrl),
    transport: http(chain.rpcUrl),
  }).extend(publicActions)
}

describe('ChainVenue.refresh against a node that answers late', () => {
  const chainId = 1
  let chains: LocalChains | undefined
  beforeAll(async () => {
    chains = await startLocalChains({ chainIds: [chainId] })
  })
  afterAll(async () => {
    await chains?.stop()
  })
  const localChain = () => {
    const chain = chains?.chain(chainId)
    if (!chain) throw new Error('chains not started (see beforeAll)')
    return chain
  }

  /** Sells 10,000 USDC into the PUSD/USDC pool from development account 1 and returns the swap's block. */
  async function swapUsdcForPusd(chain: LocalChain): Promise<bigint> {
    const wallet = developmentWallet(chain)
    const symbol = (name: string) => chain.fixture.tokens.find((token) => token.symbol === name)?.address as Address
    const pool = chain.fixture.pools.find((candidate) => candidate.symbols.join('/') === 'PUSD/USDC')?.address as Address
    const amount = parseUnits('10000', 6)
    const router = chain.fixture.contracts.marketRouter
    const mined = async (hash: Hash) => (await waitForLocalReceipt(wallet, hash)).blockNumber
    await mined(await wallet.writeContract({ address: symbol('USDC'), abi: erc20Abi, functionName: 'approve', args: [router, amount] }))
    return mined(
      await wallet.writeContract({
        address: router,
        abi: getContractArtifact('MarketRouter').abi,
        functionName: 'swapExactAmountIn',
        args: [symbol('USDC'), symbol('PUSD'), amount, 0n, [pool], wallet.account.address, 0n],
      }),
    )
  }

  /** Each cached pool against the node's reserves at the block the cache claims. */
  async function mismatches(chain: LocalChain, venue: ChainVenue): Promise<string[]> {
    const abi = getContractArtifact('ConstantProductPool').abi
    const found: string[] = []
    for (const pool of venue.pools) {
      const [reserve0, reserve1] = (await chain.clients.publicClient.readContract({
        address: pool.address,
        abi,
        functionName: 'getReserves',
        blockNumber: venue.blockNumber,
      })) as readonly [bigint, bigint]
      if (reserve0 !== pool.reserve0 || reserve1 !== pool.reserve1) {
        found.push(`${pool.name} at block ${venue.blockNumber}: cached ${pool.reserve0}/${pool.reserve1}, chain ${reserve0}/${reserve1}`)
      }
    }
    return found
  }

  it('holds, after a refresh asked for after a trade, the reserves of a block that includes the trade', async () => {
    const chain = localChain()
    const gate = gatedClients(chain)
    const venue = new ChainVenue({ ...chain, clients: gate.clients })
    await venue.refresh()

    gate.shut({ holdBlockNumber: false })
    const underWay = venue.refresh()
    // Under way: its reads ran on the node before the trade, their answers are on their way.
    await gate.settled()
    const tradeBlock = await swapUsdcForPusd(chain)
    const asked = venue.refresh()
    gate.open()
    await Promise.all([underWay, asked])

    expect(venue.blockNumber).toBeGreaterThanOrEqual(tradeBlock)
    expect(await mismatches(chain, venue)).toEqual([])
  })

  it('never claims a block whose reserves it did not read, so waiting for a fill’s block waits for its reserves', async () => {
    const chain = localChain()
    const gate = gatedClients(chain)
    const venue = new ChainVenue({ ...chain, clients: gate.clients })
    await venue.refresh()

    gate.shut({ holdBlockNumber: true })
    const underWay = venue.refresh()
    // Under way: whatever it read ran on the node before the trade; a block number it asks for comes from after it.
    await gate.settled()
    const tradeBlock = await swapUsdcForPusd(chain)
    gate.open()
    await underWay
    expect(await mismatches(chain, venue)).toEqual([])

    // What the Delta engine does after each fill before it prices the next one.
    await refreshPoolsTo(venue, tradeBlock)
    expect(venue.blockNumber).toBeGreaterThanOrEqual(tradeBlock)
    expect(await mismatches(chain, venue)).toEqual([])
  })
})
