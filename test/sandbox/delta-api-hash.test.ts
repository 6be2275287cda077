import fc from 'fast-check'
import { hashTypedData } from 'viem'
import { describe, expect, it } from 'vitest'
import {
  hashDeltaOrder,
  hashExternalOrder,
  hashOrderCancellations,
  hashTwapBuyOrder,
  hashTwapOrder,
} from '../../src/protocol/delta-order.js'
import { getDeltaDomain, orderCancellationsTypes } from '../../src/protocol/delta-types.js'
import { compileStructHasher, domainSeparatorOf, typedDataDigest } from '../../src/protocol/typed-data-hash.js'
import { hashSignedStruct } from '../../src/sandbox/delta/api/signed-struct.js'
import { addressArbitrary, bytesArbitrary, uintArbitrary } from '../protocol/arbitraries.js'

const domainArbitrary = fc.record({ chainId: fc.integer({ min: 1, max: 2 ** 32 }), verifyingContract: addressArbitrary })
const bridgeArbitrary = fc.record({
  protocolSelector: fc.uint8Array({ minLength: 4, maxLength: 4 }).map((bytes) => `0x${Buffer.from(bytes).toString('hex')}` as const),
  destinationChainId: uintArbitrary(256),
  outputToken: addressArbitrary,
  scalingFactor: fc.integer({ min: -128, max: 127 }),
  protocolData: bytesArbitrary(),
})
const common = {
  owner: addressArbitrary,
  srcToken: addressArbitrary,
  destToken: addressArbitrary,
  nonce: uintArbitrary(256),
  partnerAndFee: uintArbitrary(256),
  permit: bytesArbitrary(300),
  metadata: bytesArbitrary(),
}
const kindArbitrary = fc.constantFrom(0 as const, 1 as const)

describe('the compiled EIP-712 hasher of the submit path', () => {
  it('hashes an Order as viem does', () => {
    const orderArbitrary = fc.record({
      ...common,
      beneficiary: addressArbitrary,
      srcAmount: uintArbitrary(256),
      destAmount: uintArbitrary(256),
      expectedAmount: uintArbitrary(256),
      deadline: uintArbitrary(256),
      kind: kindArbitrary,
      bridge: bridgeArbitrary,
    })
    fc.assert(
      fc.property(orderArbitrary, domainArbitrary, (order, domain) => {
        expect(hashSignedStruct({ kind: 'Order', order }, domain)).toBe(hashDeltaOrder(order, domain))
      }),
    )
  })

  it('hashes TWAP and TWAPBuy orders as viem does', () => {
    const head = {
      ...common,
      beneficiary: addressArbitrary,
      deadline: uintArbitrary(64),
      interval: uintArbitrary(64),
      numSlices: fc.integer({ min: 0, max: 0xffffffff }),
      bridge: bridgeArbitrary,
    }
    fc.assert(
      fc.property(
        fc.record({ ...head, destAmountPerSlice: uintArbitrary(256), totalSrcAmount: uintArbitrary(256) }),
        fc.record({ ...head, totalDestAmount: uintArbitrary(256), maxSrcAmount: uintArbitrary(256) }),
        domainArbitrary,
        (twap, twapBuy, domain) => {
          expect(hashSignedStruct({ kind: 'TWAPOrder', order: twap }, domain)).toBe(hashTwapOrder(twap, domain))
          expect(hashSignedStruct({ kind: 'TWAPBuyOrder', order: twapBuy }, domain)).toBe(hashTwapBuyOrder(twapBuy, domain))
        },
      ),
    )
  })

  it('hashes an ExternalOrder as viem does', () => {
    const externalArbitrary = fc.record({
      ...common,
      handler: addressArbitrary,
      srcAmount: uintArbitrary(256),
      destAmount: uintArbitrary(256),
      expectedAmount: uintArbitrary(256),
      deadline: uintArbitrary(256),
      kind: kindArbitrary,
      data: bytesArbitrary(),
    })
    fc.assert(
      fc.property(externalArbitrary, domainArbitrary, (order, domain) => {
        expect(hashSignedStruct({ kind: 'ExternalOrder', order }, domain)).toBe(hashExternalOrder(order, domain))
      }),
    )
  })

  it('hashes a struct holding an array of its own type, each level into its own buffer, as viem does', () => {
    const types = {
      Node: [
        { name: 'value', type: 'uint256' },
        { name: 'owner', type: 'address' },
        { name: 'children', type: 'Node[]' },
      ],
    } as const
    const hashNode = compileStructHasher(types, 'Node')
    type Node = { value: bigint; owner: `0x${string}`; children: Node[] }
    const nodeOf = (children: fc.Arbitrary<Node[]>): fc.Arbitrary<Node> =>
      fc.record({ value: uintArbitrary(256), owner: addressArbitrary, children })
    const leaf = nodeOf(fc.constant([]))
    const tree = nodeOf(fc.array(nodeOf(fc.array(leaf, { maxLength: 3 })), { maxLength: 3 }))
    fc.assert(
      fc.property(fc.array(tree, { minLength: 1, maxLength: 3 }), domainArbitrary, (nodes, domain) => {
        for (const message of nodes) {
          // viem's types cannot follow a self-referencing struct; the runtime hashes it.
          const expected = hashTypedData({ domain: getDeltaDomain(domain), types, primaryType: 'Node', message } as never)
          expect(typedDataDigest(domainSeparatorOf(getDeltaDomain(domain)), hashNode(message))).toBe(expected)
        }
      }),
      { numRuns: 50 },
    )
  })

  it('hashes string arrays (OrderCancellations) as viem does', () => {
    const hashCancellations = compileStructHasher(orderCancellationsTypes, 'OrderCancellations')
    fc.assert(
      fc.property(fc.array(fc.uuid()), domainArbitrary, (orderIds, domain) => {
        const digest = typedDataDigest(domainSeparatorOf(getDeltaDomain(domain)), hashCancellations({ orderIds }))
        expect(digest).toBe(hashOrderCancellations(orderIds, domain))
      }),
    )
  })
})
