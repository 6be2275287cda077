import {
  type Abi,
  type Address,
  encodeAbiParameters,
  erc20Abi,
  type Hex,
  keccak256,
  maxUint256,
  numberToHex,
  parseAbi,
  parseEther,
  parseUnits,
} from 'viem'
import { tokenCatalogue } from '../../chains/catalogue.js'
import type { DeployedToken } from '../../chains/fixture.js'
import { type FixtureCall, sendFixtureCall, sendFixtureCalls } from '../../chains/send.js'
import { getContractArtifact } from '../../contracts/compile.js'
import type { ChainVenue } from '../../venue/chain-venue.js'

/** Value of each token an agent starts with on every chain, in USD: deep enough that no sandbox fill runs short. */
const inventoryUsd = 10_000_000_000
const sandboxActorEther = parseEther('1000000000')
const mintAbi = parseAbi(['function mint(address to, uint256 amount)'])
const depositAbi = parseAbi(['function deposit() payable'])
/** `allowance` mapping slot of the sandbox tokens (SandboxErc20Core storage layout). */
const allowanceSlot = 6n
const allowanceWriteAttempts = 5

/**
 * Makes the agents able to settle on a chain with Delta: impersonated, funded with ether, a deep inventory of every
 * token (minted by the operator; WETH wrapped from ether), the Delta contract and the Market router approved for
 * every token, and registered with `DeltaSettlement.setAgent`.
 */
export async function provisionAgents(chain: ChainVenue, agents: readonly Address[]): Promise<void> {
  const delta = chain.fixture.contracts.delta
  if (!delta) return
  const { clients, fixture } = chain
  await Promise.all(agents.map((agent) => impersonateWithEther(chain, agent)))
  const operatorCalls: FixtureCall[] = []
  for (const token of fixture.tokens) {
    if (token.kind === 'wrappedNative') continue
    for (const agent of agents) {
      operatorCalls.push({
        from: fixture.operator,
        to: token.address,
        abi: mintAbi,
        functionName: 'mint',
        args: [agent, inventoryOf(token)],
      })
    }
  }
  const deltaAbi = getContractArtifact('DeltaSettlement').abi
  for (const agent of agents)
    operatorCalls.push({ from: fixture.operator, to: delta, abi: deltaAbi, functionName: 'setAgent', args: [agent, true] })
  await sendFixtureCalls(clients, operatorCalls)
  const spenders = [delta, fixture.contracts.marketRouter]
  await Promise.all(
    agents.map(async (agent) => {
      const weth = chain.wrappedNative
      await sendFixtureCall(clients, { from: agent, to: weth.address, abi: depositAbi, functionName: 'deposit', value: inventoryOf(weth) })
      for (const token of fixture.tokens) {
        for (const spender of spenders) {
          if (token.kind !== 'permitOnly') await sendFixtureCall(clients, approveCall(agent, token.address, spender))
        }
      }
    }),
  )
  // Written once no transaction of the set-up is in flight: a block mined while a slot is written can commit the
  // token's storage as it stood before the write, and the allowance reads back as 0.
  for (const token of fixture.tokens) {
    if (token.kind !== 'permitOnly') continue
    for (const agent of agents) for (const spender of spenders) await writeAllowance(chain, token.address, agent, spender)
  }
}

/** Impersonates a sandbox actor (agent, bridge) and gives it ether for gas, native deliveries and wrapping. */
export async function impersonateWithEther(chain: ChainVenue, address: Address): Promise<void> {
  await chain.clients.testClient.impersonateAccount({ address })
  await chain.clients.testClient.setBalance({ address, value: sandboxActorEther })
}

export function inventoryOf(token: DeployedToken): bigint {
  const price = tokenCatalogue.find((spec) => spec.symbol === token.symbol)?.priceUsd ?? 1
  return parseUnits((inventoryUsd / price).toFixed(0), token.decimals)
}

function approveCall(from: Address, token: Address, spender: Address): FixtureCall {
  return { from, to: token, abi: erc20Abi as Abi, functionName: 'approve', args: [spender, maxUint256] }
}

/**
 * The permit-only token refuses `approve` except towards Permit2 and the agents have no keys to sign its permit, so
 * their allowance is written into the token's storage.
 */
async function writeAllowance(chain: ChainVenue, token: Address, owner: Address, spender: Address): Promise<void> {
  const inner = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [owner, allowanceSlot]))
  const index = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'bytes32' }], [spender, inner]))
  // Read back, and written again if a concurrent block lost it; a value that never sticks means the slot is wrong.
  for (let attempt = 1; ; attempt++) {
    await chain.clients.testClient.setStorageAt({ address: token, index, value: numberToHex(maxUint256, { size: 32 }) as Hex })
    const allowance = await chain.clients.publicClient.readContract({
      address: token,
      abi: erc20Abi,
      functionName: 'allowance',
      args: [owner, spender],
    })
    if (allowance === maxUint256) return
    if (attempt === allowanceWriteAttempts) {
      throw new Error(
        `could not write the ${token} allowance of ${owner} for ${spender}: read back ${allowance} after ${attempt} writes (storage layout changed?)`,
      )
    }
  }
}
