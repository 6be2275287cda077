import { type Address, erc20Abi, maxUint256, parseAbi, parseEther, parseUnits } from 'viem'
import type { DeployedToken } from '../chains/fixture.js'
import { sendFixtureCall } from '../chains/send.js'
import type { ChainVenue } from '../venue/chain-venue.js'

const mintAbi = parseAbi(['function mint(address to, uint256 amount)'])
// No bool return: USDT-style tokens return nothing, and sendFixtureCall only encodes the call.
const approveAbi = parseAbi(['function approve(address spender, uint256 amount)'])
const depositAbi = parseAbi(['function deposit() payable'])

/** Whole tokens a counterparty keeps at least (WETH is wrapped from ether, the rest minted by the operator). */
const reserveWholeTokens = { wrappedNative: 10_000n, other: 1_000_000n } as const
const etherReserve = parseEther('1000000')

/** Impersonates a counterparty account and gives it ether, so it can send transactions. */
export async function activateCounterparty(chain: ChainVenue, account: Address): Promise<void> {
  await chain.clients.testClient.impersonateAccount({ address: account })
  const balance = await chain.clients.publicClient.getBalance({ address: account })
  if (balance < etherReserve) await chain.clients.testClient.setBalance({ address: account, value: etherReserve })
}

/**
 * Makes sure `account` holds at least `needed` of `token` (plus its reserve when topping up) and has approved the
 * RFQ contract for it: operator mint, or wrapping ether for the wrapped-native token. Returns false for a token
 * the sandbox cannot mint.
 */
export async function ensureCounterpartyFunds(
  chain: ChainVenue,
  account: Address,
  tokenAddress: Address,
  needed: bigint,
): Promise<boolean> {
  const { publicClient, testClient } = chain.clients
  const rfq = chain.fixture.contracts.rfq
  const token = chain.tokenByAddress(tokenAddress)
  const [balance, allowance] = await Promise.all([
    publicClient.readContract({ address: tokenAddress, abi: erc20Abi, functionName: 'balanceOf', args: [account] }),
    publicClient.readContract({ address: tokenAddress, abi: erc20Abi, functionName: 'allowance', args: [account, rfq] }),
  ])
  if (balance < needed) {
    if (!token) return false
    const amount = needed - balance + reserveOf(token)
    if (token.kind === 'wrappedNative') {
      const ether = await publicClient.getBalance({ address: account })
      await testClient.setBalance({ address: account, value: ether + amount })
      await sendFixtureCall(chain.clients, { from: account, to: token.address, abi: depositAbi, functionName: 'deposit', value: amount })
    } else {
      await sendFixtureCall(chain.clients, {
        from: chain.fixture.operator,
        to: token.address,
        abi: mintAbi,
        functionName: 'mint',
        args: [account, amount],
      })
    }
  }
  if (allowance < needed || allowance === 0n) {
    // A USDT-style token refuses a change from one non-zero allowance to another.
    if (allowance > 0n)
      await sendFixtureCall(chain.clients, { from: account, to: tokenAddress, abi: approveAbi, functionName: 'approve', args: [rfq, 0n] })
    await sendFixtureCall(chain.clients, {
      from: account,
      to: tokenAddress,
      abi: approveAbi,
      functionName: 'approve',
      args: [rfq, maxUint256],
    })
  }
  return true
}

function reserveOf(token: DeployedToken): bigint {
  const whole = token.kind === 'wrappedNative' ? reserveWholeTokens.wrappedNative : reserveWholeTokens.other
  return parseUnits(whole.toString(), token.decimals)
}
