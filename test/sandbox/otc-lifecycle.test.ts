import { type Address, erc20Abi, type Hex, parseAbi, parseEther, parseUnits, zeroAddress } from 'viem'
import { describe, expect, it } from 'vitest'
import type { RfqOrder } from '../../src/protocol/rfq-order.js'
import { getContractArtifact } from '../../src/sandbox/contracts/compile.js'
import { otcCounterpartyAddresses } from '../../src/sandbox/otc/otc-counterparty-accounts.js'
import {
  approveRfq,
  asOtcOrder,
  balanceOf,
  developmentAccount,
  makeRfqOrder,
  postOtcOrder,
  rfqDomain,
  sandboxNow,
  sandboxToken,
  sendAndWait,
  signRfqOrder,
  type UserWallet,
  userWallet,
  waitForOrder,
} from '../helpers/otc.js'
import { request, useSandbox } from '../helpers/sandbox.js'

const chainId = 1
const rfqAbi = getContractArtifact('RfqSettlement').abi

describe('OTC order lifecycle', () => {
  const sandbox = useSandbox({ chainIds: [1] })
  const [counterparty0, counterparty1] = otcCounterpartyAddresses() as [Address, Address, Address]
  const token = (symbol: string) => sandboxToken(sandbox(), chainId, symbol)
  const wallet = (index: number) => userWallet(sandbox(), chainId, index)
  const order = (
    makerIndex: number,
    fields: Partial<RfqOrder> & Pick<RfqOrder, 'makerAsset' | 'takerAsset' | 'makerAmount' | 'takerAmount'>,
  ) =>
    makeRfqOrder({
      expiry: sandboxNow(sandbox()) + 3_600n,
      maker: developmentAccount(makerIndex).address,
      taker: developmentAccount(2).address,
      ...fields,
    })
  /** Token deltas of `holder` caused by the transaction mined in `blockNumber` (automine: one per block). */
  const deltaAt = async (wallet: UserWallet, tokenAddress: Address, holder: Address, blockNumber: bigint) =>
    (await balanceOf(wallet, tokenAddress, holder, blockNumber)) - (await balanceOf(wallet, tokenAddress, holder, blockNumber - 1n))

  it('is filled by the named sandbox counterparty, moving exactly makerAmount and takerAmount on-chain', async () => {
    const maker = wallet(3)
    await approveRfq(sandbox(), maker, token('USDC'))
    const signed = order(3, {
      makerAsset: token('USDC'),
      takerAsset: token('WETH'),
      makerAmount: parseUnits('1500', 6),
      takerAmount: parseEther('0.75'),
      taker: counterparty0,
    })
    const posted = asOtcOrder(await postOtcOrder(sandbox(), 3, signed))
    expect(posted.state).toBe('PENDING')

    const filled = await waitForOrder(sandbox(), posted.orderHash, (current) => current.state !== 'PENDING')
    expect(filled).toMatchObject({ state: 'FULFILLED', fillableBalance: '0', reservedBalance: '0', swappableBalance: '0' })
    const receipt = await maker.getTransactionReceipt({ hash: filled.transactionHash as Hex })
    expect(receipt.from.toLowerCase()).toBe(counterparty0.toLowerCase())
    const block = receipt.blockNumber
    expect(await deltaAt(maker, token('USDC'), maker.account.address, block)).toBe(-signed.makerAmount)
    expect(await deltaAt(maker, token('WETH'), maker.account.address, block)).toBe(signed.takerAmount)
    expect(await deltaAt(maker, token('USDC'), counterparty0, block)).toBe(signed.makerAmount)
    expect(await deltaAt(maker, token('WETH'), counterparty0, block)).toBe(-signed.takerAmount)
  })

  it('stores an order SUSPENDED without RFQ allowance, resumes it PENDING after the approval, then the counterparty fills it', async () => {
    const maker = wallet(4)
    const signed = order(4, {
      makerAsset: token('DAI'),
      takerAsset: token('USDC'),
      makerAmount: parseEther('500'),
      takerAmount: parseUnits('499', 6),
      taker: counterparty1,
    })
    const posted = asOtcOrder(await postOtcOrder(sandbox(), 4, signed))
    expect(posted).toMatchObject({
      state: 'SUSPENDED',
      makerBalance: '0',
      swappableBalance: '0',
      fillableBalance: signed.makerAmount.toString(),
    })

    // The counterparty leaves a suspended order alone (its fill delay is 2 sandbox seconds).
    await new Promise((resolve) => setTimeout(resolve, 2_500))
    expect(asOtcOrder(await request(sandbox().url, 'GET', `/ft/order/${posted.orderHash}`)).state).toBe('SUSPENDED')

    await approveRfq(sandbox(), maker, token('DAI'))
    const resumed = await waitForOrder(sandbox(), posted.orderHash, (current) => current.state !== 'SUSPENDED')
    expect(resumed).toMatchObject({
      state: 'PENDING',
      makerBalance: signed.makerAmount.toString(),
      swappableBalance: signed.makerAmount.toString(),
    })
    const filled = await waitForOrder(sandbox(), posted.orderHash, (current) => current.state !== 'PENDING')
    expect(filled.state).toBe('FULFILLED')
    expect(await balanceOf(maker, token('USDC'), counterparty1)).toBeGreaterThan(0n)
  })

  it('stores an order SUSPENDED when makerAmount exceeds the balance, and follows the balance and the allowance', async () => {
    const maker = wallet(5)
    await approveRfq(sandbox(), maker, token('WBTC'))
    const balance = await balanceOf(maker, token('WBTC'), maker.account.address)
    const signed = order(5, {
      makerAsset: token('WBTC'),
      takerAsset: token('USDC'),
      makerAmount: balance + 5n * 10n ** 8n,
      takerAmount: 1n,
    })
    const posted = asOtcOrder(await postOtcOrder(sandbox(), 5, signed))
    expect(posted).toMatchObject({ state: 'SUSPENDED', makerBalance: balance.toString(), swappableBalance: '0' })

    await sendAndWait(wallet(6), {
      address: token('WBTC'),
      abi: erc20Abi,
      functionName: 'transfer',
      args: [maker.account.address, 5n * 10n ** 8n],
      account: wallet(6).account,
      chain: wallet(6).chain,
    })
    const funded = await waitForOrder(sandbox(), posted.orderHash, (current) => current.state !== 'SUSPENDED')
    expect(funded).toMatchObject({ state: 'PENDING', makerBalance: signed.makerAmount.toString() })

    await approveRfq(sandbox(), maker, token('WBTC'), 0n)
    const revoked = await waitForOrder(sandbox(), posted.orderHash, (current) => current.state !== 'PENDING')
    expect(revoked).toMatchObject({ state: 'SUSPENDED', makerBalance: '0', reservedBalance: signed.makerAmount.toString() })
  })

  it('marks an order CANCELLED after the maker cancels it on-chain', async () => {
    const maker = wallet(7)
    await approveRfq(sandbox(), maker, token('USDC'))
    const signed = order(7, {
      makerAsset: token('USDC'),
      takerAsset: token('WETH'),
      makerAmount: parseUnits('100', 6),
      takerAmount: parseEther('0.05'),
    })
    const posted = asOtcOrder(await postOtcOrder(sandbox(), 7, signed))
    const receipt = await sendAndWait(maker, {
      address: rfqDomain(sandbox(), chainId).verifyingContract,
      abi: rfqAbi,
      functionName: 'cancelOrder',
      args: [posted.orderHash],
      account: maker.account,
      chain: maker.chain,
    })
    const cancelled = await waitForOrder(sandbox(), posted.orderHash, (current) => current.state !== 'PENDING')
    expect(cancelled).toMatchObject({
      state: 'CANCELLED',
      transactionHash: receipt.transactionHash,
      reservedBalance: '0',
      swappableBalance: '0',
      fillableBalance: signed.makerAmount.toString(),
    })
    expect(cancelled.updatedAt).toBeGreaterThanOrEqual(posted.createdAt as number)
  })

  it('ignores a cancellation of the same hash by another account than the maker', async () => {
    const signed = order(7, {
      makerAsset: token('USDC'),
      takerAsset: token('WETH'),
      makerAmount: parseUnits('10', 6),
      takerAmount: parseEther('0.005'),
    })
    const posted = asOtcOrder(await postOtcOrder(sandbox(), 7, signed))
    const outsider = wallet(2)
    await sendAndWait(outsider, {
      address: rfqDomain(sandbox(), chainId).verifyingContract,
      abi: rfqAbi,
      functionName: 'cancelOrder',
      args: [posted.orderHash],
      account: outsider.account,
      chain: outsider.chain,
    })
    // Five tracking steps later the outsider's block has been read.
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    const current = asOtcOrder(await request(sandbox().url, 'GET', `/ft/order/${posted.orderHash}`))
    expect(current.state).toBe('PENDING')
    expect(current.transactionHash).toBeNull()
  })

  it('reduces fillableBalance on a partial fill of an open order and becomes FULFILLED on the last fill', async () => {
    const maker = wallet(8)
    const taker = wallet(9)
    await approveRfq(sandbox(), maker, token('USDC'))
    await approveRfq(sandbox(), taker, token('WETH'))
    const signed = order(8, {
      makerAsset: token('USDC'),
      takerAsset: token('WETH'),
      makerAmount: parseUnits('1000', 6),
      takerAmount: parseEther('1'),
      taker: zeroAddress,
    })
    const signature = await signRfqOrder(8, signed, rfqDomain(sandbox(), chainId))
    const posted = asOtcOrder(await postOtcOrder(sandbox(), 8, signed))
    expect(posted.type).toBe('LIMIT')
    const fill = (takerAmount: bigint) =>
      sendAndWait(taker, {
        address: rfqDomain(sandbox(), chainId).verifyingContract,
        abi: rfqAbi,
        functionName: 'partialFillOrder',
        args: [signed, signature, takerAmount],
        account: taker.account,
        chain: taker.chain,
      })

    const first = await fill(parseEther('0.25'))
    const partial = await waitForOrder(sandbox(), posted.orderHash, (current) => current.fillableBalance !== posted.fillableBalance)
    expect(partial).toMatchObject({
      state: 'PENDING',
      fillableBalance: parseUnits('750', 6).toString(),
      reservedBalance: parseUnits('750', 6).toString(),
      swappableBalance: parseUnits('750', 6).toString(),
      transactionHash: first.transactionHash,
    })

    const last = await fill(parseEther('0.75'))
    const done = await waitForOrder(sandbox(), posted.orderHash, (current) => current.state !== 'PENDING')
    expect(done).toMatchObject({ state: 'FULFILLED', fillableBalance: '0', transactionHash: last.transactionHash })
  })

  it('reports per token what the account live orders reserve at /ft/fillablebalance', async () => {
    const maker = wallet(0)
    await approveRfq(sandbox(), maker, token('USDC'))
    await approveRfq(sandbox(), maker, token('DAI'))
    const usdc = token('USDC').toLowerCase()
    const dai = token('DAI').toLowerCase()
    const small = order(0, {
      makerAsset: token('USDC'),
      takerAsset: token('WETH'),
      makerAmount: 100_000_000n,
      takerAmount: parseEther('0.05'),
    })
    const postedSmall = asOtcOrder(await postOtcOrder(sandbox(), 0, small))
    await postOtcOrder(
      sandbox(),
      0,
      order(0, { makerAsset: token('USDC'), takerAsset: token('WETH'), makerAmount: 200_000_000n, takerAmount: parseEther('0.1') }),
    )
    await postOtcOrder(
      sandbox(),
      0,
      order(0, { makerAsset: token('DAI'), takerAsset: token('WETH'), makerAmount: parseEther('50'), takerAmount: parseEther('0.02') }),
    )
    const account = maker.account.address

    const all = await request(sandbox().url, 'GET', `/ft/fillablebalance/${chainId}/${account}`)
    expect(all.json).toEqual({ [usdc]: '300000000', [dai]: parseEther('50').toString() })
    const scoped = await request(sandbox().url, 'GET', `/ft/fillablebalance/${chainId}/${account}/${token('USDC')}`)
    expect(scoped.json).toEqual({ [usdc]: '300000000' })
    const none = await request(sandbox().url, 'GET', `/ft/fillablebalance/${chainId}/${account}/${token('WBTC')}`)
    expect(none.json).toEqual({ [token('WBTC').toLowerCase()]: '0' })

    await sendAndWait(maker, {
      address: rfqDomain(sandbox(), chainId).verifyingContract,
      abi: parseAbi(['function cancelOrder(bytes32 orderHash)']),
      functionName: 'cancelOrder',
      args: [postedSmall.orderHash],
      account: maker.account,
      chain: maker.chain,
    })
    await waitForOrder(sandbox(), postedSmall.orderHash, (current) => current.state === 'CANCELLED')
    const after = await request(sandbox().url, 'GET', `/ft/fillablebalance/${chainId}/${account}/${token('USDC')}`)
    expect(after.json).toEqual({ [usdc]: '200000000' })
  })
})
