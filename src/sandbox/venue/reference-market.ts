import { parseEther, parseUnits } from 'viem'
import { sandboxAddress, sandboxOperator } from '../chains/catalogue.js'
import { sendFixtureCall } from '../chains/send.js'
import { getContractArtifact } from '../contracts/compile.js'
import { planArbitrageTrade } from '../market/arbitrage.js'
import type { SandboxDesk } from '../server/desk.js'
import type { ChainVenue } from './chain-venue.js'
import { type PricePath, pathPriceAt } from './price-path.js'
import type { SandboxVenue } from './sandbox-venue.js'

/** Stablecoins are held at par; the depeg scenario is left to a future path. */
const stablecoins = new Set(['USDC', 'USDT', 'DAI', 'PUSD'])

export const arbitrageurAddress = sandboxAddress('arbitrageur')

export type ReferenceMarketOptions = {
  paths: readonly PricePath[]
  /** Real milliseconds between arbitrage rounds. */
  intervalMs?: number | undefined
}

/**
 * Moves the pools like a market: the reference price paths (real candles) give each token's USD price at the
 * current sandbox time, and a simulated arbitrageur trades every pool that strays outside its fee band back to it.
 */
export function createReferenceMarket(
  venue: SandboxVenue,
  options: ReferenceMarketOptions,
): SandboxDesk & {
  referencePrices: () => Record<string, number>
} {
  const startedAt = venue.clock.now()
  let timer: ReturnType<typeof setTimeout> | undefined
  let stopped = false
  let round: Promise<void> | undefined

  const referencePrices = () => {
    const prices: Record<string, number> = {}
    for (const symbol of stablecoins) prices[symbol] = 1
    for (const path of options.paths) for (const symbol of path.symbols) prices[symbol] = pathPriceAt(path, venue.clock.now() - startedAt)
    return prices
  }

  const schedule = () => {
    if (stopped) return
    timer = setTimeout(() => {
      round = arbitrageRound(venue, referencePrices())
        .catch((err) => venue.logger.warn({ err }, 'arbitrage round failed'))
        .finally(schedule)
    }, options.intervalMs ?? 1_000)
  }

  return {
    name: 'reference-market',
    referencePrices,
    register: (app) => {
      app.get('/_sandbox/market', async () => ({ referencePricesUsd: referencePrices(), arbitrageur: arbitrageurAddress }))
    },
    start: async () => {
      await Promise.all([...venue.chains.values()].map(fundArbitrageur))
      schedule()
    },
    stop: async () => {
      stopped = true
      clearTimeout(timer)
      await round
    },
  }
}

async function fundArbitrageur(chain: ChainVenue): Promise<void> {
  const { testClient } = chain.clients
  await testClient.impersonateAccount({ address: arbitrageurAddress })
  await testClient.setBalance({ address: arbitrageurAddress, value: parseEther('2000000000') })
  for (const token of chain.tokens) {
    if (token.kind === 'wrappedNative') {
      await sendFixtureCall(chain.clients, {
        from: arbitrageurAddress,
        to: token.address,
        abi: getContractArtifact('WrappedNative').abi,
        functionName: 'deposit',
        value: parseEther('1000000000'),
      })
    } else {
      await sendFixtureCall(chain.clients, {
        from: sandboxOperator,
        to: token.address,
        abi: getContractArtifact('SandboxToken').abi,
        functionName: 'mint',
        args: [arbitrageurAddress, parseUnits('1000000000000', token.decimals)],
      })
    }
  }
}

async function arbitrageRound(venue: SandboxVenue, pricesUsd: Record<string, number>): Promise<void> {
  const poolAbi = getContractArtifact('ConstantProductPool').abi
  const tokenAbi = getContractArtifact('SandboxToken').abi
  for (const chain of venue.chains.values()) {
    let traded = false
    for (const pool of chain.pools) {
      const token0 = chain.tokenByAddress(pool.token0)
      const token1 = chain.tokenByAddress(pool.token1)
      const usd0 = token0 && pricesUsd[token0.symbol]
      const usd1 = token1 && pricesUsd[token1.symbol]
      if (!token0 || !token1 || !usd0 || !usd1) continue
      const targetPrice = (usd0 / usd1) * 10 ** (token1.decimals - token0.decimals)
      const trade = planArbitrageTrade(pool, targetPrice)
      if (!trade) continue
      await sendFixtureCall(chain.clients, {
        from: arbitrageurAddress,
        to: trade.tokenIn,
        abi: tokenAbi,
        functionName: 'transfer',
        args: [pool.address, trade.amountIn],
      })
      await sendFixtureCall(chain.clients, {
        from: arbitrageurAddress,
        to: pool.address,
        abi: poolAbi,
        functionName: 'swap',
        args: [trade.tokenIn, 0n, arbitrageurAddress],
      })
      traded = true
    }
    if (traded) await chain.refresh()
  }
}
