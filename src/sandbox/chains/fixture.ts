import { type Abi, type Address, parseEther, parseUnits } from 'viem'
import {
  deltaAddress,
  deltaWrappedNativeAddress,
  feeClaimerAddress,
  marketRouterAddress,
  permit2Address,
  rfqAddresses,
} from '../../protocol/addresses.js'
import { getContractArtifact } from '../contracts/compile.js'
import { developmentAccounts } from './accounts.js'
import {
  type PoolSpec,
  poolAddress,
  poolCatalogue,
  sandboxAddress,
  sandboxOperator,
  type TokenKind,
  type TokenSpec,
  tokenAddress,
  tokenCatalogue,
} from './catalogue.js'
import type { LocalClients } from './clients.js'
import { type FixtureCall, sendFixtureCall, sendFixtureCalls } from './send.js'

/** Production chains without the Delta contract. */
const chainsWithoutDelta = new Set([100, 43114])

export type ChainFixtureOptions = {
  /** Place the Delta contract. Default: yes, except on chain ids that have none in production (100, 43114). */
  withDelta?: boolean | undefined
  /** Accounts that receive every token. Default: the ten development accounts. */
  fundedAccounts?: readonly Address[] | undefined
  /** Seed prices in USD by symbol, overriding the catalogue. */
  pricesUsd?: Readonly<Record<string, number>> | undefined
  /** Addresses registered as Delta agents. */
  agents?: readonly Address[] | undefined
}

export type DeployedToken = {
  symbol: string
  name: string
  decimals: number
  kind: TokenKind
  address: Address
  permitVersion: string | undefined
}

export type DeployedPool = {
  address: Address
  symbols: readonly [string, string]
  token0: Address
  token1: Address
  feeBps: number
}

export type ChainFixture = {
  chainId: number
  contracts: {
    /** Absent on a chain started without Delta. */
    delta: Address | undefined
    deltaWrappedNative: Address | undefined
    permit2: Address
    marketRouter: Address
    rfq: Address
    feeClaimer: Address
  }
  tokens: DeployedToken[]
  pools: DeployedPool[]
  /** Token minter, Delta admin and liquidity owner (impersonated). */
  operator: Address
}

const contractOfKind: Record<TokenKind, string> = {
  wrappedNative: 'WrappedNative',
  eip2612: 'SandboxToken',
  usdcStyle: 'UsdcStyleToken',
  usdtStyle: 'UsdtStyleToken',
  daiStyle: 'DaiStyleToken',
  permitOnly: 'PermitOnlyToken',
}

/**
 * Puts the service's contracts on a fresh local chain at their production addresses, deploys the token set,
 * seeds the pools at the reference prices and funds the accounts.
 */
export async function installChainFixture(clients: LocalClients, options: ChainFixtureOptions = {}): Promise<ChainFixture> {
  const chainId = clients.chain.id
  const withDelta = options.withDelta ?? !chainsWithoutDelta.has(chainId)
  const funded = options.fundedAccounts ?? developmentAccounts.map((account) => account.address)
  const operator = sandboxOperator
  const contracts: ChainFixture['contracts'] = {
    delta: withDelta ? deltaAddress : undefined,
    deltaWrappedNative: withDelta ? deltaWrappedNativeAddress : undefined,
    permit2: permit2Address,
    marketRouter: marketRouterAddress,
    rfq: rfqAddresses[chainId] ?? sandboxAddress('rfq'),
    feeClaimer: feeClaimerAddress,
  }
  const tokens: DeployedToken[] = tokenCatalogue.map((spec) => ({
    symbol: spec.symbol,
    name: spec.name,
    decimals: spec.decimals,
    kind: spec.kind,
    address: tokenAddress(spec, chainId),
    permitVersion: spec.permitVersion,
  }))
  const tokenBySymbol = new Map(tokens.map((token) => [token.symbol, token]))
  const weth = tokenBySymbol.get('WETH')
  if (!weth) throw new Error('the token catalogue has no WETH')
  const pools: DeployedPool[] = poolCatalogue.map((pool) => ({
    address: poolAddress(pool),
    symbols: pool.pair,
    token0: requireToken(tokenBySymbol, pool.pair[0]).address,
    token1: requireToken(tokenBySymbol, pool.pair[1]).address,
    feeBps: pool.feeBps,
  }))

  const placements: [string, Address][] = [
    ['Permit2', contracts.permit2],
    ['MarketRouter', contracts.marketRouter],
    ['RfqSettlement', contracts.rfq],
    ...tokens.map((token): [string, Address] => [contractOfKind[token.kind], token.address]),
    ...pools.map((pool): [string, Address] => ['ConstantProductPool', pool.address]),
  ]
  if (contracts.delta && contracts.deltaWrappedNative) {
    placements.push(['DeltaSettlement', contracts.delta], ['WrappedNative', contracts.deltaWrappedNative])
  }
  await Promise.all([
    ...placements.map(([name, address]) => clients.testClient.setCode({ address, bytecode: getContractArtifact(name).deployedBytecode })),
    clients.testClient.impersonateAccount({ address: operator }),
    clients.testClient.setBalance({ address: operator, value: parseEther('100000000') }),
  ])

  const call = (name: string, to: Address, functionName: string, args: readonly unknown[] = [], value?: bigint): FixtureCall => ({
    from: operator,
    to,
    abi: getContractArtifact(name).abi,
    functionName,
    args,
    ...(value === undefined ? {} : { value }),
  })

  const initializations: FixtureCall[] = [
    call('MarketRouter', contracts.marketRouter, 'initialize', [weth.address]),
    call('MarketRouter', contracts.marketRouter, 'setRfqSettlement', [contracts.rfq]),
    ...tokens.map((token) => call(contractOfKind[token.kind], token.address, 'initialize', initializeArguments(token, operator))),
    ...pools.map((pool) => call('ConstantProductPool', pool.address, 'initialize', [pool.token0, pool.token1, pool.feeBps])),
  ]
  if (hasFunction(getContractArtifact('RfqSettlement').abi, 'initialize')) {
    initializations.push(call('RfqSettlement', contracts.rfq, 'initialize'))
  }
  if (contracts.delta && contracts.deltaWrappedNative) {
    initializations.push(
      call('DeltaSettlement', contracts.delta, 'initialize', [operator]),
      call('WrappedNative', contracts.deltaWrappedNative, 'initialize', ['Delta Wrapped Ether', 'dETH']),
      ...(options.agents ?? []).map((agent) => call('DeltaSettlement', contracts.delta as Address, 'setAgent', [agent, true])),
    )
  }

  // Liquidity: mint (or wrap) each side into the pool, then sync its reserves.
  const liquidity: FixtureCall[] = []
  for (const [index, pool] of pools.entries()) {
    const spec = poolCatalogue[index] as PoolSpec
    for (const symbol of pool.symbols) {
      const token = requireToken(tokenBySymbol, symbol)
      const amount = usdToUnits(spec.depthUsd, priceOf(symbol, options.pricesUsd), token.decimals)
      if (token.kind === 'wrappedNative') {
        liquidity.push(
          call('WrappedNative', token.address, 'deposit', [], amount),
          call('WrappedNative', token.address, 'transfer', [pool.address, amount]),
        )
      } else {
        liquidity.push(call(contractOfKind[token.kind], token.address, 'mint', [pool.address, amount]))
      }
    }
    liquidity.push(call('ConstantProductPool', pool.address, 'sync'))
  }

  // Account grants: minted by the operator; WETH wrapped by each account from its own ether.
  const grants: FixtureCall[] = []
  for (const token of tokens) {
    if (token.kind === 'wrappedNative') continue
    const amount = parseUnits(String(requireSpec(token.symbol).grant), token.decimals)
    for (const account of funded) grants.push(call(contractOfKind[token.kind], token.address, 'mint', [account, amount]))
  }
  const wethGrant = parseUnits(String(requireSpec('WETH').grant), 18)

  await sendFixtureCalls(clients, [...initializations, ...liquidity, ...grants])
  await Promise.all(
    funded.map((account) => sendFixtureCall(clients, { ...call('WrappedNative', weth.address, 'deposit', [], wethGrant), from: account })),
  )
  return { chainId, contracts, tokens, pools, operator }
}

function initializeArguments(token: DeployedToken, minter: Address): readonly unknown[] {
  switch (token.kind) {
    case 'wrappedNative':
      return [token.name, token.symbol]
    case 'usdtStyle':
      return [token.name, token.symbol, token.decimals, minter]
    default:
      return [token.name, token.symbol, token.decimals, token.permitVersion ?? '1', minter]
  }
}

function usdToUnits(usd: number, priceUsd: number, decimals: number): bigint {
  return parseUnits((usd / priceUsd).toFixed(Math.min(decimals, 12)), decimals)
}

function priceOf(symbol: string, overrides: Readonly<Record<string, number>> | undefined): number {
  return overrides?.[symbol] ?? requireSpec(symbol).priceUsd
}

function requireSpec(symbol: string): TokenSpec {
  const spec = tokenCatalogue.find((candidate) => candidate.symbol === symbol)
  if (!spec) throw new Error(`no token ${symbol} in the catalogue`)
  return spec
}

function requireToken(tokens: Map<string, DeployedToken>, symbol: string): DeployedToken {
  const token = tokens.get(symbol)
  if (!token) throw new Error(`pool names unknown token ${symbol}`)
  return token
}

function hasFunction(abi: Abi, name: string): boolean {
  return abi.some((item) => item.type === 'function' && item.name === name)
}
