import { erc20Abi, parseUnits } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nativeTokenPlaceholder } from '../../src/protocol/addresses.js'
import { type AnvilInstance, startAnvil } from '../../src/sandbox/chains/anvil.js'
import type { LocalClients } from '../../src/sandbox/chains/clients.js'
import { type ChainFixture, installChainFixture } from '../../src/sandbox/chains/fixture.js'
import { getContractArtifact } from '../../src/sandbox/contracts/compile.js'
import { poolAmount } from '../../src/sandbox/delta/engine/pool-quote.js'
import { ChainVenue } from '../../src/sandbox/venue/chain-venue.js'
import { interceptedClients, nodeRequest } from '../helpers/rpc-interceptor.js'

// anvil answers eth_sendTransaction before it mines, and fills in the gas of a transaction sent without one by
// estimating it against the last mined block. On a starved machine its miner falls behind its answers: a pool's
// `sync()`, sent right after the mint of its second token, was then estimated while that mint was still waiting, got
// the gas of writing one reserve instead of two, ran out of gas, and left the pool holding its tokens with reserves of
// zero. No receipt was read, so nothing said so until a price over the pool answered "No route" (the PUSD/USDC pool,
// the last one seeded, in both reports; any pool can be hit).
//
// The node below lags on purpose, deterministically: automine is off and a block is mined only when a second
// transaction is waiting or when someone asks for a receipt — the miner one transaction behind its answers.

/** Clients of a local node whose miner runs one transaction behind (see above). */
function laggingMinerClients(chainId: number, rpcUrl: string): LocalClients {
  let waiting = 0
  const mine = async () => {
    if (waiting === 0) return
    waiting = 0
    await nodeRequest(rpcUrl, 'evm_mine')
  }
  return interceptedClients(chainId, rpcUrl, async ({ method }, forward) => {
    if (method === 'eth_getTransactionReceipt') await mine()
    const answer = await forward()
    if (method === 'eth_sendTransaction' && ++waiting >= 2) await mine()
    return answer
  })
}

describe('chain fixture on a node whose miner lags its answers', () => {
  const chainId = 1
  let anvil: AnvilInstance | undefined
  let clients: LocalClients | undefined
  let fixture: ChainFixture | undefined
  beforeAll(async () => {
    anvil = await startAnvil({ chainId })
    clients = laggingMinerClients(chainId, anvil.rpcUrl)
    await clients.testClient.setAutomine(false)
    fixture = await installChainFixture(clients)
    await clients.testClient.mine({ blocks: 1 })
  })
  afterAll(async () => {
    await anvil?.stop()
  })
  const installed = () => {
    if (!anvil || !clients || !fixture) throw new Error('the fixture was not installed (see beforeAll)')
    return { anvil, clients, fixture }
  }

  it('seeds every pool: its reserves are the tokens it holds', async () => {
    const { clients, fixture } = installed()
    const poolAbi = getContractArtifact('ConstantProductPool').abi
    const seeded = await Promise.all(
      fixture.pools.map(async (pool) => {
        const [reserves, balance0, balance1] = await Promise.all([
          clients.publicClient.readContract({ address: pool.address, abi: poolAbi, functionName: 'getReserves' }) as Promise<
            readonly [bigint, bigint]
          >,
          clients.publicClient.readContract({ address: pool.token0, abi: erc20Abi, functionName: 'balanceOf', args: [pool.address] }),
          clients.publicClient.readContract({ address: pool.token1, abi: erc20Abi, functionName: 'balanceOf', args: [pool.address] }),
        ])
        return {
          pool: pool.symbols.join('/'),
          synced: reserves[0] === balance0 && reserves[1] === balance1 && balance0 > 0n && balance1 > 0n,
        }
      }),
    )
    expect(seeded.filter(({ synced }) => !synced).map(({ pool }) => pool)).toEqual([])
  })

  it('prices 100 PUSD to USDC over the PUSD/USDC pool, as the Delta engine does', async () => {
    const { anvil, clients, fixture } = installed()
    const venue = new ChainVenue({ chainId, rpcUrl: anvil.rpcUrl, clients, fixture, exited: anvil.exited })
    await venue.refresh()
    const token = (symbol: string) => {
      const found = fixture.tokens.find((candidate) => candidate.symbol === symbol)
      if (!found) throw new Error(`no ${symbol} in the fixture`)
      return found.address
    }
    const usdc = poolAmount(venue, token('PUSD'), token('USDC'), parseUnits('100', 18), 'SELL')
    // 2M USD on each side: 100 PUSD fetch 100 USDC less the 5 bps fee.
    expect(usdc, 'USDC for 100 PUSD (undefined: no route)').toBeDefined()
    expect(usdc).toBeGreaterThan(parseUnits('99.9', 6))
    expect(poolAmount(venue, nativeTokenPlaceholder, token('USDC'), parseUnits('1', 18), 'SELL'), 'USDC for 1 ETH').toBeGreaterThan(0n)
  })
})
