import { type Address, type Client, domainSeparator, type Hex, parseAbi } from 'viem'
import { readContract } from 'viem/actions'
import type { TokenDomain } from '../protocol/token-permits.js'
import { readOptional } from './read-optional.js'

const domainAbi = parseAbi([
  'function eip712Domain() view returns (bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)',
  'function DOMAIN_SEPARATOR() view returns (bytes32)',
  'function name() view returns (string)',
  'function version() view returns (string)',
])

/** EIP-5267 field bits: name, version, chainId, verifyingContract (no salt, no extensions). */
const nameVersionChainContract = '0x0f'

/** Versions tried when a token has DOMAIN_SEPARATOR() but no version(). */
const commonVersions = ['1', '2'] as const

/** A token's permit domain, or why none could be established (for messages: which reads answered what). */
export type PermitDomainReading = { domain: TokenDomain; reason?: undefined } | { domain: undefined; reason: string }

/**
 * The EIP-712 domain a token's permit is signed under, as far as the token tells it. EIP-5267 `eip712Domain()`
 * first; otherwise (mainnet DAI and USDC) `name()` with `version()`, or the common "1" / "2" without one, checked
 * against `DOMAIN_SEPARATOR()`: a domain is returned only when it hashes to the token's own separator, never a guess.
 */
export async function readPermitDomain(
  client: Client,
  { token, chainId }: { token: Address; chainId: number },
): Promise<PermitDomainReading> {
  const announced = await readOptional(() => readContract(client, { address: token, abi: domainAbi, functionName: 'eip712Domain' }))
  if (announced) {
    const [fields, name, version, domainChainId, verifyingContract] = announced
    if (fields !== nameVersionChainContract) {
      return {
        domain: undefined,
        reason: `eip712Domain() announces the fields ${fields}; permits are signed only under 0x0f (name, version, chainId, verifyingContract)`,
      }
    }
    if (Number(domainChainId) !== chainId) {
      return { domain: undefined, reason: `eip712Domain() names chain ${domainChainId}, but the token is read on chain ${chainId}` }
    }
    return { domain: { name, version, chainId, verifyingContract } }
  }
  const separator = await readTokenSeparator(client, token)
  if (!separator) return { domain: undefined, reason: 'it has neither eip712Domain() nor DOMAIN_SEPARATOR()' }
  const [name, version] = await Promise.all([
    readOptional(() => readContract(client, { address: token, abi: domainAbi, functionName: 'name' })),
    readOptional(() => readContract(client, { address: token, abi: domainAbi, functionName: 'version' })),
  ])
  if (name === undefined) return { domain: undefined, reason: 'it has DOMAIN_SEPARATOR() but no name() to rebuild its domain from' }
  const versions = version === undefined ? commonVersions : [version]
  for (const candidate of versions) {
    const domain: TokenDomain = { name, version: candidate, chainId, verifyingContract: token }
    if (sameHex(domainSeparator({ domain }), separator)) return { domain }
  }
  const tried = versions.map((candidate) => `"${candidate}"`).join(' or ')
  return {
    domain: undefined,
    reason:
      `its DOMAIN_SEPARATOR() ${separator} matches no domain of name "${name}" with version ${tried} ` +
      `(${version === undefined ? 'it has no version()' : 'from version()'}, chain ${chainId}, verifying contract ${token}): ` +
      'it signs permits under a name, version or domain layout that its views do not tell',
  }
}

/**
 * Checks a domain taken from configuration against the token's `DOMAIN_SEPARATOR()`: undefined when they agree or the
 * token has no separator to compare with, else why a permit signed under it would be refused.
 */
export async function checkPermitDomain(client: Client, domain: TokenDomain): Promise<string | undefined> {
  const separator = await readTokenSeparator(client, domain.verifyingContract)
  if (!separator) return undefined
  const configured = domainSeparator({ domain })
  if (sameHex(configured, separator)) return undefined
  return `name "${domain.name}" with version "${domain.version}" hashes to ${configured}, but the token's DOMAIN_SEPARATOR() is ${separator}`
}

function readTokenSeparator(client: Client, token: Address): Promise<Hex | undefined> {
  return readOptional(() => readContract(client, { address: token, abi: domainAbi, functionName: 'DOMAIN_SEPARATOR' }))
}

function sameHex(a: Hex, b: Hex): boolean {
  return a.toLowerCase() === b.toLowerCase()
}
