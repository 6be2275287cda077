import { type Address, getAddress, type Hex, maxUint256 } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { beforeAll, describe, expect, it } from 'vitest'
import { rfqAddresses } from '../../src/protocol/addresses.js'
import { packNonceAndMeta } from '../../src/protocol/nonce-and-meta.js'
import { buildRfqOrderTypedData, hashRfqOrder, type RfqOrder } from '../../src/protocol/rfq-order.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { placeContract } from '../../src/sandbox/chains/place-contract.js'
import { labelAddress, useTestChain } from '../helpers/chain.js'
import { type BoundContract, bindContract } from '../helpers/contract.js'
import { useSnapshotPerTest } from '../helpers/snapshot.js'

const chainId = 1
const ROUTER = getAddress('0x6a000f20005980200259b80c5102003040001068')
const rfqAddress = rfqAddresses[chainId]
if (!rfqAddress) throw new Error('no RFQ address for chain 1')

function developmentAccount(index: number) {
  const account = developmentAccounts[index]
  if (!account) throw new Error(`anvil development account ${index} missing`)
  return privateKeyToAccount(account.privateKey)
}

const admin = developmentAccount(0).address
const user = developmentAccount(1).address
const maker = developmentAccount(2)
const otherUser = developmentAccount(3).address
const beneficiary = labelAddress('router-rfq.beneficiary')

describe('MarketRouter.swapOnAugustusRFQTryBatchFill', () => {
  const chain = useTestChain(chainId)
  const router = bindContract(chain, 'MarketRouter', ROUTER)
  const rfq = bindContract(chain, 'RfqSettlement', rfqAddress)
  const makerAsset = bindContract(chain, 'SandboxToken', labelAddress('router-rfq.maker-asset'))
  const takerAsset = bindContract(chain, 'UsdtStyleToken', labelAddress('router-rfq.taker-asset'))
  const domain = { chainId, verifyingContract: rfqAddress }

  beforeAll(async () => {
    await placeContract(chain(), { name: 'RfqSettlement', address: rfqAddress })
    await placeContract(chain(), { name: 'MarketRouter', address: ROUTER })
    await chain().place('SandboxToken', 'router-rfq.maker-asset')
    await chain().place('UsdtStyleToken', 'router-rfq.taker-asset')
    await makerAsset.send(admin, 'initialize', ['Maker Asset', 'MKR', 18, '1', admin])
    await takerAsset.send(admin, 'initialize', ['Tether-like', 'TKR', 6, admin])
    await router.send(admin, 'initialize', [labelAddress('router-rfq.weth')])
    await router.send(admin, 'setRfqSettlement', [rfqAddress])
    await makerAsset.send(admin, 'mint', [maker.address, 1_000_000n])
    for (const holder of [user, otherUser]) {
      await takerAsset.send(admin, 'mint', [holder, 1_000_000n])
      await takerAsset.send(holder, 'approve', [ROUTER, maxUint256])
    }
    await makerAsset.send(maker.address, 'approve', [rfqAddress, maxUint256])
  })
  useSnapshotPerTest(chain)

  const balanceOf = async (token: BoundContract, holder: Address) => (await token.read('balanceOf', [holder])) as bigint
  /** A firm quote for `user`: 1000 maker asset for 300 taker asset, the router as taker, valid for an hour. */
  const firmOrder = async (overrides: Partial<RfqOrder> = {}): Promise<RfqOrder> => ({
    nonceAndMeta: packNonceAndMeta({ intendedTaker: user, nonce: 77n }),
    expiry: (await chain().publicClient.getBlock()).timestamp + 3_600n,
    makerAsset: makerAsset.address,
    takerAsset: takerAsset.address,
    maker: maker.address,
    taker: ROUTER,
    makerAmount: 1_000n,
    takerAmount: 300n,
    ...overrides,
  })
  const sign = (order: RfqOrder): Promise<Hex> => maker.signTypedData(buildRfqOrderTypedData(order, domain))

  it('fills the order for its user: the user pays takerFill, the beneficiary receives the rounded-down maker share', async () => {
    const order = await firmOrder()
    const signature = await sign(order)
    const before = {
      userTaker: await balanceOf(takerAsset, user),
      makerTaker: await balanceOf(takerAsset, maker.address),
      makerMaker: await balanceOf(makerAsset, maker.address),
    }
    const receipt = await router.send(user, 'swapOnAugustusRFQTryBatchFill', [order, signature, 200n, 666n, beneficiary, 0n])
    // 200 × 1000 / 300 = 666.67, rounded down.
    expect(await balanceOf(takerAsset, user)).toBe(before.userTaker - 200n)
    expect(await balanceOf(takerAsset, maker.address)).toBe(before.makerTaker + 200n)
    expect(await balanceOf(makerAsset, maker.address)).toBe(before.makerMaker - 666n)
    expect(await balanceOf(makerAsset, beneficiary)).toBe(666n)
    expect(await balanceOf(takerAsset, ROUTER)).toBe(0n)
    expect(rfq.events(receipt, 'OrderFilled').map((event) => event.args)).toEqual([
      {
        orderHash: hashRfqOrder(order, domain),
        maker: maker.address,
        makerAsset: makerAsset.address,
        makerAmount: 666n,
        taker: ROUTER,
        takerAsset: takerAsset.address,
        takerAmount: 200n,
      },
    ])
    expect(router.events(receipt, 'Swapped').map((event) => event.args)).toEqual([
      {
        user,
        srcToken: takerAsset.address,
        destToken: makerAsset.address,
        srcAmount: 200n,
        destAmount: 666n,
        beneficiary,
      },
    ])
  })

  it('pays the caller when the beneficiary is zero', async () => {
    const order = await firmOrder()
    await router.send(user, 'swapOnAugustusRFQTryBatchFill', [
      order,
      await sign(order),
      300n,
      1_000n,
      '0x0000000000000000000000000000000000000000',
      0n,
    ])
    expect(await balanceOf(makerAsset, user)).toBe(1_000n)
  })

  it('reverts "RFQ_USER_MISMATCH" when another user sends the calldata of a firm quote', async () => {
    const order = await firmOrder()
    const revert = await router.revert(otherUser, 'swapOnAugustusRFQTryBatchFill', [order, await sign(order), 300n, 1_000n, otherUser, 0n])
    expect(revert.reason).toBe('RFQ_USER_MISMATCH')
  })

  it('reverts "INSUFFICIENT_OUTPUT" when the maker share is below minMakerFill', async () => {
    const order = await firmOrder()
    const revert = await router.revert(user, 'swapOnAugustusRFQTryBatchFill', [order, await sign(order), 200n, 667n, beneficiary, 0n])
    expect(revert.reason).toBe('INSUFFICIENT_OUTPUT')
  })

  it('reverts "TransferHelper: TRANSFER_FROM_FAILED" when the user holds less than takerFill', async () => {
    const order = await firmOrder({ takerAmount: 2_000_000n, makerAmount: 1_000n })
    const revert = await router.revert(user, 'swapOnAugustusRFQTryBatchFill', [order, await sign(order), 1_500_000n, 0n, beneficiary, 0n])
    expect(revert.reason).toBe('TransferHelper: TRANSFER_FROM_FAILED')
  })

  it('reverts "EXPIRED" when the deadline has passed', async () => {
    const order = await firmOrder()
    const revert = await router.revert(user, 'swapOnAugustusRFQTryBatchFill', [order, await sign(order), 300n, 0n, beneficiary, 1n])
    expect(revert.reason).toBe('EXPIRED')
  })

  it('reverts AlreadyInitialized when the RFQ contract is set a second time', async () => {
    const revert = await router.revert(admin, 'setRfqSettlement', [labelAddress('router-rfq.other')])
    expect(revert.errorName).toBe('AlreadyInitialized')
  })
})
