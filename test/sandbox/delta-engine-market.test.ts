import { type Address, erc20Abi, type Hex, maxUint256 } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { deltaAddress, nativeTokenPlaceholder } from '../../src/protocol/addresses.js'
import { buildDeltaOrderTypedData } from '../../src/protocol/delta-order.js'
import { encodeDeltaPermit } from '../../src/protocol/delta-permit.js'
import { packPartnerAndFee } from '../../src/protocol/partner-and-fee.js'
import { toCompactSignature } from '../../src/protocol/signature.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { sandboxAddress } from '../../src/sandbox/chains/catalogue.js'
import { waitForLocalReceipt } from '../../src/sandbox/chains/receipt.js'
import { agentProfiles } from '../../src/sandbox/delta/agents.js'
import { useSandbox } from '../helpers/sandbox.js'
import {
  addSignedOrder,
  approveDelta,
  balanceOf,
  deltaAbi,
  ownerWallet,
  poolQuote,
  sandboxSeconds,
  standardOrder,
  token,
  waitFor,
  waitForStatus,
} from './delta-engine-fixture.js'

const chainId = 1
const address = (index: number) => developmentAccounts[index]?.address as Address
const receiver = sandboxAddress('test.delta-engine.receiver')
const partner = sandboxAddress('test.delta-engine.partner')

describe('Delta engine: market orders', () => {
  const sandbox = useSandbox({ chainIds: [chainId], speed: 60, market: 'still' })

  it('registers every agent with the Delta contract, with inventory and approvals', async () => {
    const chain = sandbox().venue.chains.get(chainId)
    const weth = token(sandbox(), chainId, 'WETH')
    expect(sandbox().delta.engine.agents.map((agent) => agent.address)).toEqual(agentProfiles.map((agent) => agent.address))
    for (const agent of agentProfiles) {
      const isAgent = await chain?.clients.publicClient.readContract({
        address: deltaAddress,
        abi: deltaAbi(),
        functionName: 'isAgent',
        args: [agent.address],
      })
      expect(isAgent).toBe(true)
      expect(await balanceOf(sandbox(), chainId, weth, agent.address)).toBeGreaterThan(10n ** 24n)
      const allowance = await chain?.clients.publicClient.readContract({
        address: token(sandbox(), chainId, 'USDC'),
        abi: erc20Abi,
        functionName: 'allowance',
        args: [agent.address, deltaAddress],
      })
      expect(allowance).toBe(maxUint256)
    }
  })

  it('completes a SELL, moving the owner and beneficiary balances by exactly the recorded amounts', async () => {
    const s = sandbox()
    const [weth, usdc] = [token(s, chainId, 'WETH'), token(s, chainId, 'USDC')]
    await approveDelta(s, chainId, 1, weth)
    const srcAmount = 10n ** 18n
    const quote = await poolQuote(s, chainId, weth, usdc, srcAmount, 'SELL')
    const order = standardOrder(s, {
      chainId,
      ownerIndex: 1,
      srcToken: weth,
      destToken: usdc,
      srcAmount,
      destAmount: (quote * 99n) / 100n,
      kind: 0,
      beneficiary: address(2),
    })
    const [wethBefore, usdcBefore] = await Promise.all([balanceOf(s, chainId, weth, address(1)), balanceOf(s, chainId, usdc, address(2))])

    const stored = await addSignedOrder(s, { kind: 'Order', order }, { chainId, ownerIndex: 1 })
    await waitForStatus(stored, 'COMPLETED')

    const [wethAfter, usdcAfter] = await Promise.all([balanceOf(s, chainId, weth, address(1)), balanceOf(s, chainId, usdc, address(2))])
    expect(stored.transactions).toHaveLength(1)
    const [fill] = stored.transactions
    expect(wethBefore - wethAfter).toBe(fill?.spentAmount)
    expect(usdcAfter - usdcBefore).toBe(fill?.receivedAmount)
    expect(fill?.spentAmount).toBe(srcAmount)
    expect(fill?.receivedAmount).toBeGreaterThanOrEqual(order.destAmount)
    expect(fill?.filledPercent).toBe(100)
    expect(stored.filledSrcAmount).toBe(srcAmount)
    expect(stored.filledDestAmount).toBe(fill?.receivedAmount)
    expect(stored.history.map((entry) => entry.status)).toEqual(['PENDING', 'COMPLETED'])
    const receipt = await s.venue.chains.get(chainId)?.clients.publicClient.getTransactionReceipt({ hash: fill?.originTx as Hex })
    expect(receipt?.status).toBe('success')
    expect(receipt?.to?.toLowerCase()).toBe(deltaAddress.toLowerCase())
  })

  it('completes a BUY, taking no more than the signed maximum and delivering exactly the bought amount', async () => {
    const s = sandbox()
    const [weth, usdc] = [token(s, chainId, 'WETH'), token(s, chainId, 'USDC')]
    await approveDelta(s, chainId, 3, weth)
    const destAmount = 1_500n * 10n ** 6n
    const quote = await poolQuote(s, chainId, weth, usdc, destAmount, 'BUY')
    const order = standardOrder(s, {
      chainId,
      ownerIndex: 3,
      srcToken: weth,
      destToken: usdc,
      srcAmount: (quote * 101n) / 100n,
      destAmount,
      kind: 1,
    })
    const [wethBefore, usdcBefore] = await Promise.all([balanceOf(s, chainId, weth, address(3)), balanceOf(s, chainId, usdc, address(3))])

    const stored = await addSignedOrder(s, { kind: 'Order', order }, { chainId, ownerIndex: 3 })
    await waitForStatus(stored, 'COMPLETED')

    const [wethAfter, usdcAfter] = await Promise.all([balanceOf(s, chainId, weth, address(3)), balanceOf(s, chainId, usdc, address(3))])
    const [fill] = stored.transactions
    expect(wethBefore - wethAfter).toBe(fill?.spentAmount)
    expect(usdcAfter - usdcBefore).toBe(fill?.receivedAmount)
    expect(fill?.receivedAmount).toBe(destAmount)
    expect(fill?.spentAmount).toBeLessThanOrEqual(order.srcAmount)
    expect(fill?.spentAmount).toBeGreaterThan(quote)
  })

  it('sells native ether from the owner deposit and pays native ether to a beneficiary', async () => {
    const s = sandbox()
    const client = s.venue.chains.get(chainId)?.clients.publicClient
    const usdc = token(s, chainId, 'USDC')
    const wallet = ownerWallet(s, chainId, 6)
    const srcAmount = 2n * 10n ** 17n
    await waitForLocalReceipt(
      wallet,
      await wallet.writeContract({ address: deltaAddress, abi: deltaAbi(), functionName: 'deposit', value: srcAmount }),
    )
    const ethQuote = await poolQuote(s, chainId, token(s, chainId, 'WETH'), usdc, srcAmount, 'SELL')
    const sellEth = standardOrder(s, {
      chainId,
      ownerIndex: 6,
      srcToken: nativeTokenPlaceholder,
      destToken: usdc,
      srcAmount,
      destAmount: (ethQuote * 98n) / 100n,
      kind: 0,
    })
    const usdcBefore = await balanceOf(s, chainId, usdc, address(6))

    const sold = await addSignedOrder(s, { kind: 'Order', order: sellEth }, { chainId, ownerIndex: 6 })
    await waitForStatus(sold, 'COMPLETED')

    const deposit = await client?.readContract({
      address: deltaAddress,
      abi: deltaAbi(),
      functionName: 'nativeBalanceOf',
      args: [address(6)],
    })
    expect(deposit).toBe(0n)
    expect((await balanceOf(s, chainId, usdc, address(6))) - usdcBefore).toBe(sold.transactions[0]?.receivedAmount)

    await approveDelta(s, chainId, 6, usdc)
    const usdcAmount = 400n * 10n ** 6n
    const wethQuote = await poolQuote(s, chainId, usdc, token(s, chainId, 'WETH'), usdcAmount, 'SELL')
    const buyEth = standardOrder(s, {
      chainId,
      ownerIndex: 6,
      srcToken: usdc,
      destToken: nativeTokenPlaceholder,
      srcAmount: usdcAmount,
      destAmount: (wethQuote * 98n) / 100n,
      kind: 0,
      beneficiary: receiver,
    })
    const etherBefore = (await client?.getBalance({ address: receiver })) ?? 0n

    const bought = await addSignedOrder(s, { kind: 'Order', order: buyEth }, { chainId, ownerIndex: 6 })
    await waitForStatus(bought, 'COMPLETED')

    expect(((await client?.getBalance({ address: receiver })) ?? 0n) - etherBefore).toBe(bought.transactions[0]?.receivedAmount)
  })

  it('pays the partner its fee out of the agent amount and the rest to the beneficiary', async () => {
    const s = sandbox()
    const [weth, usdc] = [token(s, chainId, 'WETH'), token(s, chainId, 'USDC')]
    await approveDelta(s, chainId, 7, weth)
    const srcAmount = 5n * 10n ** 17n
    const quote = await poolQuote(s, chainId, weth, usdc, srcAmount, 'SELL')
    const order = standardOrder(s, {
      chainId,
      ownerIndex: 7,
      srcToken: weth,
      destToken: usdc,
      srcAmount,
      destAmount: (quote * 97n) / 100n,
      kind: 0,
      partnerAndFee: packPartnerAndFee({ partner, feeBps: 50, partnerTakesSurplus: false, capSurplus: true }),
    })
    const [ownerBefore, partnerBefore] = await Promise.all([balanceOf(s, chainId, usdc, address(7)), balanceOf(s, chainId, usdc, partner)])

    const stored = await addSignedOrder(s, { kind: 'Order', order }, { chainId, ownerIndex: 7 })
    await waitForStatus(stored, 'COMPLETED')

    const received = stored.transactions[0]?.receivedAmount ?? 0n
    const fee = (await balanceOf(s, chainId, usdc, partner)) - partnerBefore
    expect((await balanceOf(s, chainId, usdc, address(7))) - ownerBefore).toBe(received)
    expect(fee).toBe(((received + fee) * 50n) / 10_000n)
    expect(received).toBeGreaterThanOrEqual(order.destAmount)
  })

  it('lets only the included agents bid', async () => {
    const s = sandbox()
    const [weth, usdc] = [token(s, chainId, 'WETH'), token(s, chainId, 'USDC')]
    await approveDelta(s, chainId, 4, usdc)
    const srcAmount = 500n * 10n ** 6n
    const quote = await poolQuote(s, chainId, usdc, weth, srcAmount, 'SELL')
    const order = standardOrder(s, {
      chainId,
      ownerIndex: 4,
      srcToken: usdc,
      destToken: weth,
      srcAmount,
      destAmount: (quote * 98n) / 100n,
      kind: 0,
    })

    const stored = await addSignedOrder(s, { kind: 'Order', order }, { chainId, ownerIndex: 4, includeAgents: ['sandbox-gamma'] })
    await waitForStatus(stored, 'COMPLETED')

    expect(stored.transactions[0]?.agent).toBe('sandbox-gamma')
  })

  it('lets a fill stand when a cancel arrives during its auction', async () => {
    const s = sandbox()
    const [weth, dai] = [token(s, chainId, 'WETH'), token(s, chainId, 'DAI')]
    await approveDelta(s, chainId, 5, weth)
    const srcAmount = 2n * 10n ** 17n
    const quote = await poolQuote(s, chainId, weth, dai, srcAmount, 'SELL')
    const order = standardOrder(s, {
      chainId,
      ownerIndex: 5,
      srcToken: weth,
      destToken: dai,
      srcAmount,
      destAmount: (quote * 98n) / 100n,
      kind: 0,
    })

    const stored = await addSignedOrder(s, { kind: 'Order', order }, { chainId, ownerIndex: 5 })
    await waitFor('the auction to start', () => stored.auctionInFlight)
    // What the API's cancel does to an order with an auction in flight.
    stored.cancelQueued = true
    await waitForStatus(stored, 'COMPLETED')
    await waitFor('the auction to end', () => !stored.auctionInFlight)

    expect(stored.transactions).toHaveLength(1)
    expect(stored.history.map((entry) => entry.status)).not.toContain('CANCELLING')
    expect(stored.cancelQueued).toBe(false)
  })

  it('cancels after the auction when a queued cancel meets no acceptable bid', async () => {
    const s = sandbox()
    const [weth, usdc] = [token(s, chainId, 'WETH'), token(s, chainId, 'USDC')]
    await approveDelta(s, chainId, 5, weth)
    const srcAmount = 10n ** 17n
    const quote = await poolQuote(s, chainId, weth, usdc, srcAmount, 'SELL')
    const order = standardOrder(s, { chainId, ownerIndex: 5, srcToken: weth, destToken: usdc, srcAmount, destAmount: quote * 2n, kind: 0 })

    const stored = await addSignedOrder(s, { kind: 'Order', order }, { chainId, ownerIndex: 5 })
    await waitFor('the auction to start', () => stored.auctionInFlight)
    stored.cancelQueued = true
    await waitForStatus(stored, 'CANCELLED')

    expect(stored.history.map((entry) => entry.status)).toEqual(['PENDING', 'CANCELLING', 'CANCELLED'])
    expect(stored.transactions).toHaveLength(0)
  })

  it('expires an order nobody fills before its deadline', async () => {
    const s = sandbox()
    const [weth, usdc] = [token(s, chainId, 'WETH'), token(s, chainId, 'USDC')]
    await approveDelta(s, chainId, 6, weth)
    const srcAmount = 10n ** 17n
    const quote = await poolQuote(s, chainId, weth, usdc, srcAmount, 'SELL')
    const order = standardOrder(s, {
      chainId,
      ownerIndex: 6,
      srcToken: weth,
      destToken: usdc,
      srcAmount,
      destAmount: quote * 2n,
      kind: 0,
      deadlineIn: 30n,
    })

    const stored = await addSignedOrder(s, { kind: 'Order', order }, { chainId, ownerIndex: 6 })
    await waitForStatus(stored, 'EXPIRED')

    expect(sandboxSeconds(s)).toBeGreaterThan(order.deadline)
    expect(stored.transactions).toHaveLength(0)
    expect(stored.history.at(-1)?.at).toBeGreaterThan(Number(order.deadline) * 1000)
  })

  it('fails an order whose signature does not match its owner, with the revert reason', async () => {
    const s = sandbox()
    const [weth, usdc] = [token(s, chainId, 'WETH'), token(s, chainId, 'USDC')]
    await approveDelta(s, chainId, 7, weth)
    const srcAmount = 10n ** 17n
    const quote = await poolQuote(s, chainId, weth, usdc, srcAmount, 'SELL')
    const order = standardOrder(s, {
      chainId,
      ownerIndex: 7,
      srcToken: weth,
      destToken: usdc,
      srcAmount,
      destAmount: (quote * 98n) / 100n,
      kind: 0,
    })
    const stored = await addSignedOrder(s, { kind: 'Order', order }, { chainId, ownerIndex: 7 })
    // Signed by account 8 on behalf of account 7.
    const forger = privateKeyToAccount(developmentAccounts[8]?.privateKey as Hex)
    stored.signature = toCompactSignature(
      await forger.signTypedData(buildDeltaOrderTypedData(order, { chainId, verifyingContract: deltaAddress })),
    )

    await waitForStatus(stored, 'FAILED')

    expect(stored.history.at(-1)?.reason).toBe('InvalidSignature()')
    expect(stored.transactions).toHaveLength(0)
  })

  it('fails an order whose permit the token refuses', async () => {
    const s = sandbox()
    const [usdc, weth] = [token(s, chainId, 'USDC'), token(s, chainId, 'WETH')]
    const srcAmount = 300n * 10n ** 6n
    const quote = await poolQuote(s, chainId, usdc, weth, srcAmount, 'SELL')
    const deadline = sandboxSeconds(s) + 3_600n
    const permit = encodeDeltaPermit({
      type: 'eip2612',
      owner: address(9),
      spender: deltaAddress,
      value: srcAmount,
      deadline,
      v: 27,
      r: `0x${'11'.repeat(32)}`,
      s: `0x${'22'.repeat(32)}`,
    })
    const order = standardOrder(s, {
      chainId,
      ownerIndex: 9,
      srcToken: usdc,
      destToken: weth,
      srcAmount,
      destAmount: (quote * 98n) / 100n,
      kind: 0,
      permit,
    })

    const stored = await addSignedOrder(s, { kind: 'Order', order }, { chainId, ownerIndex: 9 })
    await waitForStatus(stored, 'FAILED')

    expect(stored.history.map((entry) => entry.status)).toEqual(['PENDING', 'FAILED'])
    expect(stored.history.at(-1)?.reason).toMatch(/^Permit rejected: TransferFailed\(/)
  })
})
