import { readFileSync } from 'node:fs'
import { recoverTypedDataAddress } from 'viem'
import { describe, expect, it } from 'vitest'
import { rfqAddresses } from '../../src/protocol/addresses.js'
import { buildDeltaOrderTypedData, zeroBridge } from '../../src/protocol/delta-order.js'
import { buildRfqOrderTypedData, hashRfqOrder } from '../../src/protocol/rfq-order.js'

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/velora/${name}`, import.meta.url), 'utf8'))

describe('Delta typed data', () => {
  it('uses the same domain and types as the service\'s "Build Delta Order" answer', () => {
    const snapshot = readFileSync(new URL('../fixtures/velora/velora-sdk-delta.test.ts.snap.2026-04-16.snap', import.meta.url), 'utf8')
    const built = buildDeltaOrderTypedData(
      {
        owner: '0xaC39b311DCEb2A4b2f5d8461c1cdaF756F4F7Ae9',
        beneficiary: '0xaC39b311DCEb2A4b2f5d8461c1cdaF756F4F7Ae9',
        srcToken: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2',
        destToken: '0x6b175474e89094c44da98b954eedeac495271d0f',
        srcAmount: 10n ** 18n,
        destAmount: 1n,
        expectedAmount: 1n,
        deadline: 0n,
        kind: 0,
        nonce: 0n,
        partnerAndFee: 512n,
        permit: '0x',
        metadata: '0x',
        bridge: zeroBridge,
      },
      { chainId: 1, verifyingContract: '0x0000000000bbf5c5fd284e657f01bd000933c96d' },
    )
    // The snapshot lists each type as `"name": ..., "type": ...` pairs in order; compare the sequences.
    const section = snapshot.slice(snapshot.indexOf('"types"'), snapshot.indexOf('`;', snapshot.indexOf('"types"')))
    const pairs = [...section.matchAll(/"name": "(\w+)",\s*"type": "(\w+)"/g)].map((match) => `${match[1]}:${match[2]}`)
    const ours = [...built.types.Bridge, ...built.types.Order].map((field) => `${field.name}:${field.type}`)
    expect(pairs).toEqual(ours)
    for (const fragment of ['"name": "Portikus"', '"version": "2.0.0"', '"chainId": 1']) expect(snapshot).toContain(fragment)
    expect(built.domain).toEqual({
      name: 'Portikus',
      version: '2.0.0',
      chainId: 1,
      verifyingContract: '0x0000000000bbf5c5fd284e657f01bd000933c96d',
    })
  })
})

describe('RFQ typed data', () => {
  it('matches the field list and domain of the SDK-built P2P order', () => {
    const sdk = fixture('otc-p2p-order-typed-data-sdk-1.json')
    const built = buildRfqOrderTypedData(
      {
        nonceAndMeta: BigInt(sdk.data.nonceAndMeta),
        expiry: BigInt(sdk.data.expiry),
        makerAsset: sdk.data.makerAsset,
        takerAsset: sdk.data.takerAsset,
        maker: sdk.data.maker,
        taker: sdk.data.taker,
        makerAmount: BigInt(sdk.data.makerAmount),
        takerAmount: BigInt(sdk.data.takerAmount),
      },
      { chainId: 1, verifyingContract: rfqAddresses[1] ?? '0x' },
    )
    expect(built.types.Order).toEqual(sdk.types.Order)
    expect(built.domain).toEqual(sdk.domain)
  })

  it("reproduces the service's orderHash of a real Polygon order, and its signature recovers the maker", async () => {
    const stored = fixture('rfq-limit-order-api-object-polygon-1.json')
    const order = {
      nonceAndMeta: BigInt(stored.nonceAndMeta),
      expiry: BigInt(stored.expiry),
      makerAsset: stored.makerAsset,
      takerAsset: stored.takerAsset,
      maker: stored.maker,
      taker: stored.taker,
      makerAmount: BigInt(stored.makerAmount),
      takerAmount: BigInt(stored.takerAmount),
    }
    const domain = { chainId: stored.chainId, verifyingContract: rfqAddresses[137] ?? '0x' } as const
    expect(hashRfqOrder(order, domain)).toBe(stored.orderHash)
    const signer = await recoverTypedDataAddress({ ...buildRfqOrderTypedData(order, domain), signature: stored.signature })
    expect(signer.toLowerCase()).toBe(stored.maker)
  })
})
