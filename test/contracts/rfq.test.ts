import fc from 'fast-check'
import { type Address, domainSeparator, encodeFunctionData, erc20Abi, getAddress, type Hex, maxUint256, zeroAddress, zeroHash } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { beforeAll, describe, expect, it } from 'vitest'
import { rfqAddresses } from '../../src/protocol/addresses.js'
import { packNonceAndMeta } from '../../src/protocol/nonce-and-meta.js'
import { buildRfqOrderTypedData, getRfqDomain, hashRfqOrder, type RfqOrder } from '../../src/protocol/rfq-order.js'
import { toCompactSignature } from '../../src/protocol/signature.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { placeContract } from '../../src/sandbox/chains/place-contract.js'
import { labelAddress, useTestChain } from '../helpers/chain.js'
import { type BoundContract, bindContract } from '../helpers/contract.js'
import { useSnapshotPerTest } from '../helpers/snapshot.js'
import { addressArbitrary, uintArbitrary } from '../protocol/arbitraries.js'

const chainId = 1
const rfqAddress = rfqAddresses[chainId]
if (!rfqAddress) throw new Error('no RFQ address for chain 1')

function developmentAccount(index: number) {
  const account = developmentAccounts[index]
  if (!account) throw new Error(`anvil development account ${index} missing`)
  return privateKeyToAccount(account.privateKey)
}

const admin = developmentAccount(0).address
const taker = developmentAccount(1).address
const maker = developmentAccount(2)
const outsider = developmentAccount(3).address
const walletSigner = developmentAccount(4)
const target = labelAddress('rfq.target')
const initialBalance = 1_000_000n

describe('RfqSettlement', () => {
  const chain = useTestChain(chainId)
  const rfq = bindContract(chain, 'RfqSettlement', rfqAddress)
  const makerAsset = bindContract(chain, 'SandboxToken', labelAddress('rfq.maker-asset'))
  const takerAsset = bindContract(chain, 'SandboxToken', labelAddress('rfq.taker-asset'))
  const wallet = bindContract(chain, 'Eip1271Wallet', labelAddress('rfq.wallet'))
  const domain = { chainId, verifyingContract: rfqAddress }

  beforeAll(async () => {
    await placeContract(chain(), { name: 'RfqSettlement', address: rfqAddress })
    await chain().place('SandboxToken', 'rfq.maker-asset')
    await chain().place('SandboxToken', 'rfq.taker-asset')
    await chain().place('Eip1271Wallet', 'rfq.wallet')
    await makerAsset.send(admin, 'initialize', ['Maker Asset', 'MKR', 18, '1', admin])
    await takerAsset.send(admin, 'initialize', ['Taker Asset', 'TKR', 18, '1', admin])
    await wallet.send(admin, 'initialize', [walletSigner.address])
    await makerAsset.send(admin, 'mint', [maker.address, initialBalance])
    await makerAsset.send(admin, 'mint', [wallet.address, initialBalance])
    await takerAsset.send(admin, 'mint', [taker, initialBalance])
    await takerAsset.send(admin, 'mint', [outsider, initialBalance])
    await makerAsset.send(maker.address, 'approve', [rfqAddress, maxUint256])
    await takerAsset.send(taker, 'approve', [rfqAddress, maxUint256])
    await takerAsset.send(outsider, 'approve', [rfqAddress, maxUint256])
    const approve = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [rfqAddress, maxUint256] })
    await wallet.send(walletSigner.address, 'execute', [makerAsset.address, 0n, approve])
  })
  useSnapshotPerTest(chain)

  const latestTimestamp = async () => (await chain().publicClient.getBlock()).timestamp
  const balanceOf = async (token: BoundContract, holder: Address) => {
    const value = await token.read('balanceOf', [holder])
    if (typeof value !== 'bigint') throw new TypeError(`balanceOf returned ${typeof value}`)
    return value
  }
  /** Balances of both assets for the maker, the taker and the fill target. */
  const readBalances = async (makerAddress: Address = maker.address) => ({
    makerMakerAsset: await balanceOf(makerAsset, makerAddress),
    makerTakerAsset: await balanceOf(takerAsset, makerAddress),
    takerMakerAsset: await balanceOf(makerAsset, taker),
    takerTakerAsset: await balanceOf(takerAsset, taker),
    targetMakerAsset: await balanceOf(makerAsset, target),
  })
  const changesDuring = async (action: () => Promise<unknown>, makerAddress: Address = maker.address) => {
    const before = await readBalances(makerAddress)
    await action()
    const after = await readBalances(makerAddress)
    return {
      makerMakerAsset: after.makerMakerAsset - before.makerMakerAsset,
      makerTakerAsset: after.makerTakerAsset - before.makerTakerAsset,
      takerMakerAsset: after.takerMakerAsset - before.takerMakerAsset,
      takerTakerAsset: after.takerTakerAsset - before.takerTakerAsset,
      targetMakerAsset: after.targetMakerAsset - before.targetMakerAsset,
    }
  }

  /** 1000 maker asset for 300 taker asset, anyone may fill, valid for an hour. */
  const makeOrder = async (overrides: Partial<RfqOrder> = {}): Promise<RfqOrder> => ({
    nonceAndMeta: packNonceAndMeta({ intendedTaker: taker, nonce: 1n }),
    expiry: (await latestTimestamp()) + 3_600n,
    makerAsset: makerAsset.address,
    takerAsset: takerAsset.address,
    maker: maker.address,
    taker: zeroAddress,
    makerAmount: 1_000n,
    takerAmount: 300n,
    ...overrides,
  })
  const sign = (order: RfqOrder, signer = maker): Promise<Hex> => signer.signTypedData(buildRfqOrderTypedData(order, domain))
  const remaining = (order: RfqOrder) => rfq.read('remaining', [order.maker, hashRfqOrder(order, domain)])

  describe('EIP-712', () => {
    const orderArbitrary: fc.Arbitrary<RfqOrder> = fc.record({
      nonceAndMeta: uintArbitrary(256),
      expiry: uintArbitrary(128),
      makerAsset: addressArbitrary,
      takerAsset: addressArbitrary,
      maker: addressArbitrary,
      taker: addressArbitrary,
      makerAmount: uintArbitrary(256),
      takerAmount: uintArbitrary(256),
    })

    it('computes hashOrder equal to hashRfqOrder for random orders', async () => {
      await fc.assert(
        fc.asyncProperty(orderArbitrary, async (order) => {
          expect(await rfq.read('hashOrder', [order])).toBe(hashRfqOrder(order, domain))
        }),
        { numRuns: 25 },
      )
    })

    it('derives DOMAIN_SEPARATOR from the AUGUSTUS RFQ domain of the current chain and address', async () => {
      expect(await rfq.read('DOMAIN_SEPARATOR')).toBe(domainSeparator({ domain: getRfqDomain(domain) }))
    })

    it('describes its domain through eip712Domain', async () => {
      expect(await rfq.read('eip712Domain')).toEqual(['0x0f', 'AUGUSTUS RFQ', '1', 1n, getAddress(rfqAddress), zeroHash, []])
    })
  })

  describe('fillOrder', () => {
    it('swaps the full amounts between maker and taker', async () => {
      const order = await makeOrder()
      const signature = await sign(order)
      const changes = await changesDuring(() => rfq.send(taker, 'fillOrder', [order, signature]))
      expect(changes).toEqual({
        makerMakerAsset: -1_000n,
        makerTakerAsset: 300n,
        takerMakerAsset: 1_000n,
        takerTakerAsset: -300n,
        targetMakerAsset: 0n,
      })
    })

    it('emits OrderFilled with both sides of the fill', async () => {
      const order = await makeOrder()
      const receipt = await rfq.send(taker, 'fillOrder', [order, await sign(order)])
      expect(rfq.events(receipt, 'OrderFilled').map((log) => log.args)).toEqual([
        {
          orderHash: hashRfqOrder(order, domain),
          maker: maker.address,
          makerAsset: makerAsset.address,
          makerAmount: 1_000n,
          taker,
          takerAsset: takerAsset.address,
          takerAmount: 300n,
        },
      ])
    })

    it('marks a fully filled order with remaining 1', async () => {
      const order = await makeOrder()
      await rfq.send(taker, 'fillOrder', [order, await sign(order)])
      expect(await remaining(order)).toBe(1n)
    })

    it('reverts OrderFilledOrCancelled when a filled order is filled again', async () => {
      const order = await makeOrder()
      const signature = await sign(order)
      await rfq.send(taker, 'fillOrder', [order, signature])
      expect(await rfq.revert(taker, 'fillOrder', [order, signature])).toMatchObject({ errorName: 'OrderFilledOrCancelled' })
    })

    it('reverts FillExceedsRemaining when part of the order was already filled', async () => {
      const order = await makeOrder()
      const signature = await sign(order)
      await rfq.send(taker, 'partialFillOrder', [order, signature, 100n])
      const revert = await rfq.revert(taker, 'fillOrder', [order, signature])
      expect(revert).toMatchObject({ errorName: 'FillExceedsRemaining', args: [200n, 300n] })
    })

    it('reverts TransferFailed when the maker withdrew its allowance', async () => {
      await makerAsset.send(maker.address, 'approve', [rfqAddress, 0n])
      const order = await makeOrder()
      const revert = await rfq.revert(taker, 'fillOrder', [order, await sign(order)])
      expect(revert).toMatchObject({ errorName: 'TransferFailed', args: [makerAsset.address, maker.address, taker, 1_000n] })
    })
  })

  describe('partial fills', () => {
    it('returns the maker amount rounded down', async () => {
      const order = await makeOrder()
      expect(await rfq.simulate(taker, 'partialFillOrder', [order, await sign(order), 100n])).toBe(333n)
    })

    it('moves the taker fill and the rounded-down maker amount', async () => {
      const order = await makeOrder()
      const signature = await sign(order)
      const changes = await changesDuring(() => rfq.send(taker, 'partialFillOrder', [order, signature, 100n]))
      expect(changes).toEqual({
        makerMakerAsset: -333n,
        makerTakerAsset: 100n,
        takerMakerAsset: 333n,
        takerTakerAsset: -100n,
        targetMakerAsset: 0n,
      })
    })

    it('records the unfilled takerAmount plus one in remaining', async () => {
      const order = await makeOrder()
      await rfq.send(taker, 'partialFillOrder', [order, await sign(order), 100n])
      expect(await remaining(order)).toBe(201n)
    })

    it('reports 0 in remaining for an order never touched', async () => {
      expect(await remaining(await makeOrder())).toBe(0n)
    })

    it('fills an order to completion in parts', async () => {
      const order = await makeOrder()
      const signature = await sign(order)
      const changes = await changesDuring(async () => {
        await rfq.send(taker, 'partialFillOrder', [order, signature, 100n])
        await rfq.send(taker, 'partialFillOrder', [order, signature, 200n])
      })
      expect(changes).toMatchObject({ makerMakerAsset: -999n, makerTakerAsset: 300n })
      expect(await remaining(order)).toBe(1n)
    })

    it('checks the signature on the first fill only', async () => {
      const order = await makeOrder()
      await rfq.send(taker, 'partialFillOrder', [order, await sign(order), 100n])
      await rfq.send(taker, 'partialFillOrder', [order, '0x', 100n])
      expect(await remaining(order)).toBe(101n)
    })

    it('reverts FillExceedsRemaining when the fill is larger than what is left', async () => {
      const order = await makeOrder()
      const signature = await sign(order)
      await rfq.send(taker, 'partialFillOrder', [order, signature, 100n])
      const revert = await rfq.revert(taker, 'partialFillOrder', [order, signature, 201n])
      expect(revert).toMatchObject({ errorName: 'FillExceedsRemaining', args: [200n, 201n] })
    })

    it('reverts ZeroFillAmount when the fill is zero', async () => {
      const order = await makeOrder()
      expect(await rfq.revert(taker, 'partialFillOrder', [order, await sign(order), 0n])).toMatchObject({ errorName: 'ZeroFillAmount' })
    })

    it('sends the maker asset to the target with partialFillOrderWithTarget', async () => {
      const order = await makeOrder()
      const signature = await sign(order)
      const changes = await changesDuring(() => rfq.send(taker, 'partialFillOrderWithTarget', [order, signature, 300n, target]))
      expect(changes).toEqual({
        makerMakerAsset: -1_000n,
        makerTakerAsset: 300n,
        takerMakerAsset: 0n,
        takerTakerAsset: -300n,
        targetMakerAsset: 1_000n,
      })
    })
  })

  describe('taker restriction', () => {
    it('lets the named taker fill', async () => {
      const order = await makeOrder({ taker })
      await rfq.send(taker, 'fillOrder', [order, await sign(order)])
      expect(await remaining(order)).toBe(1n)
    })

    it('reverts UnauthorizedTaker when someone else fills an order with a named taker', async () => {
      const order = await makeOrder({ taker })
      const revert = await rfq.revert(outsider, 'fillOrder', [order, await sign(order)])
      expect(revert).toMatchObject({ errorName: 'UnauthorizedTaker', args: [taker, outsider] })
    })

    it('lets anyone fill an order whose taker is the zero address', async () => {
      const order = await makeOrder()
      await rfq.send(outsider, 'fillOrder', [order, await sign(order)])
      expect(await balanceOf(makerAsset, outsider)).toBe(1_000n)
    })
  })

  describe('expiry', () => {
    it('never expires an order with expiry 0', async () => {
      const order = await makeOrder({ expiry: 0n })
      await chain().testClient.increaseTime({ seconds: 10 * 365 * 24 * 3_600 })
      await chain().testClient.mine({ blocks: 1 })
      await rfq.send(taker, 'fillOrder', [order, await sign(order)])
      expect(await remaining(order)).toBe(1n)
    })

    it('reverts OrderExpired once the expiry has passed', async () => {
      const expiry = (await latestTimestamp()) - 1n
      const order = await makeOrder({ expiry })
      const revert = await rfq.revert(taker, 'fillOrder', [order, await sign(order)])
      expect(revert).toMatchObject({ errorName: 'OrderExpired', args: [expiry] })
    })
  })

  describe('signatures', () => {
    it('accepts the 64-byte ERC-2098 form of the maker signature', async () => {
      const order = await makeOrder()
      await rfq.send(taker, 'fillOrder', [order, toCompactSignature(await sign(order))])
      expect(await remaining(order)).toBe(1n)
    })

    it('reverts InvalidSignature when someone other than the maker signed', async () => {
      const order = await makeOrder()
      expect(await rfq.revert(taker, 'fillOrder', [order, await sign(order, walletSigner)])).toMatchObject({
        errorName: 'InvalidSignature',
      })
    })

    it('reverts InvalidSignature when the signature is empty on the first fill', async () => {
      const order = await makeOrder()
      expect(await rfq.revert(taker, 'fillOrder', [order, '0x'])).toMatchObject({ errorName: 'InvalidSignature' })
    })

    it('fills an order of an EIP-1271 maker whose signer signed it', async () => {
      const order = await makeOrder({ maker: wallet.address })
      const signature = await sign(order, walletSigner)
      const changes = await changesDuring(() => rfq.send(taker, 'fillOrder', [order, signature]), wallet.address)
      expect(changes).toMatchObject({ makerMakerAsset: -1_000n, makerTakerAsset: 300n })
    })

    it('reverts InvalidSignature when an EIP-1271 maker order is signed by someone other than its signer', async () => {
      const order = await makeOrder({ maker: wallet.address })
      expect(await rfq.revert(taker, 'fillOrder', [order, await sign(order, maker)])).toMatchObject({ errorName: 'InvalidSignature' })
    })
  })

  describe('cancellation', () => {
    it('sets remaining to 1 and emits OrderCancelled when the maker cancels', async () => {
      const order = await makeOrder()
      const orderHash = hashRfqOrder(order, domain)
      const receipt = await rfq.send(maker.address, 'cancelOrder', [orderHash])
      expect(await remaining(order)).toBe(1n)
      expect(rfq.events(receipt, 'OrderCancelled').map((log) => log.args)).toEqual([{ orderHash, maker: maker.address }])
    })

    it('reverts OrderFilledOrCancelled when a cancelled order is filled', async () => {
      const order = await makeOrder()
      await rfq.send(maker.address, 'cancelOrder', [hashRfqOrder(order, domain)])
      expect(await rfq.revert(taker, 'fillOrder', [order, await sign(order)])).toMatchObject({ errorName: 'OrderFilledOrCancelled' })
    })

    it('cancels every hash passed to cancelOrders', async () => {
      const first = await makeOrder({ nonceAndMeta: 1n })
      const second = await makeOrder({ nonceAndMeta: 2n })
      await rfq.send(maker.address, 'cancelOrders', [[hashRfqOrder(first, domain), hashRfqOrder(second, domain)]])
      expect([await remaining(first), await remaining(second)]).toEqual([1n, 1n])
    })

    it('stops the rest of a partially filled order', async () => {
      const order = await makeOrder()
      const signature = await sign(order)
      await rfq.send(taker, 'partialFillOrder', [order, signature, 100n])
      await rfq.send(maker.address, 'cancelOrder', [hashRfqOrder(order, domain)])
      expect(await rfq.revert(taker, 'partialFillOrder', [order, signature, 100n])).toMatchObject({ errorName: 'OrderFilledOrCancelled' })
    })

    it("leaves the maker's order fillable when another account cancels its hash", async () => {
      const order = await makeOrder()
      await rfq.send(outsider, 'cancelOrder', [hashRfqOrder(order, domain)])
      await rfq.send(taker, 'fillOrder', [order, await sign(order)])
      expect(await remaining(order)).toBe(1n)
    })
  })
})
