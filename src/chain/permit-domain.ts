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

/**
 * The EIP-712 domain a token's permit is signed under, or undefined when the token exposes none we can reproduce.
 * EIP-5267 `eip712Domain()` first; otherwise `name()` with `version()` (or the common "1" / "2") checked against
 * `DOMAIN_SEPARATOR()`, so a domain is returned only when it hashes to the token's own separator.
 */
export async function readPermitDomain(
  client: Client,
  { token, chainId }: { token: Address; chainId: number },
): Promise<TokenDomain | undefined> {
  const announced = await readOptional(() => readContract(client, { address: token, abi: domainAbi, functionName: 'eip712Domain' }))
  if (announced) {
    const [fields, name, version, domainChainId, verifyingContract] = announced
    if (fields !== nameVersionChainContract || Number(domainChainId) !== chainId) return undefined
    return { name, version, chainId, verifyingContract }
  }
  const separator = await readOptional(() => readContract(client, { address: token, abi: domainAbi, functionName: 'DOMAIN_SEPARATOR' }))
  if (!separator) return undefined
  const [name, version] = await Promise.all([
    readOptional(() => readContract(client, { address: token, abi: domainAbi, functionName: 'name' })),
    readOptional(() => readContract(client, { address: token, abi: domainAbi, functionName: 'version' })),
  ])
  if (name === undefined) return undefined
  for (const candidate of version === undefined ? ['1', '2'] : [version]) {
    const domain: TokenDomain = { name, version: candidate, chainId, verifyingContract: token }
    if (sameHex(domainSeparator({ domain }), separator)) return domain
  }
  return undefined
}

function sameHex(a: Hex, b: Hex): boolean {
  return a.toLowerCase() === b.toLowerCase()
}
