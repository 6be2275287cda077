import { type Address, getAddress, keccak256, stringToHex } from 'viem'

/** Which sandbox contract implements a token, and so which approval and permit paths it has. */
export type TokenKind =
  /** WETH9 semantics: deposit / withdraw, no permit. */
  | 'wrappedNative'
  /** ERC-20 with EIP-2612 permit; its domain is also told by EIP-5267 `eip712Domain()`. */
  | 'eip2612'
  /** Mainnet USDC (FiatToken v2): EIP-2612 permit, domain told only by DOMAIN_SEPARATOR, name and version. */
  | 'usdcStyle'
  /** No bool returns; approve from non-zero to non-zero reverts (approve 0 first). No permit. */
  | 'usdtStyle'
  /** DAI-style permit(holder, spender, nonce, expiry, allowed, …); as on mainnet, no `eip712Domain()`. */
  | 'daiStyle'
  /** EIP-2612 token whose approve works only towards Permit2: moves only through permit or Permit2. */
  | 'permitOnly'

export type TokenSpec = {
  symbol: string
  name: string
  decimals: number
  kind: TokenKind
  /** EIP-712 domain version of the token's permit, where it has one. */
  permitVersion?: string
  /** Production addresses by chain id; other chains get a deterministic sandbox address. */
  addresses: Readonly<Record<number, Address>>
  /** Reference price in USD, used to seed pools. */
  priceUsd: number
  /** Amount (whole tokens) each development account receives. */
  grant: number
}

// Seed prices: WETH and WBTC start at the first close of the real candle sets the sandbox replays
// (ETH/USDT 5 m from 2026-02-22, BTC/USDT 1 m from 2023-03-01); stablecoins at par.
export const tokenCatalogue: readonly TokenSpec[] = [
  {
    symbol: 'WETH',
    name: 'Wrapped Ether',
    decimals: 18,
    kind: 'wrappedNative',
    addresses: { 1: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2', 8453: '0x4200000000000000000000000000000000000006' },
    priceUsd: 1958.54,
    grant: 100,
  },
  {
    symbol: 'USDC',
    name: 'USD Coin',
    decimals: 6,
    kind: 'usdcStyle',
    permitVersion: '2',
    addresses: { 1: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', 8453: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' },
    priceUsd: 1,
    grant: 1_000_000,
  },
  {
    symbol: 'USDT',
    name: 'Tether USD',
    decimals: 6,
    kind: 'usdtStyle',
    addresses: { 1: '0xdAC17F958D2ee523a2206206994597C13D831ec7', 8453: '0xfde4C96c8593536E31F229EA8f37b2ADa2699bb2' },
    priceUsd: 1,
    grant: 1_000_000,
  },
  {
    symbol: 'DAI',
    name: 'Dai Stablecoin',
    decimals: 18,
    kind: 'daiStyle',
    permitVersion: '1',
    addresses: { 1: '0x6B175474E89094C44Da98b954EedeAC495271d0F', 8453: '0x50c5725949A6F0c72E6C4a641F24049A917DB0Cb' },
    priceUsd: 1,
    grant: 1_000_000,
  },
  // Mainnet WBTC has no permit. Here it keeps an EIP-2612 permit with `eip712Domain()`, so that the EIP-5267 path
  // is exercised next to USDC's and DAI's DOMAIN_SEPARATOR path.
  {
    symbol: 'WBTC',
    name: 'Wrapped BTC',
    decimals: 8,
    kind: 'eip2612',
    permitVersion: '1',
    addresses: { 1: '0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599', 8453: '0x0555E30da8f98308EdB960aa94C0Db47230d2B9c' },
    priceUsd: 23142.31,
    grant: 10,
  },
  {
    symbol: 'PUSD',
    name: 'Permit-only USD',
    decimals: 18,
    kind: 'permitOnly',
    permitVersion: '1',
    addresses: {},
    priceUsd: 1,
    grant: 1_000_000,
  },
]

export type PoolSpec = {
  /** Symbols, token0 first. */
  pair: readonly [string, string]
  /** Swap fee, basis points. */
  feeBps: number
  /** Liquidity on each side, in USD. */
  depthUsd: number
}

export const poolCatalogue: readonly PoolSpec[] = [
  { pair: ['WETH', 'USDC'], feeBps: 30, depthUsd: 20_000_000 },
  { pair: ['WETH', 'USDT'], feeBps: 30, depthUsd: 10_000_000 },
  { pair: ['WETH', 'DAI'], feeBps: 30, depthUsd: 5_000_000 },
  { pair: ['WBTC', 'WETH'], feeBps: 30, depthUsd: 5_000_000 },
  { pair: ['WBTC', 'USDC'], feeBps: 30, depthUsd: 5_000_000 },
  { pair: ['USDC', 'USDT'], feeBps: 5, depthUsd: 10_000_000 },
  { pair: ['USDC', 'DAI'], feeBps: 5, depthUsd: 10_000_000 },
  { pair: ['PUSD', 'USDC'], feeBps: 5, depthUsd: 2_000_000 },
]

/** A stable address for a sandbox-only contract, the same on every chain. */
export function sandboxAddress(label: string): Address {
  return getAddress(`0x${keccak256(stringToHex(`deltaflow.sandbox.${label}`)).slice(-40)}`)
}

export function tokenAddress(spec: TokenSpec, chainId: number): Address {
  return spec.addresses[chainId] ?? sandboxAddress(`token.${spec.symbol}`)
}

export function poolAddress(pool: PoolSpec): Address {
  return sandboxAddress(`pool.${pool.pair[0]}/${pool.pair[1]}`)
}

/** Owner of the sandbox: token minter, Delta admin, liquidity provider. Impersonated, it has no key. */
export const sandboxOperator: Address = sandboxAddress('operator')
