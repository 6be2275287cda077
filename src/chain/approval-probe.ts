import { type Address, type Client, concat, decodeAbiParameters, encodeAbiParameters, type Hex } from 'viem'
import { call } from 'viem/actions'
import { permit2Address } from '../protocol/addresses.js'

/** Creation code of ApprovalProbe.sol (next to this file); test/chain/approval-probe.test.ts recompiles and compares. */
export const approvalProbeBytecode: Hex =
  '0x608060405234801561001057600080fd5b5060405161026038038061026083398101604081905261002f916101d4565b600061003d848460016100a5565b905060008180156100555750610055858560026100a5565b90506000610065868560016100a5565b6040805185151560208201528415159181019190915281151560608201529091506000906080016040516020818303038152906040529050805160208201f35b6000836001600160a01b03163b6000036100c1575060006101b1565b604080516001600160a01b038581166024830152604480830186905283518084039091018152606490920183526020820180516001600160e01b031663095ea7b360e01b179052915160009283929088169161011d9190610217565b6000604051808303816000865af19150503d806000811461015a576040519150601f19603f3d011682016040523d82523d6000602084013e61015f565b606091505b509150915081610174576000925050506101b1565b8051600003610188576001925050506101b1565b805160201480156101ac5750808060200190518101906101a89190610246565b6001145b925050505b9392505050565b80516001600160a01b03811681146101cf57600080fd5b919050565b6000806000606084860312156101e957600080fd5b6101f2846101b8565b9250610200602085016101b8565b915061020e604085016101b8565b90509250925092565b6000825160005b81811015610238576020818601810151858301520161021e565b506000920191825250919050565b60006020828403121561025857600080fd5b505191905056fe'

export type ApprovalProbeResult = {
  /** approve(spender, 1) from no allowance succeeded. */
  fromZero: boolean
  /** approve(spender, 2) right after it succeeded. */
  nonZeroToNonZero: boolean
  /** approve(Permit2, 1) succeeded. */
  toPermit2: boolean
}

/**
 * Runs ApprovalProbe's creation code in one eth_call (no `to`): it approves from its own fresh address, so the
 * answer is the token's real behaviour, and nothing is written to the chain. Works on any node that runs eth_call
 * for contract creation (all mainstream clients and anvil).
 */
export async function probeApprovals(
  client: Client,
  { token, spender }: { token: Address; spender: Address },
): Promise<ApprovalProbeResult> {
  const constructorArguments = encodeAbiParameters(
    [{ type: 'address' }, { type: 'address' }, { type: 'address' }],
    [token, spender, permit2Address],
  )
  const { data } = await call(client, { data: concat([approvalProbeBytecode, constructorArguments]) })
  const [fromZero, nonZeroToNonZero, toPermit2] = decodeAbiParameters([{ type: 'bool' }, { type: 'bool' }, { type: 'bool' }], data ?? '0x')
  return { fromZero, nonZeroToNonZero, toPermit2 }
}
