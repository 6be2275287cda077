import { type Address, encodeFunctionData, erc20Abi, type Hex, maxUint256 } from 'viem'
import { expect } from 'vitest'
import { marketRouterAddress } from '../../src/protocol/addresses.js'
import { sandboxOperator } from '../../src/sandbox/chains/catalogue.js'
import { placeContract } from '../../src/sandbox/chains/place-contract.js'
import { waitForLocalReceipt } from '../../src/sandbox/chains/receipt.js'
import { sendFixtureCall } from '../../src/sandbox/chains/send.js'
import { getContractArtifact } from '../../src/sandbox/contracts/compile.js'
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js'
import { type MarketWallet, tokenAddress } from '../helpers/market.js'

const walletAbi = getContractArtifact('Eip1271Wallet').abi

/**
 * An intermediary contract (a smart wallet) at `address`, run by `signer`: it is the Market router's msg.sender while
 * the signer sends the transactions (POST /transactions' txOrigin). The signer funds it with `funds` (raw units by
 * symbol), each approved from it to the router.
 */
export async function placeIntermediary(
  sandbox: RunningSandbox,
  chainId: number,
  signer: MarketWallet,
  address: Address,
  funds: Record<string, bigint>,
): Promise<void> {
  const chain = sandbox.venue.chains.get(chainId)
  if (!chain) throw new Error(`no chain ${chainId}`)
  await placeContract(chain.clients, { name: 'Eip1271Wallet', address })
  await sendFixtureCall(chain.clients, {
    from: sandboxOperator,
    to: address,
    abi: walletAbi,
    functionName: 'initialize',
    args: [signer.account.address],
  })
  const send = async (to: Address, data: Hex) => {
    const hash = await signer.sendTransaction({ account: signer.account, chain: signer.chain, to, data })
    expect((await waitForLocalReceipt(signer, hash)).status).toBe('success')
  }
  const approve = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [marketRouterAddress, maxUint256] })
  for (const [symbol, amount] of Object.entries(funds)) {
    const token = tokenAddress(sandbox, chainId, symbol)
    await send(token, encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [address, amount] }))
    await send(address, encodeFunctionData({ abi: walletAbi, functionName: 'execute', args: [token, 0n, approve] }))
  }
}

/** Has the intermediary send `data` to `to` for its signer; returns the receipt's status. */
export async function sendThroughIntermediary(signer: MarketWallet, intermediary: Address, to: Address, data: Hex): Promise<string> {
  const hash = await signer.writeContract({ address: intermediary, abi: walletAbi, functionName: 'execute', args: [to, 0n, data] })
  return (await waitForLocalReceipt(signer, hash)).status
}
