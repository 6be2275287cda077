import { type Address, erc20Abi, type Hex, maxUint256 } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { openJournal } from '../../src/journal/journal.js'
import { type MakerServer, startMakerServer } from '../../src/maker/server/maker-server.js'
import { firmOrderSchema } from '../../src/protocol/maker-wire.js'
import { unpackNonceAndMeta } from '../../src/protocol/nonce-and-meta.js'
import { hashRfqOrder, type RfqOrder } from '../../src/protocol/rfq-order.js'
import { getContractArtifact } from '../../src/sandbox/contracts/compile.js'
import { ManualClock } from '../../src/time/clock.js'
import marketMaker from '../../strategies/market-maker/index.js'
import { developmentAccount, rfqDomain, sendAndWait, userWallet } from '../helpers/otc.js'
import { request, useSandbox } from '../helpers/sandbox.js'
import { createTempDirectory } from '../helpers/temp-directory.js'
import { type MakerFixture, openMakerFixture, waitFor } from './runtime-fixture.js'

const directory = createTempDirectory('deltaflow-firm-journal-')
afterAll(() => directory.cleanup())

const weth: Address = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2'
const usdc: Address = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'
const makerIndex = 8
const takerIndex = 9
const rfqAbi = getContractArtifact('RfqSettlement').abi

const config = {
  chains: {
    '1': {
      tokens: { WETH: { address: weth, decimals: 18 }, USDC: { address: usdc, decimals: 6 } },
      pairs: {
        'WETH/USDC': { base: 'WETH', quote: 'USDC', reference: { source: 'fixed', price: '2000' }, levels: 2, spreadBps: 10, size: '2' },
      },
    },
  },
}

describe('firm quote journal', () => {
  // 60 sandbox seconds per real second: a firm quote of 120 s expires within about two real seconds.
  const sandbox = useSandbox({ chainIds: [1], speed: 60 })
  let fixture: MakerFixture
  let server: MakerServer

  beforeAll(async () => {
    fixture = await openMakerFixture(sandbox(), {
      accountIndex: makerIndex,
      definition: marketMaker,
      config,
      journalFile: directory.path('journal.sqlite'),
    })
    await fixture.runtime.start()
    server = await startMakerServer({
      book: fixture.runtime.book,
      chains: [{ chainId: 1, basePath: '/maker/1', rfq: fixture.runtime.rfqOf(1) }],
      account: fixture.account,
      clock: sandbox().venue.clock,
      firmExpirySeconds: 120,
      checkFirm: fixture.runtime.checkFirm,
      recordFirmQuote: fixture.runtime.recordFirmQuote,
    })
    // The taker fills the orders itself (it is both the user and the filling contract here): it pays USDC.
    const taker = userWallet(sandbox(), 1, takerIndex)
    await sendAndWait(taker, {
      address: usdc,
      abi: erc20Abi,
      functionName: 'approve',
      args: [rfqDomain(sandbox(), 1).verifyingContract, maxUint256],
      account: taker.account,
      chain: taker.chain,
    })
  })
  afterAll(async () => {
    server?.halt('test over')
    await server?.close()
    await fixture?.close()
  })

  /** POST /firm for `makerAmount` WETH, the taker being user and filler; the order as RfqOrder with its hash. */
  async function firmQuote(makerAmount: bigint): Promise<{ order: RfqOrder; signature: Hex; orderHash: Hex }> {
    const taker = developmentAccount(takerIndex).address
    const answer = await request(server.url, 'POST', '/maker/1/firm', {
      makerAsset: weth,
      takerAsset: usdc,
      makerAmount: makerAmount.toString(),
      userAddress: taker,
      takerAddress: taker,
    })
    expect(answer.status, answer.text).toBe(200)
    const wire = z.object({ order: firmOrderSchema }).parse(answer.json).order
    const { signature, ...fields } = wire
    const order: RfqOrder = { ...fields, expiry: BigInt(fields.expiry) }
    return { order, signature, orderHash: hashRfqOrder(order, rfqDomain(sandbox(), 1)) }
  }

  async function fill(order: RfqOrder, signature: Hex, takerFill?: bigint) {
    const taker = userWallet(sandbox(), 1, takerIndex)
    return sendAndWait(taker, {
      address: rfqDomain(sandbox(), 1).verifyingContract,
      abi: rfqAbi,
      functionName: takerFill === undefined ? 'fillOrder' : 'partialFillOrder',
      args: takerFill === undefined ? [order, signature] : [order, signature, takerFill],
      account: taker.account,
      chain: taker.chain,
    })
  }

  it('journals a firm quote before answering it, then records its on-chain fill with the amounts and the transaction', async () => {
    const maker = userWallet(sandbox(), 1, makerIndex)
    const { order, signature, orderHash } = await firmQuote(10n ** 18n)
    const journaled = fixture.journal.getFirmQuote(orderHash)
    expect(journaled).toMatchObject({
      chainId: 1,
      status: 'open',
      closed: false,
      maker: fixture.account.address.toLowerCase(),
      makerAsset: weth.toLowerCase(),
      takerAsset: usdc.toLowerCase(),
      makerAmount: 10n ** 18n,
      takerAmount: order.takerAmount,
      user: developmentAccount(takerIndex).address.toLowerCase(),
      nonceAndMeta: order.nonceAndMeta,
      expiry: Number(order.expiry),
      filledMakerAmount: 0n,
      txHash: null,
    })
    expect(unpackNonceAndMeta(order.nonceAndMeta).intendedTaker).toBe(developmentAccount(takerIndex).address)
    const before = await maker.readContract({ address: weth, abi: erc20Abi, functionName: 'balanceOf', args: [maker.account.address] })
    const receipt = await fill(order, signature)
    const filled = await waitFor(
      () => {
        const quote = fixture.journal.getFirmQuote(orderHash)
        return quote?.status === 'filled' ? quote : undefined
      },
      5_000,
      'the fill to be journaled',
    )
    expect(filled).toMatchObject({
      closed: true,
      filledMakerAmount: 10n ** 18n,
      filledTakerAmount: order.takerAmount,
      txHash: receipt.transactionHash.toLowerCase(),
    })
    const after = await maker.readContract({ address: weth, abi: erc20Abi, functionName: 'balanceOf', args: [maker.account.address] })
    expect(before - after).toBe(10n ** 18n)
  })

  it('records a partial fill as partially filled, with the amounts the contract moved', async () => {
    const { order, signature, orderHash } = await firmQuote(5n * 10n ** 17n)
    const half = order.takerAmount / 2n
    const receipt = await fill(order, signature, half)
    const quote = await waitFor(
      () => {
        const found = fixture.journal.getFirmQuote(orderHash)
        return found?.status === 'partially-filled' ? found : undefined
      },
      5_000,
      'the partial fill to be journaled',
    )
    expect(quote).toMatchObject({
      closed: false,
      filledTakerAmount: half,
      filledMakerAmount: (half * order.makerAmount) / order.takerAmount,
      txHash: receipt.transactionHash.toLowerCase(),
    })
  })

  it('marks a quote nobody filled as expired once the chain is past its expiry', async () => {
    const { orderHash } = await firmQuote(10n ** 17n)
    expect(fixture.journal.getFirmQuote(orderHash)?.status).toBe('open')
    const expired = await waitFor(
      () => {
        const quote = fixture.journal.getFirmQuote(orderHash)
        return quote?.status === 'expired' ? quote : undefined
      },
      10_000,
      'the quote to expire',
    )
    expect(expired).toMatchObject({ closed: true, filledMakerAmount: 0n, txHash: null })
  })

  it('refuses a firm order the wallet cannot pay beside what its open quotes could still take', async () => {
    const { runtime, journal } = fixture
    await firmQuote(2n * 10n ** 18n)
    const maker = userWallet(sandbox(), 1, makerIndex)
    const balance = await maker.readContract({ address: weth, abi: erc20Abi, functionName: 'balanceOf', args: [maker.account.address] })
    const reserved = journal
      .openFirmQuotes(1)
      .filter((quote) => quote.makerAsset === weth.toLowerCase())
      .reduce((sum, quote) => sum + quote.makerAmount - quote.filledMakerAmount, 0n)
    expect(reserved).toBeGreaterThanOrEqual(2n * 10n ** 18n)
    const taker = developmentAccount(takerIndex).address
    const firmRequest = { makerAsset: weth, takerAsset: usdc, userAddress: taker, takerAddress: taker, makerAmount: 1n }
    const orderFor = (makerAmount: bigint) => ({
      nonceAndMeta: 1n,
      expiry: 0,
      makerAsset: weth,
      takerAsset: usdc,
      maker: maker.account.address,
      taker,
      makerAmount,
      takerAmount: 1n,
      signature: '0x00' as Hex,
    })
    expect(runtime.checkFirm(firmRequest, orderFor(balance - reserved))).toBeUndefined()
    expect(runtime.checkFirm(firmRequest, orderFor(balance - reserved + 1n))).toBe('insufficient maker inventory for this amount')
  })

  it('journals at its next start a fill that happened while the maker was down', async () => {
    const { order, signature, orderHash } = await firmQuote(3n * 10n ** 17n)
    server.halt('restart')
    await server.close()
    await fixture.close()
    const receipt = await fill(order, signature)
    fixture = await openMakerFixture(sandbox(), {
      accountIndex: makerIndex,
      definition: marketMaker,
      config,
      journalFile: directory.path('journal.sqlite'),
    })
    expect(fixture.journal.getFirmQuote(orderHash)?.status).toBe('open')
    await fixture.runtime.start()
    expect(fixture.journal.getFirmQuote(orderHash)).toMatchObject({
      status: 'filled',
      filledMakerAmount: 3n * 10n ** 17n,
      txHash: receipt.transactionHash.toLowerCase(),
    })
  })
})

describe('firm quote journal rows', () => {
  const quote = {
    chainId: 1,
    orderHash: `0x${'ab'.repeat(32)}` as Hex,
    maker: weth,
    makerAsset: weth,
    takerAsset: usdc,
    makerAmount: 10n ** 18n,
    takerAmount: 2_000n * 10n ** 6n,
    user: usdc,
    taker: usdc,
    nonceAndMeta: 123n,
    expiry: 1_000,
    quotedAt: 5,
  }
  const fillOf = (logIndex: number, takerAmount: bigint) => ({
    orderHash: quote.orderHash,
    txHash: `0x${'cd'.repeat(32)}` as Hex,
    logIndex,
    blockNumber: 7n,
    makerAmount: (takerAmount * quote.makerAmount) / quote.takerAmount,
    takerAmount,
  })

  it('counts an event once however often it is read, and a later fill corrects an expired quote', () => {
    const journal = openJournal({ file: directory.path('rows.sqlite'), clock: new ManualClock(10) })
    try {
      expect(journal.recordFirmQuote(quote)).toMatchObject({ status: 'open', closed: false })
      expect(journal.recordFirmQuote(quote).status).toBe('open')
      expect(journal.recordFirmFill(fillOf(0, 500n * 10n ** 6n))).toMatchObject({
        status: 'partially-filled',
        filledTakerAmount: 500n * 10n ** 6n,
      })
      expect(journal.recordFirmFill(fillOf(0, 500n * 10n ** 6n))).toBeUndefined()
      expect(journal.getFirmQuote(quote.orderHash)?.filledTakerAmount).toBe(500n * 10n ** 6n)
      expect(journal.expireFirmQuotes({ chainId: 1, chainTimeSeconds: 1_000 })).toEqual([])
      expect(journal.expireFirmQuotes({ chainId: 1, chainTimeSeconds: 1_001 })).toMatchObject([
        { status: 'partially-filled', closed: true },
      ])
      expect(journal.recordFirmFill(fillOf(1, 1_500n * 10n ** 6n))).toMatchObject({
        status: 'filled',
        closed: true,
        filledMakerAmount: 10n ** 18n,
      })
      expect(journal.firmQuoteSummary()).toEqual({
        total: 1,
        byStatus: { open: 0, filled: 1, 'partially-filled': 0, expired: 0 },
        flows: {
          [`1:${weth.toLowerCase()}`]: { sold: 10n ** 18n, bought: 0n },
          [`1:${usdc.toLowerCase()}`]: { sold: 0n, bought: 2_000n * 10n ** 6n },
        },
      })
    } finally {
      journal.close()
    }
  })
})
