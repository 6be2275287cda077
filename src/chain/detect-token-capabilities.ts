import {
  type Address,
  type Client,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  hexToString,
  isAddressEqual,
  maxUint256,
  parseAbi,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { call, getChainId, readContract } from 'viem/actions'
import { keptPromise } from '../domain/kept-promise.js'
import { BaseError } from '../errors/base.js'
import { nativeTokenPlaceholder } from '../protocol/addresses.js'
import type { TokenDomain } from '../protocol/token-permits.js'
import { probeApprovals } from './approval-probe.js'
import { checkPermitDomain, type PermitDomainReading, readPermitDomain } from './permit-domain.js'
import { readOptional } from './read-optional.js'
import { signDaiPermit, signEip2612Permit } from './sign-token-permit.js'
import type { ApproveBehaviour, TokenCapabilities, TokenCapabilityOverride, TokenPermitKind } from './token-capabilities.js'

/** Detected capabilities per `chainId:token` (and override); concurrent detections of one token share one read. */
export type TokenCapabilityCache = Map<string, Promise<TokenCapabilities>>

export function createTokenCapabilityCache(): TokenCapabilityCache {
  return new Map()
}

const processCache = createTokenCapabilityCache()

export type DetectTokenCapabilitiesParameters = {
  token: Address
  /** From configuration: replaces the matching detections. */
  override?: TokenCapabilityOverride | undefined
  /** Default: one cache for the process. */
  cache?: TokenCapabilityCache | undefined
}

/**
 * Reads on-chain what approval planning needs about a token: decimals, symbol, how it takes `approve`, and which
 * permit it accepts under which EIP-712 domain. The native placeholder needs no reads.
 *
 * The methods, chosen because they observe behaviour instead of guessing from names or bytecode:
 * - approve behaviour: ApprovalProbe runs approve(x, 1), approve(x, 2) and approve(Permit2, 1) inside one eth_call
 *   from a fresh address; a refused second approve is USDT-style, approve refused except to Permit2 is permit-only;
 * - permit kind: the domain is read (EIP-5267, or name/version matched against DOMAIN_SEPARATOR; a configured domain
 *   is checked against DOMAIN_SEPARATOR) and `nonces(owner)` must answer; then a permit signed by a throwaway key is
 *   simulated with eth_call in the EIP-2612 form, else the DAI form. The form the token accepts is its kind (this
 *   tells DAI-style from EIP-2612 without relying on a PERMIT_TYPEHASH view, which neither standard requires, and
 *   proves the domain is right); a token that accepts neither, or whose domain cannot be rebuilt, has none, so trades
 *   approve it instead of signing under a guessed domain.
 */
export async function detectTokenCapabilities(client: Client, parameters: DetectTokenCapabilitiesParameters): Promise<TokenCapabilities> {
  const { token, override, cache = processCache } = parameters
  const chainId = client.chain?.id ?? (await getChainId(client))
  const key = `${chainId}:${token.toLowerCase()}:${JSON.stringify(override ?? {})}`
  return keptPromise(cache, key, () => detect(client, chainId, getAddress(token), override ?? {}))
}

async function detect(client: Client, chainId: number, token: Address, override: TokenCapabilityOverride): Promise<TokenCapabilities> {
  if (isAddressEqual(token, nativeTokenPlaceholder)) {
    return {
      chainId,
      address: nativeTokenPlaceholder,
      kind: 'native',
      approveBehaviour: 'standard',
      permit: 'none',
      decimals: client.chain?.nativeCurrency.decimals ?? 18,
      symbol: override.symbol ?? client.chain?.nativeCurrency.symbol ?? 'ETH',
    }
  }
  const [decimals, symbol, approveBehaviour, permit] = await Promise.all([
    override.decimals ?? readDecimals(client, chainId, token),
    override.symbol ?? readSymbol(client, token),
    override.approveBehaviour ?? detectApproveBehaviour(client, chainId, token),
    detectPermit(client, chainId, token, override),
  ])
  return { chainId, address: token, kind: 'erc20', decimals, symbol, approveBehaviour, ...permit }
}

async function readDecimals(client: Client, chainId: number, token: Address): Promise<number> {
  const decimals = await readOptional(() => readContract(client, { address: token, abi: erc20Abi, functionName: 'decimals' }))
  if (decimals === undefined) {
    throw new TokenCapabilityDetectionError(chainId, token, 'it has no decimals() view: it is not an ERC-20 token', {
      hint: 'Check the token address and the chain, or set decimals for this token in the configuration.',
    })
  }
  return decimals
}

const bytes32SymbolAbi = parseAbi(['function symbol() view returns (bytes32)'])

/** `symbol()` as a string, or as bytes32 (older tokens such as MKR); the address when there is neither. */
async function readSymbol(client: Client, token: Address): Promise<string> {
  const text = await readOptional(() => readContract(client, { address: token, abi: erc20Abi, functionName: 'symbol' }))
  if (text !== undefined) return text
  const raw = await readOptional(() => readContract(client, { address: token, abi: bytes32SymbolAbi, functionName: 'symbol' }))
  return raw === undefined ? token : hexToString(raw, { size: 32 }).replace(/\0+$/, '')
}

/** Any address without code or allowances works; this one is easy to recognise in traces. */
const probeSpender: Address = '0x00000000000000000000000000000000C0FFEE01'

async function detectApproveBehaviour(client: Client, chainId: number, token: Address): Promise<ApproveBehaviour> {
  const probe = await probeApprovals(client, { token, spender: probeSpender })
  if (probe.fromZero) return probe.nonZeroToNonZero ? 'standard' : 'usdtStyle'
  if (probe.toPermit2) return 'permitOnly'
  throw new TokenCapabilityDetectionError(chainId, token, 'it refused approve to every spender, Permit2 included', {
    hint: 'The token may be paused. Set approveBehaviour for this token in the configuration if you know how it approves.',
  })
}

const permitAbi = parseAbi([
  'function nonces(address owner) view returns (uint256)',
  'function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)',
  'function permit(address holder, address spender, uint256 nonce, uint256 expiry, bool allowed, uint8 v, bytes32 r, bytes32 s)',
])

async function detectPermit(
  client: Client,
  chainId: number,
  token: Address,
  override: TokenCapabilityOverride,
): Promise<{ permit: TokenPermitKind; permitDomain?: TokenDomain }> {
  if (override.permit === 'none') return { permit: 'none' }
  const domain = override.permitDomain
    ? await configuredDomain(client, chainId, token, override.permitDomain)
    : await readPermitDomain(client, { token, chainId })
  if (!domain.domain) {
    // Without a domain that hashes to the token's own, any permit would be signed wrong: none, so trades approve.
    if (override.permit === undefined) return { permit: 'none' }
    throw new TokenCapabilityDetectionError(
      chainId,
      token,
      `the configuration says ${override.permit}, but its permit domain cannot be read: ${domain.reason}`,
      { hint: 'Add permitDomain { name, version } for this token to the configuration, as its permits are signed.' },
    )
  }
  if (override.permit) return { permit: override.permit, permitDomain: domain.domain }
  // Signing reads the owner's nonce from `nonces(owner)`: a token without that view cannot be given a permit.
  const nonce = await readOptional(() =>
    readContract(client, { address: token, abi: permitAbi, functionName: 'nonces', args: [probeSpender] }),
  )
  if (nonce === undefined) return { permit: 'none' }
  if (await acceptsEip2612(client, token, domain.domain)) return { permit: 'eip2612', permitDomain: domain.domain }
  if (await acceptsDai(client, token, domain.domain)) return { permit: 'dai', permitDomain: domain.domain }
  return { permit: 'none' }
}

/** A configured domain, refused when the token's DOMAIN_SEPARATOR says otherwise: every permit signed under it would fail. */
async function configuredDomain(
  client: Client,
  chainId: number,
  token: Address,
  configured: { name: string; version: string },
): Promise<PermitDomainReading> {
  const domain: TokenDomain = { ...configured, chainId, verifyingContract: token }
  const mismatch = await checkPermitDomain(client, domain)
  if (mismatch) {
    throw new TokenCapabilityDetectionError(chainId, token, `the configured permitDomain is not the token's: ${mismatch}`, {
      hint: "Correct permitDomain { name, version } for this token to the domain its permits are signed under, or remove it to read the token's own.",
    })
  }
  return { domain }
}

// A throwaway key signs; its nonce on every token is 0. Simulated only: nothing reaches the chain.

async function acceptsEip2612(client: Client, token: Address, domain: TokenDomain): Promise<boolean> {
  const signer = privateKeyToAccount(generatePrivateKey())
  const permit = await signEip2612Permit(signer, { domain, spender: probeSpender, value: 1n, nonce: 0n, deadline: maxUint256 })
  const data = encodeFunctionData({
    abi: permitAbi,
    functionName: 'permit',
    args: [permit.owner, permit.spender, permit.value, permit.deadline, permit.v, permit.r, permit.s],
  })
  return (await readOptional(() => call(client, { to: token, data }))) !== undefined
}

async function acceptsDai(client: Client, token: Address, domain: TokenDomain): Promise<boolean> {
  const signer = privateKeyToAccount(generatePrivateKey())
  const permit = await signDaiPermit(signer, { domain, spender: probeSpender, nonce: 0n, expiry: 0n, allowed: true })
  const data = encodeFunctionData({
    abi: permitAbi,
    functionName: 'permit',
    args: [permit.holder, permit.spender, permit.nonce, permit.expiry, permit.allowed, permit.v, permit.r, permit.s],
  })
  return (await readOptional(() => call(client, { to: token, data }))) !== undefined
}

/**
 * A token's behaviour could not be established on-chain. Operational: the bot does not trade the token until
 * the configuration names its capabilities (or the address is corrected).
 */
export class TokenCapabilityDetectionError extends BaseError {
  override name = 'TokenCapabilityDetectionError' as const
  constructor(chainId: number, token: Address, reason: string, { hint }: { hint: string }) {
    super(`Cannot tell how token ${token} on chain ${chainId} approves: ${reason}`, {
      details: { chainId, token },
      hint,
      errorClass: 'operational',
    })
  }
}
