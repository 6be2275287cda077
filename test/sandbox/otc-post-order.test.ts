import { encodeFunctionData, erc20Abi, maxUint256, parseAbi, parseEther, parseUnits, zeroAddress } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import { hashRfqOrder, type RfqOrder } from '../../src/protocol/rfq-order.js'
import { toCompactSignature } from '../../src/protocol/signature.js'
import { sandboxAddress } from '../../src/sandbox/chains/catalogue.js'
import { sendFixtureCall } from '../../src/sandbox/chains/send.js'
import { getContractArtifact } from '../../src/sandbox/contracts/compile.js'
import { otcCounterpartyAddresses } from '../../src/sandbox/otc/otc-counterparty-accounts.js'
import {
  approveRfq,
  asOtcOrder,
  developmentAccount,
  makeRfqOrder,
  otcOrderBody,
  postOtcOrder,
  rfqDomain,
  sandboxNow,
  sandboxToken,
  signRfqOrder,
  userWallet,
} from '../helpers/otc.js'
import { request, useSandbox } from '../helpers/sandbox.js'

const chainId = 1

describe('POST /ft/p2p/{chainId}/', () => {
  const sandbox = useSandbox({ chainIds: [1, 8453] })
  const maker = developmentAccount(1)
  const taker = developmentAccount(2)

  beforeAll(async () => {
    await approveRfq(sandbox(), userWallet(sandbox(), chainId, 1), sandboxToken(sandbox(), chainId, 'USDC'))
  })

  /** 1000 USDC for 0.5 WETH from account 1 to account 2 (not a sandbox counterparty, so it stays PENDING). */
  const p2pOrder = (overrides: Partial<RfqOrder> = {}) =>
    makeRfqOrder({
      expiry: sandboxNow(sandbox()) + 3_600n,
      makerAsset: sandboxToken(sandbox(), chainId, 'USDC'),
      takerAsset: sandboxToken(sandbox(), chainId, 'WETH'),
      maker: maker.address,
      taker: taker.address,
      makerAmount: parseUnits('1000', 6),
      takerAmount: parseEther('0.5'),
      ...overrides,
    })

  it('stores a P2P order and answers its stored form with every field, PENDING', async () => {
    const order = p2pOrder()
    const signature = await signRfqOrder(1, order, rfqDomain(sandbox(), chainId))
    const before = Number(sandboxNow(sandbox()))
    const answer = await request(sandbox().url, 'POST', `/ft/p2p/${chainId}/`, otcOrderBody(order, signature))
    const stored = asOtcOrder(answer)
    expect(Object.keys(stored).sort()).toEqual(
      [
        'orderHash',
        'chainId',
        'nonceAndMeta',
        'expiry',
        'maker',
        'taker',
        'makerAsset',
        'takerAsset',
        'makerAmount',
        'takerAmount',
        'signature',
        'permitMakerAsset',
        'state',
        'type',
        'takerFromMeta',
        'makerBalance',
        'fillableBalance',
        'reservedBalance',
        'swappableBalance',
        'transactionHash',
        'createdAt',
        'updatedAt',
      ].sort(),
    )
    expect(stored).toMatchObject({
      orderHash: hashRfqOrder(order, rfqDomain(sandbox(), chainId)),
      chainId,
      nonceAndMeta: order.nonceAndMeta.toString(),
      expiry: Number(order.expiry),
      maker: maker.address.toLowerCase(),
      taker: taker.address.toLowerCase(),
      makerAsset: order.makerAsset.toLowerCase(),
      takerAsset: order.takerAsset.toLowerCase(),
      makerAmount: '1000000000',
      takerAmount: '500000000000000000',
      signature,
      permitMakerAsset: null,
      state: 'PENDING',
      type: 'P2P',
      takerFromMeta: taker.address.toLowerCase(),
      makerBalance: '1000000000',
      fillableBalance: '1000000000',
      reservedBalance: '1000000000',
      swappableBalance: '1000000000',
      transactionHash: null,
    })
    expect(stored.createdAt).toBeGreaterThanOrEqual(before)
    expect(stored.createdAt).toBeLessThanOrEqual(before + 5)
    expect(stored.updatedAt).toBe(stored.createdAt)
  })

  it('reads the stored order back by its hash', async () => {
    const posted = asOtcOrder(await postOtcOrder(sandbox(), 1, p2pOrder()))
    const read = asOtcOrder(await request(sandbox().url, 'GET', `/ft/order/${posted.orderHash}`))
    expect(read).toEqual(posted)
  })

  it('reads the order by its hash in upper case too', async () => {
    const posted = asOtcOrder(await postOtcOrder(sandbox(), 1, p2pOrder()))
    const read = asOtcOrder(await request(sandbox().url, 'GET', `/ft/order/0x${posted.orderHash.slice(2).toUpperCase()}`))
    expect(read.orderHash).toBe(posted.orderHash)
  })

  it('answers 404 with an error for an unknown hash', async () => {
    const answer = await request(sandbox().url, 'GET', `/ft/order/0x${'ab'.repeat(32)}`)
    expect(answer.status).toBe(404)
    expect(answer.json).toEqual({ error: expect.stringMatching(/^Order not found/) })
  })

  it('returns the stored order, not a second one, when the same order is posted again', async () => {
    const usdc = sandboxToken(sandbox(), chainId, 'USDC')
    await approveRfq(sandbox(), userWallet(sandbox(), chainId, 5), usdc)
    const order = p2pOrder({ maker: developmentAccount(5).address })
    const first = asOtcOrder(await postOtcOrder(sandbox(), 5, order))
    const second = asOtcOrder(await postOtcOrder(sandbox(), 5, order))
    expect(second).toEqual(first)
    const reserved = await request(sandbox().url, 'GET', `/ft/fillablebalance/${chainId}/${developmentAccount(5).address}`)
    expect(reserved.json).toEqual({ [usdc.toLowerCase()]: '1000000000' })
  })

  it('accepts the path without the trailing slash', async () => {
    const order = p2pOrder()
    const signature = await signRfqOrder(1, order, rfqDomain(sandbox(), chainId))
    const answer = await request(sandbox().url, 'POST', `/ft/p2p/${chainId}`, otcOrderBody(order, signature))
    expect(asOtcOrder(answer).orderHash).toBe(hashRfqOrder(order, rfqDomain(sandbox(), chainId)))
  })

  it('accepts a 64-byte (ERC-2098 compact) signature and returns it as posted', async () => {
    const order = p2pOrder()
    const compact = toCompactSignature(await signRfqOrder(1, order, rfqDomain(sandbox(), chainId)))
    const answer = await request(sandbox().url, 'POST', `/ft/p2p/${chainId}/`, otcOrderBody(order, compact))
    const stored = asOtcOrder(answer)
    expect(stored.state).toBe('PENDING')
    expect(stored.signature).toBe(compact)
  })

  it('makes an order with the zero address as taker an open LIMIT order', async () => {
    const stored = asOtcOrder(await postOtcOrder(sandbox(), 1, p2pOrder({ taker: zeroAddress })))
    expect(stored.type).toBe('LIMIT')
    expect(stored.taker).toBe(zeroAddress)
  })

  it('stores an order that never expires (expiry 0)', async () => {
    const stored = asOtcOrder(await postOtcOrder(sandbox(), 1, p2pOrder({ expiry: 0n })))
    expect(stored).toMatchObject({ expiry: 0, state: 'PENDING' })
  })

  it('stores an order of the second chain under that chain domain', async () => {
    const base = 8453
    await approveRfq(sandbox(), userWallet(sandbox(), base, 1), sandboxToken(sandbox(), base, 'USDC'))
    const order = p2pOrder({ makerAsset: sandboxToken(sandbox(), base, 'USDC'), takerAsset: sandboxToken(sandbox(), base, 'WETH') })
    const stored = asOtcOrder(await postOtcOrder(sandbox(), 1, order, base))
    expect(stored).toMatchObject({ chainId: base, state: 'PENDING', orderHash: hashRfqOrder(order, rfqDomain(sandbox(), base)) })
  })

  it('accepts an EIP-1271 maker whose wallet contract validates the signature', async () => {
    const chain = sandbox().venue.chains.get(chainId)
    if (!chain) throw new Error('chain 1 missing')
    const walletAddress = sandboxAddress('test.otc.eip1271-wallet')
    const signer = developmentAccount(3)
    const usdc = sandboxToken(sandbox(), chainId, 'USDC')
    const walletAbi = getContractArtifact('Eip1271Wallet').abi
    await chain.clients.testClient.setCode({ address: walletAddress, bytecode: getContractArtifact('Eip1271Wallet').deployedBytecode })
    await sendFixtureCall(chain.clients, {
      from: signer.address,
      to: walletAddress,
      abi: walletAbi,
      functionName: 'initialize',
      args: [signer.address],
    })
    const mintAbi = parseAbi(['function mint(address to, uint256 amount)'])
    await sendFixtureCall(chain.clients, {
      from: chain.fixture.operator,
      to: usdc,
      abi: mintAbi,
      functionName: 'mint',
      args: [walletAddress, 5_000_000_000n],
    })
    const approve = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [chain.fixture.contracts.rfq, maxUint256] })
    await sendFixtureCall(chain.clients, {
      from: signer.address,
      to: walletAddress,
      abi: walletAbi,
      functionName: 'execute',
      args: [usdc, 0n, approve],
    })

    const order = p2pOrder({ maker: walletAddress })
    // The wallet's signer signs the order; the wallet (the maker) vouches for it through isValidSignature.
    const answer = await postOtcOrder(sandbox(), 3, order)
    expect(asOtcOrder(answer)).toMatchObject({ maker: walletAddress.toLowerCase(), state: 'PENDING', makerBalance: '1000000000' })
  })

  it('refuses an EIP-1271 maker whose wallet does not validate the signature', async () => {
    const walletAddress = sandboxAddress('test.otc.eip1271-wallet')
    const answer = await postOtcOrder(sandbox(), 4, p2pOrder({ maker: walletAddress }))
    expect(answer.status).toBe(400)
    expect(answer.json).toEqual({ error: expect.stringMatching(/^Invalid signature: .*isValidSignature/) })
  })

  it('lists the simulated counterparties at /_sandbox/otc/counterparties', async () => {
    const answer = await request(sandbox().url, 'GET', '/_sandbox/otc/counterparties')
    expect(answer.status).toBe(200)
    expect((answer.json as { counterparties: unknown }).counterparties).toEqual(otcCounterpartyAddresses())
    expect(otcCounterpartyAddresses()).toHaveLength(3)
  })
})
