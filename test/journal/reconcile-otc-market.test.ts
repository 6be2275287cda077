import { randomUUID } from 'node:crypto'
import {
  type Address,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  keccak256,
  maxUint256,
  parseEther,
  parseEventLogs,
  parseUnits,
  type TransactionReceipt,
} from 'viem'
import { afterAll, describe, expect, it } from 'vitest'
import { createApiClient } from '../../src/api/client.js'
import { createChainClients } from '../../src/chain/chain-clients.js'
import { type Journal, openJournal } from '../../src/journal/journal.js'
import { reconcileOrders } from '../../src/journal/reconcile/reconcile-orders.js'
import { createLogger } from '../../src/log/logger.js'
import { marketRouterAddress } from '../../src/protocol/addresses.js'
import { hashRfqOrder } from '../../src/protocol/rfq-order.js'
import { waitForLocalReceipt } from '../../src/sandbox/chains/receipt.js'
import { getContractArtifact } from '../../src/sandbox/contracts/compile.js'
import { otcCounterpartyAddresses } from '../../src/sandbox/otc/otc-counterparty-accounts.js'
import {
  approveToken,
  buildMarketTransaction,
  type Envelope,
  gasPaid,
  type MarketWallet,
  marketWallet,
  quoteMarket,
  syncPools,
  tokenAddress,
} from '../helpers/market.js'
import { approveRfq, asOtcOrder, makeRfqOrder, postOtcOrder, rfqDomain, sandboxNow, userWallet, waitForOrder } from '../helpers/otc.js'
import { sandboxToken, useSandbox } from '../helpers/sandbox.js'
import { createJournalDirectory } from './journal-fixtures.js'

const chainId = 1

describe('reconcileOrders: OTC orders and Market transactions', () => {
  const sandbox = useSandbox({ chainIds: [chainId], speed: 30, market: 'still' })
  const directory = createJournalDirectory()
  afterAll(() => directory.cleanup())
  const token = (symbol: string) => tokenAddress(sandbox(), chainId, symbol)

  function openTestJournal(): Journal {
    return openJournal({ file: directory.path(`${randomUUID()}.sqlite`), clock: sandbox().venue.clock })
  }

  function reconcile(journal: Journal, account: Address) {
    const s = sandbox()
    return reconcileOrders({
      journal,
      api: createApiClient({ baseUrl: s.url, rateLimit: false, retry: false }),
      chains: createChainClients({ chains: s.chains.map((chain) => ({ chainId: chain.chainId, rpcUrls: [chain.rpcUrl] })) }),
      account,
      clock: s.venue.clock,
      logger: createLogger({ level: 'silent' }),
    })
  }

  function recordIntent(journal: Journal, kind: 'otc' | 'swap'): string {
    const intentId = `intent-${randomUUID()}`
    journal.recordIntent({ id: intentId, strategy: 'test', kind, intent: {} })
    return intentId
  }

  function transfers(receipt: TransactionReceipt, tokenAddress: Address, filter: { from?: Address; to?: Address }): bigint {
    return parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs })
      .filter((log) => log.address.toLowerCase() === tokenAddress.toLowerCase())
      .filter((log) => filter.from === undefined || log.args.from.toLowerCase() === filter.from.toLowerCase())
      .filter((log) => filter.to === undefined || log.args.to.toLowerCase() === filter.to.toLowerCase())
      .reduce((sum, log) => sum + log.args.value, 0n)
  }

  it('records an OTC order filled by the P2P counterparty, with the fill of its RFQ OrderFilled log', async () => {
    const s = sandbox()
    const journal = openTestJournal()
    const maker = userWallet(s, chainId, 6)
    await approveRfq(s, maker, token('USDC'))
    const order = makeRfqOrder({
      expiry: sandboxNow(s) + 3_600n,
      maker: maker.account.address,
      taker: otcCounterpartyAddresses()[0] as Address,
      makerAsset: token('USDC'),
      takerAsset: token('WETH'),
      makerAmount: parseUnits('1500', 6),
      takerAmount: parseEther('0.75'),
    })
    const orderHash = hashRfqOrder(order, rfqDomain(s, chainId))
    const intentId = recordIntent(journal, 'otc')
    const orderId = `${intentId}/0`
    journal.recordSignedOrder({
      id: orderId,
      intentId,
      mode: 'otc',
      account: order.maker,
      chainId,
      orderHash,
      srcToken: order.makerAsset,
      destToken: order.takerAsset,
      srcAmount: order.makerAmount,
      destAmount: order.takerAmount,
      side: 'SELL',
      signedPayload: { order: { ...order, nonceAndMeta: String(order.nonceAndMeta) } },
    })
    const posted = asOtcOrder(await postOtcOrder(s, 6, order, chainId))
    expect(posted.orderHash.toLowerCase()).toBe(orderHash.toLowerCase())
    journal.markSubmitted(orderId)

    const whilePending = await reconcile(journal, maker.account.address)
    expect(whilePending.errors).toEqual([])
    expect(journal.getOrder({ id: orderId })?.status).toBe('PENDING')

    const filled = await waitForOrder(s, orderHash, (current) => current.state === 'FULFILLED')
    const report = await reconcile(journal, maker.account.address)

    expect(report.errors).toEqual([])
    expect(report).toMatchObject({ checked: { otc: 1 }, statusChanges: 1, fills: { recorded: 1, chainConfirmed: 1 }, intentsCompleted: 1 })
    expect(journal.getOrder({ id: orderId })?.status).toBe('FULFILLED')
    expect(journal.getIntent(intentId)?.status).toBe('done')
    const receipt = await maker.getTransactionReceipt({ hash: filled.transactionHash as Hex })
    const [fill, ...others] = journal.fillsOf(orderId)
    expect(others).toEqual([])
    expect(fill).toMatchObject({
      txHash: receipt.transactionHash.toLowerCase(),
      chainId,
      source: 'chain',
      blockNumber: Number(receipt.blockNumber),
    })
    expect(fill?.spentAmount).toBe(transfers(receipt, order.makerAsset, { from: order.maker }))
    expect(fill?.receivedAmount).toBe(transfers(receipt, order.takerAsset, { to: order.maker }))
    expect([fill?.spentAmount, fill?.receivedAmount]).toEqual([order.makerAmount, order.takerAmount])

    const again = await reconcile(journal, maker.account.address)
    expect(again).toMatchObject({ checked: { otc: 0 }, statusChanges: 0, fills: { recorded: 0 }, errors: [] })
    journal.close()
  })

  /** Quote and build a Market swap; the journal gets the order and the signed transaction before it is broadcast. */
  async function journaledMarketSwap(journal: Journal, wallet: MarketWallet, srcSymbol: string, destSymbol: string, amount: bigint) {
    const s = sandbox()
    await syncPools(s, chainId)
    const userAddress = wallet.account.address
    const [src, dest] = [sandboxToken(s, chainId, srcSymbol), sandboxToken(s, chainId, destSymbol)]
    const [srcToken, destToken] = [src.address, dest.address]
    const route = await quoteMarket(s, {
      network: String(chainId),
      version: '6.2',
      userAddress,
      srcToken,
      destToken,
      srcDecimals: String(src.decimals),
      destDecimals: String(dest.decimals),
      amount: String(amount),
    })
    const built = await buildMarketTransaction(s, chainId, {
      priceRoute: route,
      srcToken,
      destToken,
      srcDecimals: src.decimals,
      destDecimals: dest.decimals,
      userAddress,
      srcAmount: route.srcAmount,
      slippage: 50,
    })
    expect(built.status, built.text).toBe(200)
    const envelope = built.json as Envelope
    const prepared = await wallet.prepareTransactionRequest({
      to: envelope.to,
      data: envelope.data,
      value: BigInt(envelope.value),
      ...(envelope.gas ? { gas: BigInt(envelope.gas) } : {}),
    })
    const serializedTransaction = await wallet.signTransaction(prepared)
    const txHash = keccak256(serializedTransaction)
    const intentId = recordIntent(journal, 'swap')
    const orderId = `${intentId}/0`
    journal.recordSignedOrder({
      id: orderId,
      intentId,
      mode: 'market',
      account: userAddress,
      chainId,
      srcToken,
      destToken,
      srcAmount: BigInt(route.srcAmount),
      destAmount: BigInt(route.destAmount),
      side: 'SELL',
      signedPayload: envelope,
    })
    journal.recordTransaction({
      txHash,
      orderId,
      purpose: 'swap',
      chainId,
      nonce: prepared.nonce,
      from: userAddress,
      to: envelope.to,
      value: BigInt(envelope.value),
      dataHash: keccak256(envelope.data),
    })
    journal.markSubmitted(orderId)
    await wallet.sendRawTransaction({ serializedTransaction })
    const receipt = await waitForLocalReceipt(wallet, txHash)
    return { orderId, intentId, txHash, receipt }
  }

  it("records a Market swap's receipt: mined, its gas, and the fill of its Transfer logs", async () => {
    const journal = openTestJournal()
    const wallet = marketWallet(sandbox(), chainId, 7)
    await approveToken(wallet, token('USDC'), marketRouterAddress, maxUint256)
    const swap = await journaledMarketSwap(journal, wallet, 'USDC', 'WBTC', parseUnits('2500', 6))
    expect(swap.receipt.status).toBe('success')

    const report = await reconcile(journal, wallet.account.address)

    expect(report.errors).toEqual([])
    expect(report).toMatchObject({
      checked: { market: 1 },
      transactions: { mined: 1, reverted: 0, dropped: 0 },
      statusChanges: 1,
      fills: { recorded: 1, chainConfirmed: 1 },
      intentsCompleted: 1,
    })
    expect(journal.getTransaction(swap.txHash)).toMatchObject({
      status: 'mined',
      blockNumber: Number(swap.receipt.blockNumber),
      gasUsed: swap.receipt.gasUsed,
      effectiveGasPrice: swap.receipt.effectiveGasPrice,
    })
    expect(journal.getOrder({ id: swap.orderId })?.status).toBe('mined')
    expect(journal.getIntent(swap.intentId)?.status).toBe('done')
    const [fill] = journal.fillsOf(swap.orderId)
    expect(fill).toMatchObject({ txHash: swap.txHash, source: 'chain', logIndex: expect.any(Number) })
    expect(fill?.spentAmount).toBe(transfers(swap.receipt, token('USDC'), { from: wallet.account.address }))
    expect(fill?.spentAmount).toBe(parseUnits('2500', 6))
    expect(fill?.receivedAmount).toBe(transfers(swap.receipt, token('WBTC'), { to: wallet.account.address }))
    expect(fill?.receivedAmount).toBeGreaterThan(0n)

    const again = await reconcile(journal, wallet.account.address)
    expect(again).toMatchObject({ checked: { market: 0 }, statusChanges: 0, fills: { recorded: 0 }, errors: [] })
    journal.close()
  })

  it('measures the native output of a Market swap into ETH from the balance change across its block', async () => {
    const journal = openTestJournal()
    const wallet = marketWallet(sandbox(), chainId, 9)
    await approveToken(wallet, token('USDC'), marketRouterAddress, maxUint256)
    const before = await wallet.getBalance({ address: wallet.account.address })
    const swap = await journaledMarketSwap(journal, wallet, 'USDC', 'ETH', parseUnits('1000', 6))
    const received = (await wallet.getBalance({ address: wallet.account.address })) - before + gasPaid(swap.receipt)

    const report = await reconcile(journal, wallet.account.address)

    expect(report.errors).toEqual([])
    expect(report.notes).toEqual([])
    expect(journal.fillsOf(swap.orderId)).toMatchObject([{ spentAmount: parseUnits('1000', 6), receivedAmount: received }])
    expect(received).toBeGreaterThan(0n)
    journal.close()
  })

  it('records a reverted swap with its reason, drops a transaction whose nonce went to another, and leaves a pending one', async () => {
    const s = sandbox()
    const journal = openTestJournal()
    const wallet = marketWallet(s, chainId, 8)
    const account = wallet.account.address
    const pool = s.venue.chains
      .get(chainId)
      ?.fixture.pools.find((candidate) => candidate.symbols.includes('USDC') && candidate.symbols.includes('WETH'))
    if (!pool) throw new Error('no USDC/WETH pool')
    await approveToken(wallet, token('USDC'), marketRouterAddress, maxUint256)
    const data = encodeFunctionData({
      abi: getContractArtifact('MarketRouter').abi,
      functionName: 'swapExactAmountIn',
      args: [token('USDC'), token('WETH'), parseUnits('10', 6), maxUint256, [pool.address], account, 0n],
    })
    const intentId = recordIntent(journal, 'swap')
    journal.recordSignedOrder({
      id: `${intentId}/0`,
      intentId,
      mode: 'market',
      account,
      chainId,
      srcToken: token('USDC'),
      destToken: token('WETH'),
      srcAmount: parseUnits('10', 6),
      destAmount: 1n,
      side: 'SELL',
      signedPayload: {},
    })
    const prepared = await wallet.prepareTransactionRequest({ to: marketRouterAddress, data, gas: 500_000n })
    const serializedTransaction = await wallet.signTransaction(prepared)
    const reverted = keccak256(serializedTransaction)
    const record = (txHash: Hex, nonce: number, orderId?: string) =>
      journal.recordTransaction({
        txHash,
        ...(orderId === undefined ? {} : { orderId }),
        purpose: orderId === undefined ? 'other' : 'swap',
        chainId,
        nonce,
        from: account,
        to: marketRouterAddress,
        value: 0n,
        dataHash: keccak256(data),
      })
    record(reverted, prepared.nonce, `${intentId}/0`)
    await wallet.sendRawTransaction({ serializedTransaction })
    const receipt = await waitForLocalReceipt(wallet, reverted)
    expect(receipt.status).toBe('reverted')
    // A transaction replaced before it was mined (its nonce is now used), and one not yet broadcast (a later nonce).
    const replaced = `0x${'1'.repeat(64)}` as Hex
    const waiting = `0x${'2'.repeat(64)}` as Hex
    record(replaced, prepared.nonce - 1)
    record(waiting, prepared.nonce + 5)

    const report = await reconcile(journal, account)

    expect(report.errors).toEqual([])
    expect(report).toMatchObject({ checked: { market: 3 }, transactions: { mined: 0, reverted: 1, dropped: 1 }, fills: { recorded: 0 } })
    expect(journal.getTransaction(reverted)).toMatchObject({
      status: 'reverted',
      revertReason: 'INSUFFICIENT_OUTPUT',
      gasUsed: receipt.gasUsed,
    })
    expect(journal.getOrder({ id: `${intentId}/0` })?.status).toBe('reverted')
    expect(journal.fillsOf(`${intentId}/0`)).toEqual([])
    expect(journal.getTransaction(replaced)).toMatchObject({ status: 'dropped', revertReason: expect.stringMatching(/nonce/) })
    expect(journal.getTransaction(waiting)?.status).toBe('sent')

    const again = await reconcile(journal, account)
    expect(again).toMatchObject({ checked: { market: 1 }, transactions: { mined: 0, reverted: 0, dropped: 0 }, errors: [] })
    journal.close()
  })
})
