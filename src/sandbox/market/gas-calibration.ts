import { type Address, encodeFunctionData, getAddress, maxUint256, parseEther, parseUnits } from 'viem'
import { marketRouterAddress, nativeTokenPlaceholder } from '../../protocol/addresses.js'
import { sandboxAddress, sandboxOperator } from '../chains/catalogue.js'
import { type FixtureCall, sendFixtureCalls } from '../chains/send.js'
import { getContractArtifact } from '../contracts/compile.js'
import type { ChainVenue } from '../venue/chain-venue.js'
import { getAmountOut } from './amm-math.js'
import type { PoolState } from './route-finder.js'

/** Gas of the router's swaps by number of pools, measured with eth_estimateGas on the chain itself. */
export type RouterGasTable = {
  /** swapExactAmountIn, ERC-20 to ERC-20; index = pools - 1. */
  sell: readonly number[]
  /** swapExactAmountOut, ERC-20 to ERC-20; index = pools - 1. */
  buy: readonly number[]
  /** Extra gas when the source is native ETH (wrap) instead of an ERC-20 pull. */
  nativeSrcExtra: number
  /** Extra gas when the destination is native ETH (unwrap and send). */
  nativeDestExtra: number
}

/** A sandbox-only account that holds every token and has approved the router, so estimates run like a user's. */
export const gasProbeAddress = sandboxAddress('market.gas-probe')

/** Used when calibration fails (a stopping node): typical figures of the sandbox router. */
export const fallbackGasTable: RouterGasTable = {
  sell: [95_000, 150_000, 205_000],
  buy: [105_000, 170_000, 235_000],
  nativeSrcExtra: 10_000,
  nativeDestExtra: 15_000,
}

const maxPools = 3

/**
 * Funds the probe (ETH, WETH, every mintable token, approvals of WETH and USDC to the router), then estimates a SELL
 * and a BUY over 1, 2 and 3 pools from WETH, and the native-source and native-destination differences.
 */
export async function calibrateRouterGas(chain: ChainVenue): Promise<RouterGasTable> {
  await fundProbe(chain)
  const weth = chain.wrappedNative.address
  const usdc = chain.tokenBySymbol('USDC')?.address
  const sell: number[] = []
  const buy: number[] = []
  for (let count = 1; count <= maxPools; count++) {
    const path = findExactPath(chain.pools, weth, count)
    if (!path) break
    const pools = path.pools.map((pool) => getAddress(pool.address))
    sell.push(await estimate(chain, 'swapExactAmountIn', [weth, path.destToken, parseEther('0.01'), 0n, pools, gasProbeAddress, 0n]))
    const destAmount = forwardAmount(path.pools, weth, parseEther('0.001')) / 2n
    buy.push(await estimate(chain, 'swapExactAmountOut', [weth, path.destToken, parseEther('1'), destAmount, pools, gasProbeAddress, 0n]))
  }
  const direct = findExactPath(chain.pools, weth, 1)
  const wethUsdc = usdc && chain.pools.find((pool) => hasToken(pool, weth) && hasToken(pool, usdc))
  if (!direct || !usdc || !wethUsdc || sell.length === 0) return fallbackGasTable
  const nativeSell = await estimate(
    chain,
    'swapExactAmountIn',
    [nativeTokenPlaceholder, direct.destToken, parseEther('0.01'), 0n, [getAddress(direct.pools[0]?.address ?? weth)], gasProbeAddress, 0n],
    parseEther('0.01'),
  )
  const usdcTo = (dest: Address) => [usdc, dest, parseUnits('10', 6), 0n, [getAddress(wethUsdc.address)], gasProbeAddress, 0n] as const
  const nativeDestExtra =
    (await estimate(chain, 'swapExactAmountIn', usdcTo(nativeTokenPlaceholder))) -
    (await estimate(chain, 'swapExactAmountIn', usdcTo(weth)))
  return { sell, buy, nativeSrcExtra: nativeSell - (sell[0] as number), nativeDestExtra }
}

/** Gas of one route: the measured figure for its side and pool count (extrapolated past 3), plus the native legs. */
export function routeGas(table: RouterGasTable, side: 'SELL' | 'BUY', pools: number, srcNative: boolean, destNative: boolean): number {
  const figures = side === 'SELL' ? table.sell : table.buy
  const last = figures.length - 1
  const step = last > 0 ? (figures[last] as number) - (figures[last - 1] as number) : 60_000
  const base = pools - 1 <= last ? (figures[pools - 1] as number) : (figures[last] as number) + step * (pools - 1 - last)
  return base + (srcNative ? table.nativeSrcExtra : 0) + (destNative ? table.nativeDestExtra : 0)
}

/** Gas one more pool adds (for `data.gasUSD` of each hop). */
export function gasPerPool(table: RouterGasTable): number {
  const [first, second] = table.sell
  return first !== undefined && second !== undefined ? second - first : 55_000
}

async function fundProbe(chain: ChainVenue): Promise<void> {
  const { testClient } = chain.clients
  await testClient.impersonateAccount({ address: gasProbeAddress })
  await testClient.setBalance({ address: gasProbeAddress, value: parseEther('1000') })
  const calls: FixtureCall[] = []
  for (const token of chain.tokens) {
    if (token.kind === 'permitOnly') continue // approve works only towards Permit2; not needed for calibration
    const abi = getContractArtifact(token.kind === 'wrappedNative' ? 'WrappedNative' : contractOf(token.kind)).abi
    if (token.kind === 'wrappedNative') {
      calls.push({ from: gasProbeAddress, to: token.address, abi, functionName: 'deposit', value: parseEther('10') })
    } else {
      calls.push({
        from: sandboxOperator,
        to: token.address,
        abi,
        functionName: 'mint',
        args: [gasProbeAddress, parseUnits('1000', token.decimals)],
      })
    }
    if (token.kind === 'wrappedNative' || token.symbol === 'USDC') {
      calls.push({ from: gasProbeAddress, to: token.address, abi, functionName: 'approve', args: [marketRouterAddress, maxUint256] })
    }
  }
  await sendFixtureCalls(chain.clients, calls)
}

function contractOf(kind: string): string {
  return kind === 'usdtStyle' ? 'UsdtStyleToken' : kind === 'daiStyle' ? 'DaiStyleToken' : 'SandboxToken'
}

async function estimate(
  chain: ChainVenue,
  functionName: 'swapExactAmountIn' | 'swapExactAmountOut',
  args: readonly unknown[],
  value?: bigint,
): Promise<number> {
  const data = encodeFunctionData({ abi: getContractArtifact('MarketRouter').abi, functionName, args })
  const gas = await chain.clients.publicClient.estimateGas({
    account: gasProbeAddress,
    to: marketRouterAddress,
    data,
    ...(value === undefined ? {} : { value }),
  })
  return Number(gas)
}

type ExactPath = { pools: PoolState[]; destToken: Address }

/** Some path of exactly `count` pools from `from`, never revisiting a token. */
function findExactPath(pools: readonly PoolState[], from: Address, count: number): ExactPath | undefined {
  const visit = (token: Address, used: PoolState[], seen: Set<string>): ExactPath | undefined => {
    if (used.length === count) return { pools: used, destToken: getAddress(token) }
    for (const pool of pools) {
      if (used.includes(pool) || !hasToken(pool, token)) continue
      const next = otherToken(pool, token)
      if (seen.has(next.toLowerCase())) continue
      const found = visit(next, [...used, pool], new Set([...seen, next.toLowerCase()]))
      if (found) return found
    }
    return undefined
  }
  return visit(from, [], new Set([from.toLowerCase()]))
}

/** Output of selling `amount` of `from` along `path` at the cached reserves. */
function forwardAmount(path: readonly PoolState[], from: Address, amount: bigint): bigint {
  let token = from
  let value = amount
  for (const pool of path) {
    const forward = sameAddress(pool.token0, token)
    value = getAmountOut(value, forward ? pool.reserve0 : pool.reserve1, forward ? pool.reserve1 : pool.reserve0, pool.feeBps)
    token = otherToken(pool, token)
  }
  return value
}

function otherToken(pool: PoolState, token: Address): Address {
  return sameAddress(pool.token0, token) ? pool.token1 : pool.token0
}

function hasToken(pool: PoolState, token: Address): boolean {
  return sameAddress(pool.token0, token) || sameAddress(pool.token1, token)
}

function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase()
}
