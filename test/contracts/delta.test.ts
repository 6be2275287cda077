import fc from 'fast-check'
import { domainSeparator, getAddress, type Hex, maxUint256, parseSignature, toHex, zeroHash } from 'viem'
import { describe, expect, it } from 'vitest'
import { deltaAddress, nativeTokenPlaceholder, permit2Address } from '../../src/protocol/addresses.js'
import {
  type DeltaBridge,
  type DeltaOrder,
  type ExternalOrder,
  hashDeltaOrder,
  hashExternalOrder,
  hashOrderCancellations,
  hashTwapBuyOrder,
  hashTwapOrder,
  type OrderKind,
  type TwapBuyOrder,
  type TwapOrder,
  zeroBridge,
} from '../../src/protocol/delta-order.js'
import { encodeDeltaPermit } from '../../src/protocol/delta-permit.js'
import { getDeltaDomain } from '../../src/protocol/delta-types.js'
import { packPartnerAndFee } from '../../src/protocol/partner-and-fee.js'
import { buildPermitSingleTypedData, buildPermitTransferFromTypedData } from '../../src/protocol/permit2.js'
import { toCompactSignature } from '../../src/protocol/signature.js'
import { buildDaiPermitTypedData, buildEip2612PermitTypedData } from '../../src/protocol/token-permits.js'
import { labelAddress } from '../helpers/chain.js'
import { addressArbitrary, bytesArbitrary, uintArbitrary } from '../protocol/arbitraries.js'
import { actors, useDeltaFixture } from './delta-fixture.js'

const { admin, agent, owner, outsider, walletSigner, partner, beneficiary, handler } = actors
const NATIVE = nativeTokenPlaceholder
const withPartnerFee = (feeBps: number) => packPartnerAndFee({ partner, feeBps, partnerTakesSurplus: false, capSurplus: false })
const crosschainBridge: DeltaBridge = {
  protocolSelector: '0x12345678',
  destinationChainId: 8453n,
  outputToken: labelAddress('delta.output-token'),
  scalingFactor: -2,
  protocolData: '0xabcdef',
}

/** (v, r, s) of a 65-byte signature, for permit arguments. */
function splitSignature(signature: Hex) {
  const { r, s, yParity } = parseSignature(signature)
  return { v: yParity + 27, r, s }
}

describe('DeltaSettlement', () => {
  const fixture = useDeltaFixture()
  const { delta, permit2, src, dest, permitToken, dai, usdt, wallet } = fixture

  const settle = (order: DeltaOrder, signature: Hex, fillAmount: bigint, agentAmount: bigint, value = 0n) =>
    delta.send(agent, 'settleOrder', [order, signature, fillAmount, agentAmount], value)
  const settleReverts = (order: unknown, signature: Hex, fillAmount: bigint, agentAmount: bigint, value = 0n) =>
    delta.revert(agent, 'settleOrder', [order, signature, fillAmount, agentAmount], value)
  const orderSettledArgs = (receipt: Parameters<typeof delta.events>[0]) => delta.events(receipt, 'OrderSettled').map((log) => log.args)

  describe('EIP-712 hashes', () => {
    const uint256 = uintArbitrary(256)
    const bridgeArbitrary: fc.Arbitrary<DeltaBridge> = fc.oneof(
      fc.constant(zeroBridge),
      fc.record({
        protocolSelector: fc.uint8Array({ minLength: 4, maxLength: 4 }).map((bytes) => toHex(bytes)),
        destinationChainId: uint256,
        outputToken: addressArbitrary,
        scalingFactor: fc.integer({ min: -128, max: 127 }),
        protocolData: bytesArbitrary(200),
      }),
    )
    const kindArbitrary = fc.constantFrom<OrderKind>(0, 1)
    const orderArbitrary: fc.Arbitrary<DeltaOrder> = fc.record({
      owner: addressArbitrary,
      beneficiary: addressArbitrary,
      srcToken: addressArbitrary,
      destToken: addressArbitrary,
      srcAmount: uint256,
      destAmount: uint256,
      expectedAmount: uint256,
      deadline: uint256,
      kind: kindArbitrary,
      nonce: uint256,
      partnerAndFee: uint256,
      permit: bytesArbitrary(300),
      metadata: bytesArbitrary(100),
      bridge: bridgeArbitrary,
    })
    const twapCommon = {
      owner: addressArbitrary,
      beneficiary: addressArbitrary,
      srcToken: addressArbitrary,
      destToken: addressArbitrary,
      nonce: uint256,
      partnerAndFee: uint256,
      deadline: uintArbitrary(64),
      interval: uintArbitrary(64),
      numSlices: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
      permit: bytesArbitrary(300),
      metadata: bytesArbitrary(100),
      bridge: bridgeArbitrary,
    }
    const twapOrderArbitrary: fc.Arbitrary<TwapOrder> = fc.record({ ...twapCommon, destAmountPerSlice: uint256, totalSrcAmount: uint256 })
    const twapBuyOrderArbitrary: fc.Arbitrary<TwapBuyOrder> = fc.record({ ...twapCommon, totalDestAmount: uint256, maxSrcAmount: uint256 })
    const externalOrderArbitrary: fc.Arbitrary<ExternalOrder> = fc.record({
      owner: addressArbitrary,
      handler: addressArbitrary,
      srcToken: addressArbitrary,
      destToken: addressArbitrary,
      srcAmount: uint256,
      destAmount: uint256,
      expectedAmount: uint256,
      deadline: uint256,
      kind: kindArbitrary,
      nonce: uint256,
      partnerAndFee: uint256,
      permit: bytesArbitrary(300),
      metadata: bytesArbitrary(100),
      data: bytesArbitrary(300),
    })
    const orderIdsArbitrary = fc.array(fc.oneof(fc.uuid(), fc.string({ unit: 'grapheme', maxLength: 40 })), { maxLength: 12 })

    it('computes hashOrder equal to hashDeltaOrder for random same-chain and crosschain orders', async () => {
      await fc.assert(
        fc.asyncProperty(orderArbitrary, async (order) => {
          expect(await delta.read('hashOrder', [order])).toBe(hashDeltaOrder(order, fixture.domain()))
        }),
        { numRuns: 25 },
      )
    })

    it('computes hashTwapOrder equal to the TypeScript hash for random TWAP orders', async () => {
      await fc.assert(
        fc.asyncProperty(twapOrderArbitrary, async (order) => {
          expect(await delta.read('hashTwapOrder', [order])).toBe(hashTwapOrder(order, fixture.domain()))
        }),
        { numRuns: 25 },
      )
    })

    it('computes hashTwapBuyOrder equal to the TypeScript hash for random TWAP buy orders', async () => {
      await fc.assert(
        fc.asyncProperty(twapBuyOrderArbitrary, async (order) => {
          expect(await delta.read('hashTwapBuyOrder', [order])).toBe(hashTwapBuyOrder(order, fixture.domain()))
        }),
        { numRuns: 25 },
      )
    })

    it('computes hashExternalOrder equal to the TypeScript hash for random external orders', async () => {
      await fc.assert(
        fc.asyncProperty(externalOrderArbitrary, async (order) => {
          expect(await delta.read('hashExternalOrder', [order])).toBe(hashExternalOrder(order, fixture.domain()))
        }),
        { numRuns: 25 },
      )
    })

    it('computes hashOrderCancellations equal to the TypeScript hash for random order id lists', async () => {
      await fc.assert(
        fc.asyncProperty(orderIdsArbitrary, async (orderIds) => {
          expect(await delta.read('hashOrderCancellations', [orderIds])).toBe(hashOrderCancellations(orderIds, fixture.domain()))
        }),
        { numRuns: 25 },
      )
    })

    it('derives DOMAIN_SEPARATOR from the Portikus domain of the current chain and address', async () => {
      expect(await delta.read('DOMAIN_SEPARATOR')).toBe(domainSeparator({ domain: getDeltaDomain(fixture.domain()) }))
    })

    it('describes its domain through eip712Domain', async () => {
      expect(await delta.read('eip712Domain')).toEqual(['0x0f', 'Portikus', '2.0.0', 31_337n, getAddress(deltaAddress), zeroHash, []])
    })
  })

  describe('admin and agents', () => {
    it('reverts AlreadyInitialized when initialised a second time', async () => {
      expect(await delta.revert(outsider, 'initialize', [outsider])).toMatchObject({ errorName: 'AlreadyInitialized' })
    })

    it('registers an agent and emits AgentUpdated when the admin calls setAgent', async () => {
      const receipt = await delta.send(admin, 'setAgent', [outsider, true])
      expect(await delta.read('isAgent', [outsider])).toBe(true)
      expect(delta.events(receipt, 'AgentUpdated')[0]?.args).toEqual({ agent: outsider, allowed: true })
    })

    it('removes an agent when the admin calls setAgent with false', async () => {
      await delta.send(admin, 'setAgent', [agent, false])
      expect(await delta.read('isAgent', [agent])).toBe(false)
    })

    it('reverts NotAdmin when someone else calls setAgent', async () => {
      expect(await delta.revert(outsider, 'setAgent', [outsider, true])).toMatchObject({ errorName: 'NotAdmin' })
    })

    it('reverts NotAgent when an unregistered address settles', async () => {
      const order = await fixture.makeOrder()
      const signature = await fixture.signOrder(order)
      const revert = await delta.revert(outsider, 'settleOrder', [order, signature, 1_000n, 2_000n])
      expect(revert.errorName).toBe('NotAgent')
    })
  })

  describe('signatures', () => {
    it('accepts the 64-byte ERC-2098 form of the owner signature', async () => {
      const order = await fixture.makeOrder()
      await settle(order, toCompactSignature(await fixture.signOrder(order)), 1_000n, 2_000n)
      expect(await delta.read('filledAmount', [hashDeltaOrder(order, fixture.domain())])).toBe(1_000n)
    })

    it('accepts an EIP-1271 wallet owner whose signer signed the order', async () => {
      const order = await fixture.makeOrder({ owner: wallet.address })
      const signature = await fixture.signOrder(order, walletSigner)
      const { changes } = await fixture.balanceChanges({ walletSrc: [src, wallet.address], walletDest: [dest, wallet.address] }, () =>
        settle(order, signature, 1_000n, 2_000n),
      )
      expect(changes).toEqual({ walletSrc: -1_000n, walletDest: 2_000n })
    })

    it('reverts InvalidSignature when an EIP-1271 wallet order is signed by someone other than its signer', async () => {
      const order = await fixture.makeOrder({ owner: wallet.address })
      const signature = await fixture.signOrder(order, owner)
      expect(await settleReverts(order, signature, 1_000n, 2_000n)).toMatchObject({ errorName: 'InvalidSignature' })
    })

    it('reverts InvalidSignature when someone other than the owner signed', async () => {
      const order = await fixture.makeOrder()
      const signature = await fixture.signOrder(order, walletSigner)
      expect(await settleReverts(order, signature, 1_000n, 2_000n)).toMatchObject({ errorName: 'InvalidSignature' })
    })

    it('reverts InvalidSignature when the order was changed after signing', async () => {
      const order = await fixture.makeOrder()
      const signature = await fixture.signOrder(order)
      expect(await settleReverts({ ...order, destAmount: 1n }, signature, 1_000n, 2_000n)).toMatchObject({ errorName: 'InvalidSignature' })
    })

    it('reverts InvalidSignature when the signature is neither 64 nor 65 bytes', async () => {
      const order = await fixture.makeOrder()
      const signature = (await fixture.signOrder(order)).slice(0, -4) as Hex
      expect(await settleReverts(order, signature, 1_000n, 2_000n)).toMatchObject({ errorName: 'InvalidSignature' })
    })
  })

  describe('settleOrder', () => {
    it('moves the full source to the agent and the agent payment to the owner on a full sell', async () => {
      const order = await fixture.makeOrder()
      const signature = await fixture.signOrder(order)
      const { changes } = await fixture.balanceChanges(
        { ownerSrc: [src, owner.address], agentSrc: [src, agent], ownerDest: [dest, owner.address], agentDest: [dest, agent] },
        () => settle(order, signature, 1_000n, 2_050n),
      )
      expect(changes).toEqual({ ownerSrc: -1_000n, agentSrc: 1_000n, ownerDest: 2_050n, agentDest: -2_050n })
    })

    it('emits OrderSettled with the amounts of the fill', async () => {
      const order = await fixture.makeOrder({ beneficiary })
      const receipt = await settle(order, await fixture.signOrder(order), 1_000n, 2_050n)
      expect(orderSettledArgs(receipt)).toEqual([
        {
          orderHash: hashDeltaOrder(order, fixture.domain()),
          owner: owner.address,
          agent,
          srcToken: src.address,
          destToken: dest.address,
          srcAmount: 1_000n,
          destAmount: 2_050n,
          beneficiary,
        },
      ])
    })

    it('delivers the fixed destination to the beneficiary and takes the agent amount of source on a buy', async () => {
      const order = await fixture.makeOrder({ kind: 1, beneficiary })
      const signature = await fixture.signOrder(order)
      const { changes } = await fixture.balanceChanges(
        { ownerSrc: [src, owner.address], agentSrc: [src, agent], beneficiaryDest: [dest, beneficiary], agentDest: [dest, agent] },
        () => settle(order, signature, 2_000n, 950n),
      )
      expect(changes).toEqual({ ownerSrc: -950n, agentSrc: 950n, beneficiaryDest: 2_000n, agentDest: -2_000n })
    })

    it('fills a sell in parts until the whole srcAmount is filled', async () => {
      const order = await fixture.makeOrder()
      const signature = await fixture.signOrder(order)
      const orderHash = hashDeltaOrder(order, fixture.domain())
      const { changes } = await fixture.balanceChanges({ ownerSrc: [src, owner.address], ownerDest: [dest, owner.address] }, async () => {
        await settle(order, signature, 400n, 800n)
        expect(await delta.read('filledAmount', [orderHash])).toBe(400n)
        await settle(order, signature, 600n, 1_200n)
      })
      expect(changes).toEqual({ ownerSrc: -1_000n, ownerDest: 2_000n })
      expect(await delta.read('filledAmount', [orderHash])).toBe(1_000n)
    })

    it('fills a buy in parts with the source limit proportional to each part', async () => {
      const order = await fixture.makeOrder({ kind: 1 })
      const signature = await fixture.signOrder(order)
      const { changes } = await fixture.balanceChanges({ ownerSrc: [src, owner.address], ownerDest: [dest, owner.address] }, async () => {
        await settle(order, signature, 500n, 250n)
        await settle(order, signature, 1_500n, 750n)
      })
      expect(changes).toEqual({ ownerSrc: -1_000n, ownerDest: 2_000n })
    })

    it('reverts OrderAlreadyFilled when a fully filled order is settled again', async () => {
      const order = await fixture.makeOrder()
      const signature = await fixture.signOrder(order)
      await settle(order, signature, 1_000n, 2_000n)
      expect(await settleReverts(order, signature, 1n, 2n)).toMatchObject({ errorName: 'OrderAlreadyFilled' })
    })

    it('reverts OrderOverfilled when a fill exceeds what is left of the order', async () => {
      const order = await fixture.makeOrder()
      const signature = await fixture.signOrder(order)
      await settle(order, signature, 600n, 1_200n)
      expect(await settleReverts(order, signature, 401n, 802n)).toMatchObject({ errorName: 'OrderOverfilled' })
    })

    it('reverts InvalidFillAmount when the fill is zero', async () => {
      const order = await fixture.makeOrder()
      expect(await settleReverts(order, await fixture.signOrder(order), 0n, 0n)).toMatchObject({ errorName: 'InvalidFillAmount' })
    })

    it('reverts InsufficientDestAmount with the minimum rounded up when a partial sell pays too little', async () => {
      const order = await fixture.makeOrder({ srcAmount: 3n, destAmount: 10n })
      const revert = await settleReverts(order, await fixture.signOrder(order), 1n, 3n)
      expect(revert).toMatchObject({ errorName: 'InsufficientDestAmount', args: [4n, 3n] })
    })

    it('reverts ExcessiveSrcAmount with the maximum rounded down when a partial buy takes too much', async () => {
      const order = await fixture.makeOrder({ kind: 1, srcAmount: 10n, destAmount: 3n })
      const revert = await settleReverts(order, await fixture.signOrder(order), 1n, 4n)
      expect(revert).toMatchObject({ errorName: 'ExcessiveSrcAmount', args: [3n, 4n] })
    })

    it('reverts OrderExpired when the deadline has passed', async () => {
      const order = await fixture.makeOrder({ deadline: (await fixture.latestTimestamp()) - 1n })
      expect(await settleReverts(order, await fixture.signOrder(order), 1_000n, 2_000n)).toMatchObject({ errorName: 'OrderExpired' })
    })

    it('reverts InvalidOrderKind when kind is neither sell nor buy', async () => {
      const order = await fixture.makeOrder()
      const revert = await settleReverts({ ...order, kind: 2 }, await fixture.signOrder(order), 1_000n, 2_000n)
      expect(revert).toMatchObject({ errorName: 'InvalidOrderKind', args: [2] })
    })
  })

  describe('partner fee', () => {
    it('cuts the fee from the agent payment on a sell and pays the rest to the beneficiary', async () => {
      const order = await fixture.makeOrder({ partnerAndFee: withPartnerFee(100) })
      const signature = await fixture.signOrder(order)
      const { changes, result } = await fixture.balanceChanges(
        { ownerDest: [dest, owner.address], partnerDest: [dest, partner], agentDest: [dest, agent] },
        () => settle(order, signature, 1_000n, 3_000n),
      )
      expect(changes).toEqual({ ownerDest: 2_970n, partnerDest: 30n, agentDest: -3_000n })
      expect(orderSettledArgs(result)[0]).toMatchObject({ srcAmount: 1_000n, destAmount: 2_970n })
    })

    it('reverts InsufficientDestAmount when the payment after the fee is below the minimum', async () => {
      const order = await fixture.makeOrder({ partnerAndFee: withPartnerFee(100) })
      const revert = await settleReverts(order, await fixture.signOrder(order), 1_000n, 2_010n)
      expect(revert).toMatchObject({ errorName: 'InsufficientDestAmount', args: [2_000n, 1_990n] })
    })

    it('pulls the fee from the owner on top of the agent amount on a buy', async () => {
      const order = await fixture.makeOrder({ kind: 1, partnerAndFee: withPartnerFee(100) })
      const signature = await fixture.signOrder(order)
      const { changes } = await fixture.balanceChanges(
        { ownerSrc: [src, owner.address], agentSrc: [src, agent], partnerSrc: [src, partner] },
        () => settle(order, signature, 2_000n, 900n),
      )
      expect(changes).toEqual({ ownerSrc: -909n, agentSrc: 900n, partnerSrc: 9n })
    })

    it('reverts ExcessiveSrcAmount when the agent amount plus the fee exceeds the buy maximum', async () => {
      const order = await fixture.makeOrder({ kind: 1, partnerAndFee: withPartnerFee(100) })
      const revert = await settleReverts(order, await fixture.signOrder(order), 2_000n, 995n)
      expect(revert).toMatchObject({ errorName: 'ExcessiveSrcAmount', args: [1_000n, 1_004n] })
    })

    it('charges no fee when feeBps is set without a partner address', async () => {
      const order = await fixture.makeOrder({ partnerAndFee: 150n })
      const signature = await fixture.signOrder(order)
      const { changes } = await fixture.balanceChanges({ ownerDest: [dest, owner.address] }, () => settle(order, signature, 1_000n, 3_000n))
      expect(changes).toEqual({ ownerDest: 3_000n })
    })

    it('reverts FeeTooHigh when feeBps is above 200', async () => {
      const order = await fixture.makeOrder({ partnerAndFee: (BigInt(partner) << 96n) | 201n })
      expect(await settleReverts(order, await fixture.signOrder(order), 1_000n, 3_000n)).toMatchObject({ errorName: 'FeeTooHigh' })
    })
  })

  describe('permits', () => {
    const approvePermit2 = () => permitToken.send(owner.address, 'approve', [permit2Address, maxUint256])
    const permitHoldings = { ownerToken: [permitToken, owner.address], agentToken: [permitToken, agent] } as const

    it('pulls a USDT-style source through a plain allowance when the permit is empty', async () => {
      const order = await fixture.makeOrder({ srcToken: usdt.address })
      const signature = await fixture.signOrder(order)
      const { changes } = await fixture.balanceChanges({ ownerUsdt: [usdt, owner.address], agentUsdt: [usdt, agent] }, () =>
        settle(order, signature, 1_000n, 2_000n),
      )
      expect(changes).toEqual({ ownerUsdt: -1_000n, agentUsdt: 1_000n })
    })

    it('reverts TransferFailed when the owner gave no allowance', async () => {
      const order = await fixture.makeOrder({ srcToken: permitToken.address })
      const revert = await settleReverts(order, await fixture.signOrder(order), 1_000n, 2_000n)
      expect(revert).toMatchObject({ errorName: 'TransferFailed', args: [permitToken.address, owner.address, agent, 1_000n] })
    })

    it('pulls through an existing Permit2 allowance when the permit is 0x01', async () => {
      await approvePermit2()
      const expiration = (await fixture.latestTimestamp()) + 3_600n
      await permit2.send(owner.address, 'approve', [permitToken.address, deltaAddress, 1_000n, expiration])
      const order = await fixture.makeOrder({ srcToken: permitToken.address, permit: '0x01' })
      const signature = await fixture.signOrder(order)
      const { changes } = await fixture.balanceChanges(permitHoldings, () => settle(order, signature, 1_000n, 2_000n))
      expect(changes).toEqual({ ownerToken: -1_000n, agentToken: 1_000n })
      expect(await permit2.read('allowance', [owner.address, permitToken.address, deltaAddress])).toEqual([0n, Number(expiration), 0])
    })

    describe('96-byte Permit2 signature transfer', () => {
      const makeOrderWithTransferPermit = async (overrides: Partial<DeltaOrder> = {}) => {
        const order = await fixture.makeOrder({ srcToken: permitToken.address, ...overrides })
        const signature = await owner.signTypedData(
          buildPermitTransferFromTypedData({
            chainId: fixture.domain().chainId,
            token: permitToken.address,
            amount: order.srcAmount,
            spender: deltaAddress,
            nonce: 7n,
            deadline: order.deadline,
          }),
        )
        return { ...order, permit: encodeDeltaPermit({ type: 'permit2Transfer', nonce: 7n, signature }) }
      }

      it('pulls the source with the signed transfer on a full fill', async () => {
        await approvePermit2()
        const order = await makeOrderWithTransferPermit()
        const signature = await fixture.signOrder(order)
        const { changes } = await fixture.balanceChanges(permitHoldings, () => settle(order, signature, 1_000n, 2_000n))
        expect(changes).toEqual({ ownerToken: -1_000n, agentToken: 1_000n })
      })

      it('routes the buy-side partner fee through the contract with the single signed transfer', async () => {
        await approvePermit2()
        const order = await makeOrderWithTransferPermit({ kind: 1, partnerAndFee: withPartnerFee(100) })
        const signature = await fixture.signOrder(order)
        const { changes } = await fixture.balanceChanges(
          { ...permitHoldings, partnerToken: [permitToken, partner], deltaToken: [permitToken, deltaAddress] },
          () => settle(order, signature, 2_000n, 900n),
        )
        expect(changes).toEqual({ ownerToken: -909n, agentToken: 900n, partnerToken: 9n, deltaToken: 0n })
      })

      it('reverts PermitNotAllowedForPartialFill on a partial fill', async () => {
        await approvePermit2()
        const order = await makeOrderWithTransferPermit()
        const revert = await settleReverts(order, await fixture.signOrder(order), 500n, 1_000n)
        expect(revert.errorName).toBe('PermitNotAllowedForPartialFill')
      })
    })

    describe('192-byte Permit2 allowance permit', () => {
      const makeOrderWithAllowancePermit = async () => {
        const deadline = (await fixture.latestTimestamp()) + 3_600n
        const permitSingle = { token: permitToken.address, amount: 1_000n, expiration: deadline, nonce: 0n, sigDeadline: deadline }
        const permitSignature = await owner.signTypedData(
          buildPermitSingleTypedData({ chainId: fixture.domain().chainId, spender: deltaAddress, ...permitSingle }),
        )
        const permit = encodeDeltaPermit({ type: 'permit2Allowance', ...permitSingle, signature: permitSignature })
        const order = await fixture.makeOrder({ srcToken: permitToken.address, permit, deadline })
        return { order, permitSingle, permitSignature }
      }

      it('submits the permit on the first fill and uses the Permit2 allowance for the later ones', async () => {
        await approvePermit2()
        const { order } = await makeOrderWithAllowancePermit()
        const signature = await fixture.signOrder(order)
        const { changes } = await fixture.balanceChanges(permitHoldings, async () => {
          await settle(order, signature, 400n, 800n)
          await settle(order, signature, 600n, 1_200n)
        })
        expect(changes).toEqual({ ownerToken: -1_000n, agentToken: 1_000n })
      })

      it('still settles when someone submitted the permit to Permit2 first', async () => {
        await approvePermit2()
        const { order, permitSingle, permitSignature } = await makeOrderWithAllowancePermit()
        const { token, amount, expiration, nonce, sigDeadline } = permitSingle
        const details = { token, amount, expiration: Number(expiration), nonce: Number(nonce) }
        await permit2.send(outsider, 'permit', [owner.address, { details, spender: deltaAddress, sigDeadline }, permitSignature])
        const signature = await fixture.signOrder(order)
        const { changes } = await fixture.balanceChanges(permitHoldings, () => settle(order, signature, 1_000n, 2_000n))
        expect(changes).toEqual({ ownerToken: -1_000n, agentToken: 1_000n })
      })
    })

    describe('224-byte EIP-2612 permit', () => {
      const makeOrderWithEip2612Permit = async () => {
        const deadline = (await fixture.latestTimestamp()) + 3_600n
        const tokenDomain = {
          name: 'Permit Token',
          version: '1',
          chainId: fixture.domain().chainId,
          verifyingContract: permitToken.address,
        }
        const permitSignature = await owner.signTypedData(
          buildEip2612PermitTypedData({
            domain: tokenDomain,
            owner: owner.address,
            spender: deltaAddress,
            value: 1_000n,
            nonce: 0n,
            deadline,
          }),
        )
        const permitArgs = { owner: owner.address, spender: deltaAddress, value: 1_000n, deadline, ...splitSignature(permitSignature) }
        const order = await fixture.makeOrder({
          srcToken: permitToken.address,
          permit: encodeDeltaPermit({ type: 'eip2612', ...permitArgs }),
        })
        return { order, permitArgs }
      }

      it('submits the permit on the first fill and uses the resulting allowance for the later ones', async () => {
        const { order } = await makeOrderWithEip2612Permit()
        const signature = await fixture.signOrder(order)
        const { changes } = await fixture.balanceChanges(permitHoldings, async () => {
          await settle(order, signature, 400n, 800n)
          await settle(order, signature, 600n, 1_200n)
        })
        expect(changes).toEqual({ ownerToken: -1_000n, agentToken: 1_000n })
        expect(await permitToken.read('allowance', [owner.address, deltaAddress])).toBe(0n)
      })

      it('still settles when someone submitted the permit to the token first', async () => {
        const { order, permitArgs } = await makeOrderWithEip2612Permit()
        const { owner: holder, spender, value, deadline, v, r, s } = permitArgs
        await permitToken.send(outsider, 'permit', [holder, spender, value, deadline, v, r, s])
        const signature = await fixture.signOrder(order)
        const { changes } = await fixture.balanceChanges(permitHoldings, () => settle(order, signature, 1_000n, 2_000n))
        expect(changes).toEqual({ ownerToken: -1_000n, agentToken: 1_000n })
      })
    })

    it('submits a 256-byte DAI-style permit and pulls through the allowance it grants', async () => {
      const tokenDomain = { name: 'Dai Stablecoin', version: '1', chainId: fixture.domain().chainId, verifyingContract: dai.address }
      const permitSignature = await owner.signTypedData(
        buildDaiPermitTypedData({
          domain: tokenDomain,
          holder: owner.address,
          spender: deltaAddress,
          nonce: 0n,
          expiry: 0n,
          allowed: true,
        }),
      )
      const permit = encodeDeltaPermit({
        type: 'dai',
        holder: owner.address,
        spender: deltaAddress,
        nonce: 0n,
        expiry: 0n,
        allowed: true,
        ...splitSignature(permitSignature),
      })
      const order = await fixture.makeOrder({ srcToken: dai.address, permit })
      const signature = await fixture.signOrder(order)
      const { changes } = await fixture.balanceChanges({ ownerDai: [dai, owner.address], agentDai: [dai, agent] }, () =>
        settle(order, signature, 1_000n, 2_000n),
      )
      expect(changes).toEqual({ ownerDai: -1_000n, agentDai: 1_000n })
    })

    it('reverts InvalidPermitLength when the permit has a length without meaning', async () => {
      const order = await fixture.makeOrder({ permit: '0x0102' })
      const revert = await settleReverts(order, await fixture.signOrder(order), 1_000n, 2_000n)
      expect(revert).toMatchObject({ errorName: 'InvalidPermitLength', args: [2n] })
    })
  })

  describe('native asset', () => {
    it('credits a deposit to the sender and emits NativeDeposited', async () => {
      const receipt = await delta.send(owner.address, 'deposit', [], 5_000n)
      expect(await delta.read('nativeBalanceOf', [owner.address])).toBe(5_000n)
      expect(delta.events(receipt, 'NativeDeposited')[0]?.args).toEqual({ owner: owner.address, amount: 5_000n })
    })

    it('returns native asset on withdraw and emits NativeWithdrawn', async () => {
      await delta.send(owner.address, 'deposit', [], 5_000n)
      const { changes, result } = await fixture.balanceChanges({ ownerNative: ['native', owner.address] }, () =>
        delta.send(owner.address, 'withdraw', [2_000n]),
      )
      expect(changes.ownerNative + fixture.gasCost(result)).toBe(2_000n)
      expect(await delta.read('nativeBalanceOf', [owner.address])).toBe(3_000n)
      expect(delta.events(result, 'NativeWithdrawn')[0]?.args).toEqual({ owner: owner.address, amount: 2_000n })
    })

    it('reverts InsufficientNativeBalance when withdrawing more than the deposit', async () => {
      await delta.send(owner.address, 'deposit', [], 5_000n)
      const revert = await delta.revert(owner.address, 'withdraw', [6_000n])
      expect(revert).toMatchObject({ errorName: 'InsufficientNativeBalance', args: [5_000n, 6_000n] })
    })

    it('pays a native source out of the owner deposit to the agent', async () => {
      await delta.send(owner.address, 'deposit', [], 5_000n)
      const order = await fixture.makeOrder({ srcToken: NATIVE })
      const signature = await fixture.signOrder(order)
      const { changes, result } = await fixture.balanceChanges(
        { agentNative: ['native', agent], deltaNative: ['native', deltaAddress], ownerDest: [dest, owner.address] },
        () => settle(order, signature, 1_000n, 2_000n),
      )
      expect({ ...changes, agentNative: changes.agentNative + fixture.gasCost(result) }).toEqual({
        agentNative: 1_000n,
        deltaNative: -1_000n,
        ownerDest: 2_000n,
      })
      expect(await delta.read('nativeBalanceOf', [owner.address])).toBe(4_000n)
    })

    it('reverts InsufficientNativeBalance when the owner deposit cannot cover a native source', async () => {
      await delta.send(owner.address, 'deposit', [], 500n)
      const order = await fixture.makeOrder({ srcToken: NATIVE })
      const revert = await settleReverts(order, await fixture.signOrder(order), 1_000n, 2_000n)
      expect(revert).toMatchObject({ errorName: 'InsufficientNativeBalance', args: [500n, 1_000n] })
    })

    it('forwards the native destination the agent sends with the call to the beneficiary', async () => {
      const order = await fixture.makeOrder({ destToken: NATIVE, beneficiary })
      const signature = await fixture.signOrder(order)
      const { changes } = await fixture.balanceChanges(
        { beneficiaryNative: ['native', beneficiary], deltaNative: ['native', deltaAddress], ownerSrc: [src, owner.address] },
        () => settle(order, signature, 1_000n, 2_050n, 2_050n),
      )
      expect(changes).toEqual({ beneficiaryNative: 2_050n, deltaNative: 0n, ownerSrc: -1_000n })
    })

    it('reverts InvalidNativeValue when the value sent differs from the native destination amount', async () => {
      const order = await fixture.makeOrder({ destToken: NATIVE })
      const revert = await settleReverts(order, await fixture.signOrder(order), 1_000n, 2_050n, 2_000n)
      expect(revert).toMatchObject({ errorName: 'InvalidNativeValue', args: [2_050n, 2_000n] })
    })
  })

  describe('crosschain orders', () => {
    it('moves only the source to the agent and emits OrderBridged', async () => {
      const order = await fixture.makeOrder({ bridge: crosschainBridge })
      const signature = await fixture.signOrder(order)
      const { changes, result } = await fixture.balanceChanges(
        { ownerSrc: [src, owner.address], agentSrc: [src, agent], ownerDest: [dest, owner.address], agentDest: [dest, agent] },
        () => settle(order, signature, 1_000n, 1_990n),
      )
      expect(changes).toEqual({ ownerSrc: -1_000n, agentSrc: 1_000n, ownerDest: 0n, agentDest: 0n })
      expect(delta.events(result, 'OrderBridged')[0]?.args).toEqual({
        orderHash: hashDeltaOrder(order, fixture.domain()),
        destinationChainId: 8453n,
        outputToken: crosschainBridge.outputToken,
        protocolSelector: '0x12345678',
        srcAmount: 1_000n,
      })
    })
  })

  describe('TWAP', () => {
    const settleSlice = (order: TwapOrder, signature: Hex, agentAmount: bigint) =>
      delta.send(agent, 'settleTwapSlice', [order, signature, agentAmount])
    const settleAllSlices = async (order: TwapOrder, signature: Hex) => {
      const receipts = []
      for (let slice = 0; slice < order.numSlices; slice++) {
        if (slice > 0) await fixture.advanceTime(Number(order.interval))
        receipts.push(await settleSlice(order, signature, 600n))
      }
      return receipts
    }

    it('settles floor(total / numSlices) per slice, with the remainder on the last slice', async () => {
      const order = await fixture.makeTwapOrder()
      const signature = await fixture.signTwapOrder(order)
      const { changes, result } = await fixture.balanceChanges(
        { ownerSrc: [src, owner.address], agentSrc: [src, agent], ownerDest: [dest, owner.address] },
        () => settleAllSlices(order, signature),
      )
      expect(changes).toEqual({ ownerSrc: -1_000n, agentSrc: 1_000n, ownerDest: 1_800n })
      const slices = result.flatMap((receipt) => delta.events(receipt, 'TwapSliceSettled').map((log) => log.args))
      const orderHash = hashTwapOrder(order, fixture.domain())
      expect(slices).toEqual([
        { orderHash, sliceIndex: 0n, srcAmount: 333n, destAmount: 600n },
        { orderHash, sliceIndex: 1n, srcAmount: 333n, destAmount: 600n },
        { orderHash, sliceIndex: 2n, srcAmount: 334n, destAmount: 600n },
      ])
    })

    it('records the slice count and time in twapState', async () => {
      const order = await fixture.makeTwapOrder()
      const receipt = await settleSlice(order, await fixture.signTwapOrder(order), 600n)
      const { timestamp } = await fixture.chain().publicClient.getBlock({ blockNumber: receipt.blockNumber })
      expect(await delta.read('twapState', [hashTwapOrder(order, fixture.domain())])).toEqual([1, timestamp])
    })

    it('reverts TwapIntervalNotElapsed when the next slice comes before the interval', async () => {
      const order = await fixture.makeTwapOrder()
      const signature = await fixture.signTwapOrder(order)
      const receipt = await settleSlice(order, signature, 600n)
      const { timestamp } = await fixture.chain().publicClient.getBlock({ blockNumber: receipt.blockNumber })
      const revert = await delta.revert(agent, 'settleTwapSlice', [order, signature, 600n])
      expect(revert).toMatchObject({ errorName: 'TwapIntervalNotElapsed', args: [timestamp + 60n] })
    })

    it('reverts TwapCompleted when every slice has been settled', async () => {
      const order = await fixture.makeTwapOrder()
      const signature = await fixture.signTwapOrder(order)
      await settleAllSlices(order, signature)
      await fixture.advanceTime(60)
      expect(await delta.revert(agent, 'settleTwapSlice', [order, signature, 600n])).toMatchObject({ errorName: 'TwapCompleted' })
    })

    it.each([
      { numSlices: 1, interval: 60n },
      { numSlices: 3, interval: 59n },
    ])('reverts InvalidTwapParams for $numSlices slices every $interval s', async ({ numSlices, interval }) => {
      const order = await fixture.makeTwapOrder({ numSlices, interval })
      const revert = await delta.revert(agent, 'settleTwapSlice', [order, await fixture.signTwapOrder(order), 600n])
      expect(revert.errorName).toBe('InvalidTwapParams')
    })

    it('reverts InsufficientDestAmount when a slice pays less than destAmountPerSlice', async () => {
      const order = await fixture.makeTwapOrder()
      const revert = await delta.revert(agent, 'settleTwapSlice', [order, await fixture.signTwapOrder(order), 599n])
      expect(revert).toMatchObject({ errorName: 'InsufficientDestAmount', args: [600n, 599n] })
    })

    it('reverts OrderExpired when a slice comes after the deadline', async () => {
      const order = await fixture.makeTwapOrder({ deadline: (await fixture.latestTimestamp()) - 1n })
      const revert = await delta.revert(agent, 'settleTwapSlice', [order, await fixture.signTwapOrder(order), 600n])
      expect(revert.errorName).toBe('OrderExpired')
    })

    it('reverts PermitNotAllowedForPartialFill when a TWAP carries a token permit', async () => {
      const order = await fixture.makeTwapOrder({ permit: toHex(new Uint8Array(224)) })
      const revert = await delta.revert(agent, 'settleTwapSlice', [order, await fixture.signTwapOrder(order), 600n])
      expect(revert.errorName).toBe('PermitNotAllowedForPartialFill')
    })

    it('pulls a slice through an existing Permit2 allowance when the permit is 0x01', async () => {
      await permitToken.send(owner.address, 'approve', [permit2Address, maxUint256])
      const expiration = (await fixture.latestTimestamp()) + 3_600n
      await permit2.send(owner.address, 'approve', [permitToken.address, deltaAddress, 1_000n, expiration])
      const order = await fixture.makeTwapOrder({ srcToken: permitToken.address, permit: '0x01' })
      const signature = await fixture.signTwapOrder(order)
      const { changes } = await fixture.balanceChanges({ ownerToken: [permitToken, owner.address] }, () =>
        settleSlice(order, signature, 600n),
      )
      expect(changes).toEqual({ ownerToken: -333n })
    })

    it('moves only the slice source and emits OrderBridged for a crosschain TWAP', async () => {
      const order = await fixture.makeTwapOrder({ bridge: crosschainBridge })
      const signature = await fixture.signTwapOrder(order)
      const { changes, result } = await fixture.balanceChanges(
        { ownerSrc: [src, owner.address], agentSrc: [src, agent], agentDest: [dest, agent] },
        () => settleSlice(order, signature, 1n),
      )
      expect(changes).toEqual({ ownerSrc: -333n, agentSrc: 333n, agentDest: 0n })
      expect(delta.events(result, 'OrderBridged')[0]?.args).toMatchObject({ destinationChainId: 8453n, srcAmount: 333n })
    })

    describe('buy', () => {
      const settleBuySlice = (order: TwapBuyOrder, signature: Hex, agentAmount: bigint) =>
        delta.send(agent, 'settleTwapBuySlice', [order, signature, agentAmount])

      it('delivers floor(totalDestAmount / numSlices) per slice within the same slicing of maxSrcAmount', async () => {
        const order = await fixture.makeTwapBuyOrder()
        const signature = await fixture.signTwapBuyOrder(order)
        const { changes, result } = await fixture.balanceChanges(
          { ownerSrc: [src, owner.address], ownerDest: [dest, owner.address], agentDest: [dest, agent] },
          async () => {
            const receipts = [await settleBuySlice(order, signature, 166n)]
            await fixture.advanceTime(60)
            receipts.push(await settleBuySlice(order, signature, 166n))
            await fixture.advanceTime(60)
            receipts.push(await settleBuySlice(order, signature, 168n))
            return receipts
          },
        )
        expect(changes).toEqual({ ownerSrc: -500n, ownerDest: 1_000n, agentDest: -1_000n })
        const destPerSlice = result.flatMap((receipt) => delta.events(receipt, 'TwapSliceSettled').map((log) => log.args))
        expect(destPerSlice).toMatchObject([{ destAmount: 333n }, { destAmount: 333n }, { destAmount: 334n }])
      })

      it('reverts ExcessiveSrcAmount when a slice takes more than its share of maxSrcAmount', async () => {
        const order = await fixture.makeTwapBuyOrder()
        const revert = await delta.revert(agent, 'settleTwapBuySlice', [order, await fixture.signTwapBuyOrder(order), 167n])
        expect(revert).toMatchObject({ errorName: 'ExcessiveSrcAmount', args: [166n, 167n] })
      })

      it('reverts TwapIntervalNotElapsed when the next buy slice comes before the interval', async () => {
        const order = await fixture.makeTwapBuyOrder()
        const signature = await fixture.signTwapBuyOrder(order)
        await settleBuySlice(order, signature, 166n)
        const revert = await delta.revert(agent, 'settleTwapBuySlice', [order, signature, 166n])
        expect(revert.errorName).toBe('TwapIntervalNotElapsed')
      })
    })
  })

  describe('external orders', () => {
    const settleExternal = (order: ExternalOrder, signature: Hex, agentAmount: bigint) =>
      delta.send(agent, 'settleExternalOrder', [order, signature, agentAmount])

    it('sends the source to the handler and the agent payment to the owner on a sell', async () => {
      const order = await fixture.makeExternalOrder()
      const signature = await fixture.signExternalOrder(order)
      const { changes, result } = await fixture.balanceChanges(
        { ownerSrc: [src, owner.address], handlerSrc: [src, handler], agentSrc: [src, agent], ownerDest: [dest, owner.address] },
        () => settleExternal(order, signature, 2_050n),
      )
      expect(changes).toEqual({ ownerSrc: -1_000n, handlerSrc: 1_000n, agentSrc: 0n, ownerDest: 2_050n })
      expect(orderSettledArgs(result)[0]).toMatchObject({ orderHash: hashExternalOrder(order, fixture.domain()), srcAmount: 1_000n })
    })

    it('delivers the fixed destination to the owner and sends the agent amount of source to the handler on a buy', async () => {
      const order = await fixture.makeExternalOrder({ kind: 1 })
      const signature = await fixture.signExternalOrder(order)
      const { changes } = await fixture.balanceChanges({ handlerSrc: [src, handler], ownerDest: [dest, owner.address] }, () =>
        settleExternal(order, signature, 950n),
      )
      expect(changes).toEqual({ handlerSrc: 950n, ownerDest: 2_000n })
    })

    it('reverts OrderAlreadyFilled when an external order is settled twice', async () => {
      const order = await fixture.makeExternalOrder()
      const signature = await fixture.signExternalOrder(order)
      await settleExternal(order, signature, 2_000n)
      const revert = await delta.revert(agent, 'settleExternalOrder', [order, signature, 2_000n])
      expect(revert.errorName).toBe('OrderAlreadyFilled')
    })

    it('reverts InsufficientDestAmount when the agent pays less than the minimum', async () => {
      const order = await fixture.makeExternalOrder()
      const revert = await delta.revert(agent, 'settleExternalOrder', [order, await fixture.signExternalOrder(order), 1_999n])
      expect(revert).toMatchObject({ errorName: 'InsufficientDestAmount', args: [2_000n, 1_999n] })
    })
  })

  describe('cancellation', () => {
    it('marks the hashes cancelled for the caller and emits OrderCancelled', async () => {
      const order = await fixture.makeOrder()
      const orderHash = hashDeltaOrder(order, fixture.domain())
      const receipt = await delta.send(owner.address, 'cancelOrders', [[orderHash]])
      expect(await delta.read('isCancelled', [owner.address, orderHash])).toBe(true)
      expect(delta.events(receipt, 'OrderCancelled')[0]?.args).toEqual({ orderHash, owner: owner.address })
    })

    it('reverts OrderIsCancelled when a cancelled order is settled', async () => {
      const order = await fixture.makeOrder()
      await delta.send(owner.address, 'cancelOrders', [[hashDeltaOrder(order, fixture.domain())]])
      expect(await settleReverts(order, await fixture.signOrder(order), 1_000n, 2_000n)).toMatchObject({ errorName: 'OrderIsCancelled' })
    })

    it("leaves the owner's order settleable when another account cancels its hash", async () => {
      const order = await fixture.makeOrder()
      const orderHash = hashDeltaOrder(order, fixture.domain())
      await delta.send(outsider, 'cancelOrders', [[orderHash]])
      await settle(order, await fixture.signOrder(order), 1_000n, 2_000n)
      expect(await delta.read('filledAmount', [orderHash])).toBe(1_000n)
    })

    it('cancels and returns the native deposit in one call with cancelAndWithdraw', async () => {
      await delta.send(owner.address, 'deposit', [], 5_000n)
      const orderHash = hashDeltaOrder(await fixture.makeOrder({ srcToken: NATIVE }), fixture.domain())
      const { changes, result } = await fixture.balanceChanges({ ownerNative: ['native', owner.address] }, () =>
        delta.send(owner.address, 'cancelAndWithdraw', [[orderHash], 5_000n]),
      )
      expect(changes.ownerNative + fixture.gasCost(result)).toBe(5_000n)
      expect(await delta.read('isCancelled', [owner.address, orderHash])).toBe(true)
      expect(await delta.read('nativeBalanceOf', [owner.address])).toBe(0n)
    })
  })
})
