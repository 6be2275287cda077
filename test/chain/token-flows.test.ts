import { type Address, maxUint256, padHex, parseEther, parseUnits, type TransactionReceipt, toEventSelector } from 'viem'
import { describe, expect, it } from 'vitest'
import { nativeToken, readAccountFlows, readTransactionFlows } from '../../src/chain/token-flows.js'
import { marketRouterAddress, nativeTokenPlaceholder } from '../../src/protocol/addresses.js'
import { waitForLocalReceipt } from '../../src/sandbox/chains/receipt.js'
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js'
import {
  approveToken,
  balanceOf,
  broadcast,
  gasPaid,
  type MarketWallet,
  marketWallet,
  prepareMarketSwap,
  tokenAddress,
} from '../helpers/market.js'
import { useSandbox } from '../helpers/sandbox.js'

const chainId = 1
const transferTopic = toEventSelector('Transfer(address,address,uint256)')

/** Quotes, builds and broadcasts a SELL on the sandbox; returns the route and the receipt (reverted or not). */
async function marketSell(
  sandbox: RunningSandbox,
  wallet: MarketWallet,
  query: { srcToken: string; destToken: string; amount: bigint },
  gas?: bigint,
) {
  const { route, envelope } = await prepareMarketSwap(sandbox, chainId, wallet, {
    srcToken: query.srcToken,
    destToken: query.destToken,
    amount: query.amount.toString(),
  })
  const receipt = await broadcast(wallet, envelope, gas)
  return { route, envelope, receipt }
}

/** Balances of the given tokens (and native) before and after `action`. */
async function measure<T>(wallet: MarketWallet, tokens: Address[], action: () => Promise<T>) {
  const read = () => Promise.all([nativeTokenPlaceholder, ...tokens].map((token) => balanceOf(wallet, token)))
  const before = await read()
  const result = await action()
  const after = await read()
  return { result, change: (index: number) => (after[index] ?? 0n) - (before[index] ?? 0n) }
}

function firstTransferFrom(receipt: TransactionReceipt, owner: Address): number | undefined {
  return receipt.logs.find(
    (log) => log.topics[0] === transferTopic && log.topics[1] === padHex(owner.toLowerCase() as Address, { size: 32 }),
  )?.logIndex
}

describe('readTransactionFlows and readAccountFlows', () => {
  const sandbox = useSandbox({ chainIds: [chainId], market: 'still' })

  it('reads the ERC-20 amounts, the first log index and the gas cost of a Market swap', async () => {
    const wallet = marketWallet(sandbox(), chainId, 1)
    const usdc = tokenAddress(sandbox(), chainId, 'USDC')
    const wbtc = tokenAddress(sandbox(), chainId, 'WBTC')
    await approveToken(wallet, usdc, marketRouterAddress, maxUint256)
    const { result, change } = await measure(wallet, [usdc, wbtc], () =>
      marketSell(sandbox(), wallet, { srcToken: 'USDC', destToken: 'WBTC', amount: parseUnits('2500', 6) }),
    )
    const { receipt, route } = result
    expect(receipt.status).toBe('success')

    const flows = await readTransactionFlows(wallet, receipt.transactionHash)
    expect(flows).toMatchObject({
      txHash: receipt.transactionHash,
      blockNumber: receipt.blockNumber,
      status: 'success',
      from: wallet.account.address.toLowerCase(),
      to: marketRouterAddress.toLowerCase(),
      value: 0n,
      l1Fee: 0n,
      gasCost: gasPaid(receipt),
    })
    expect(flows.transfers.map((transfer) => transfer.logIndex)).toEqual(
      receipt.logs.filter((log) => log.topics[0] === transferTopic).map((log) => log.logIndex),
    )
    expect(flows.transfers.every((transfer) => transfer.token === transfer.token.toLowerCase())).toBe(true)

    const account = await readAccountFlows(wallet, flows, wallet.account.address)
    expect(account.spent).toEqual(
      new Map([
        [usdc.toLowerCase(), { amount: BigInt(route.srcAmount), firstLogIndex: firstTransferFrom(receipt, wallet.account.address) }],
      ]),
    )
    expect(account.spent.get(usdc.toLowerCase() as Address)?.amount).toBe(-change(1))
    expect(account.received.get(wbtc.toLowerCase() as Address)?.amount).toBe(change(2))
    expect(account.received.get(wbtc.toLowerCase() as Address)?.amount).toBe(BigInt(route.destAmount))
    expect(account.nativeIn).toBe(0n)
    expect(account.received.has(nativeToken)).toBe(false)
    expect(account.gasCost).toBe(-change(0))
  })

  it('counts the value of a native sale as spent and the gas apart', async () => {
    const wallet = marketWallet(sandbox(), chainId, 2)
    const usdc = tokenAddress(sandbox(), chainId, 'USDC')
    const { result, change } = await measure(wallet, [usdc], () =>
      marketSell(sandbox(), wallet, { srcToken: 'ETH', destToken: 'USDC', amount: parseEther('1.5') }),
    )
    expect(result.receipt.status).toBe('success')
    const flows = await readTransactionFlows(wallet, result.receipt.transactionHash)
    expect(flows.value).toBe(parseEther('1.5'))

    const account = await readAccountFlows(wallet, flows, wallet.account.address)
    expect(account.spent.get(nativeToken)).toEqual({ amount: parseEther('1.5'), firstLogIndex: undefined })
    expect(account.spent.get(nativeToken)?.amount).toBe(-change(0) - account.gasCost)
    expect(account.received.get(usdc.toLowerCase() as Address)?.amount).toBe(change(1))
    expect(account.nativeIn).toBe(0n)
  })

  it('measures native received through the router as the balance change plus the gas', async () => {
    const wallet = marketWallet(sandbox(), chainId, 3)
    const usdc = tokenAddress(sandbox(), chainId, 'USDC')
    await approveToken(wallet, usdc, marketRouterAddress, maxUint256)
    const { result, change } = await measure(wallet, [usdc], () =>
      marketSell(sandbox(), wallet, { srcToken: 'USDC', destToken: 'ETH', amount: parseUnits('3000', 6) }),
    )
    expect(result.receipt.status).toBe('success')
    const flows = await readTransactionFlows(wallet, result.receipt.transactionHash)

    const account = await readAccountFlows(wallet, flows, wallet.account.address)
    expect(account.nativeIn).toBe(BigInt(result.route.destAmount))
    expect(account.nativeIn).toBe(change(0) + gasPaid(result.receipt))
    expect(account.received.get(nativeToken)).toEqual({ amount: BigInt(result.route.destAmount), firstLogIndex: undefined })
    expect(account.spent.get(usdc.toLowerCase() as Address)?.amount).toBe(-change(1))
    expect(account.spent.has(nativeToken)).toBe(false)
  })

  it('measures native received by an account that did not send the transaction, which paid no gas', async () => {
    const sender = marketWallet(sandbox(), chainId, 4)
    const recipient = marketWallet(sandbox(), chainId, 5)
    const hash = await sender.sendTransaction({
      account: sender.account,
      chain: sender.chain,
      to: recipient.account.address,
      value: parseEther('1.234'),
    })
    await waitForLocalReceipt(sender, hash)
    const flows = await readTransactionFlows(sender, hash)
    expect(flows.transfers).toEqual([])

    const received = await readAccountFlows(sender, flows, recipient.account.address)
    expect(received).toMatchObject({ nativeIn: parseEther('1.234'), gasCost: 0n })
    expect(received.spent.size).toBe(0)
    const sent = await readAccountFlows(sender, flows, sender.account.address)
    expect(sent).toMatchObject({ nativeIn: 0n, gasCost: flows.gasCost })
    expect(sent.spent.get(nativeToken)?.amount).toBe(parseEther('1.234'))
  })

  it('leaves native received undefined when the account sent two transactions in the block, or when not asked', async () => {
    const wallet = marketWallet(sandbox(), chainId, 6)
    const recipient = marketWallet(sandbox(), chainId, 7).account.address
    const { testClient } = sandbox().localChains.chain(chainId).clients
    const nonce = await wallet.getTransactionCount({ address: wallet.account.address })
    await testClient.setAutomine(false)
    let hashes: `0x${string}`[]
    try {
      hashes = await Promise.all(
        [0, 1].map((offset) =>
          wallet.sendTransaction({
            account: wallet.account,
            chain: wallet.chain,
            to: recipient,
            value: parseEther('0.1'),
            nonce: nonce + offset,
            gas: 21_000n,
          }),
        ),
      )
      await testClient.mine({ blocks: 1 })
    } finally {
      await testClient.setAutomine(true)
    }
    const receipts = await Promise.all(hashes.map((hash) => waitForLocalReceipt(wallet, hash)))
    expect(receipts[0]?.blockNumber).toBe(receipts[1]?.blockNumber)

    const flows = await readTransactionFlows(wallet, receipts[0]?.transactionHash ?? '0x')
    const account = await readAccountFlows(wallet, flows, wallet.account.address)
    expect(account.nativeIn).toBeUndefined()
    expect(account.received.has(nativeToken)).toBe(false)
    expect(account.spent.get(nativeToken)?.amount).toBe(parseEther('0.1'))
    const unmeasured = await readAccountFlows(wallet, flows, recipient, { measureNativeIn: false })
    expect(unmeasured.nativeIn).toBeUndefined()
  })

  it('reports a reverted transaction with its gas, no transfers and its value not spent', async () => {
    const wallet = marketWallet(sandbox(), chainId, 8)
    const usdc = tokenAddress(sandbox(), chainId, 'USDC')
    const { result, change } = await measure(wallet, [usdc], () =>
      marketSell(sandbox(), wallet, { srcToken: 'ETH', destToken: 'USDC', amount: parseEther('0.5') }, 60_000n),
    )
    expect(result.receipt.status).toBe('reverted')
    const flows = await readTransactionFlows(wallet, result.receipt.transactionHash)
    expect(flows).toMatchObject({ status: 'reverted', value: parseEther('0.5'), transfers: [], gasCost: gasPaid(result.receipt) })
    expect(flows.gasCost).toBeGreaterThan(0n)

    const account = await readAccountFlows(wallet, flows, wallet.account.address)
    expect(account.spent.size).toBe(0)
    expect(account.received.size).toBe(0)
    expect(account.nativeIn).toBe(0n)
    expect(account.gasCost).toBe(-change(0))
    expect(change(1)).toBe(0n)
  })
})
