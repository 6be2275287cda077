import { parseEther, parseUnits } from 'viem'
import { describe, expect, it } from 'vitest'
import { nativeTokenPlaceholder } from '../../src/protocol/addresses.js'
import type { RfqOrder } from '../../src/protocol/rfq-order.js'
import {
  developmentAccount,
  makeRfqOrder,
  otcOrderBody,
  postOtcOrder,
  rfqDomain,
  sandboxNow,
  sandboxToken,
  signRfqOrder,
} from '../helpers/otc.js'
import { request, useSandbox } from '../helpers/sandbox.js'

const chainId = 1

describe('POST /ft/p2p/{chainId}/ refusals', () => {
  const sandbox = useSandbox({ chainIds: [1, 8453] })
  const maker = developmentAccount(1)

  const order = (overrides: Partial<RfqOrder> = {}) =>
    makeRfqOrder({
      expiry: sandboxNow(sandbox()) + 3_600n,
      makerAsset: sandboxToken(sandbox(), chainId, 'USDC'),
      takerAsset: sandboxToken(sandbox(), chainId, 'WETH'),
      maker: maker.address,
      taker: developmentAccount(2).address,
      makerAmount: parseUnits('1000', 6),
      takerAmount: parseEther('0.5'),
      ...overrides,
    })
  const errorOf = (json: unknown) => (json as { error: string }).error

  it('refuses a signature by another key than the maker with 400 Invalid signature', async () => {
    const signed = order()
    const signature = await signRfqOrder(5, signed, rfqDomain(sandbox(), chainId))
    const answer = await request(sandbox().url, 'POST', `/ft/p2p/${chainId}/`, otcOrderBody(signed, signature))
    expect(answer.status).toBe(400)
    expect(errorOf(answer.json)).toMatch(/^Invalid signature: it recovers to 0x[0-9a-fA-F]{40}, not to the maker/)
  })

  it('refuses a signature over other field values than the posted ones', async () => {
    const signed = order()
    const signature = await signRfqOrder(1, signed, rfqDomain(sandbox(), chainId))
    const body = { ...otcOrderBody(signed, signature), makerAmount: '999000000' }
    const answer = await request(sandbox().url, 'POST', `/ft/p2p/${chainId}/`, body)
    expect(answer.status).toBe(400)
    expect(errorOf(answer.json)).toMatch(/^Invalid signature/)
  })

  it('refuses an order signed with another chain domain and names that domain', async () => {
    const signed = order()
    const signature = await signRfqOrder(1, signed, rfqDomain(sandbox(), 8453))
    const answer = await request(sandbox().url, 'POST', `/ft/p2p/${chainId}/`, otcOrderBody(signed, signature))
    expect(answer.status).toBe(400)
    expect(errorOf(answer.json)).toMatch(/^Invalid signature: the signature was made for the RFQ domain of chainId 8453/)
  })

  it('refuses an order signed for another verifying contract on the same chain', async () => {
    const signed = order()
    const signature = await signRfqOrder(1, signed, { chainId, verifyingContract: developmentAccount(9).address })
    const answer = await request(sandbox().url, 'POST', `/ft/p2p/${chainId}/`, otcOrderBody(signed, signature))
    expect(answer.status).toBe(400)
    expect(errorOf(answer.json)).toMatch(/^Invalid signature/)
  })

  it('refuses an EOA signature that is neither 64 nor 65 bytes', async () => {
    const signed = order()
    const signature = await signRfqOrder(1, signed, rfqDomain(sandbox(), chainId))
    const answer = await request(sandbox().url, 'POST', `/ft/p2p/${chainId}/`, otcOrderBody(signed, `${signature}00`))
    expect(answer.status).toBe(400)
    expect(errorOf(answer.json)).toMatch(/^Invalid signature: an EOA signature must be 65 bytes .* received 66 bytes/)
  })

  it('refuses the native asset as makerAsset and says to wrap it first', async () => {
    const answer = await postOtcOrder(sandbox(), 1, order({ makerAsset: nativeTokenPlaceholder }))
    expect(answer.status).toBe(400)
    expect(errorOf(answer.json)).toMatch(/^Invalid makerAsset: .*native asset.*wrap it first \(WETH 0x/)
  })

  it('refuses a makerAsset without a token contract', async () => {
    const answer = await postOtcOrder(sandbox(), 1, order({ makerAsset: developmentAccount(8).address }))
    expect(answer.status).toBe(400)
    expect(errorOf(answer.json)).toMatch(/^Invalid makerAsset: no ERC-20 token/)
  })

  it('refuses an order whose expiry has passed', async () => {
    const answer = await postOtcOrder(sandbox(), 1, order({ expiry: sandboxNow(sandbox()) - 60n }))
    expect(answer.status).toBe(400)
    expect(errorOf(answer.json)).toMatch(/^Order expired/)
  })

  it('answers 422 Unsupported chain for a chain the sandbox does not run', async () => {
    const signed = order()
    const signature = await signRfqOrder(1, signed, { chainId: 137, verifyingContract: rfqDomain(sandbox(), chainId).verifyingContract })
    const answer = await request(sandbox().url, 'POST', '/ft/p2p/137/', otcOrderBody(signed, signature))
    expect(answer.status).toBe(422)
    expect(errorOf(answer.json)).toMatch(/^Unsupported chain: 137 is not running in this sandbox \(running: 1, 8453\)/)
  })

  it('names every malformed field in one 400', async () => {
    const signed = order()
    const signature = await signRfqOrder(1, signed, rfqDomain(sandbox(), chainId))
    const body = {
      ...otcOrderBody(signed, signature),
      makerAmount: 1000,
      takerAmount: '0.5',
      maker: '0x1234',
      expiry: '1700000000',
      nonceAndMeta: '-1',
    }
    const answer = await request(sandbox().url, 'POST', `/ft/p2p/${chainId}/`, body)
    expect(answer.status).toBe(400)
    const error = errorOf(answer.json)
    expect(error).toMatch(/^Validation failed: /)
    for (const field of ['body.makerAmount', 'body.takerAmount', 'body.maker', 'body.expiry', 'body.nonceAndMeta']) {
      expect(error).toContain(field)
    }
    expect(error).toContain('body.makerAmount: expected a decimal integer string above 0, received 1000')
  })

  it('refuses a missing field and a zero amount', async () => {
    const signed = order()
    const signature = await signRfqOrder(1, signed, rfqDomain(sandbox(), chainId))
    const { taker: _taker, ...withoutTaker } = otcOrderBody(signed, signature)
    const answer = await request(sandbox().url, 'POST', `/ft/p2p/${chainId}/`, { ...withoutTaker, takerAmount: '0' })
    expect(answer.status).toBe(400)
    expect(errorOf(answer.json)).toContain('body.taker: expected an address (0x + 40 hex), received undefined')
    expect(errorOf(answer.json)).toContain('body.takerAmount: expected a decimal integer string above 0, received "0"')
  })

  it('refuses a body that is not JSON', async () => {
    const answer = await request(sandbox().url, 'POST', `/ft/p2p/${chainId}/`, '{not json')
    expect(answer.status).toBe(400)
    expect(typeof errorOf(answer.json)).toBe('string')
  })

  it('refuses a malformed order hash on reads', async () => {
    const answer = await request(sandbox().url, 'GET', '/ft/order/0x1234')
    expect(answer.status).toBe(400)
    expect(errorOf(answer.json)).toMatch(/^Validation failed: params.orderHash/)
  })

  it('answers 422 for the fillable balance of a chain the sandbox does not run', async () => {
    const answer = await request(sandbox().url, 'GET', `/ft/fillablebalance/137/${maker.address}`)
    expect(answer.status).toBe(422)
    expect(errorOf(answer.json)).toMatch(/^Unsupported chain/)
  })

  it('lists the OTC errors in /resources/errors.json', async () => {
    const answer = await request(sandbox().url, 'GET', '/resources/errors.json')
    const errors = (answer.json as { errors: { endpoint: string; status: number; match: string }[] }).errors
    const otc = errors.filter((error) => error.endpoint.includes('/ft/'))
    expect(otc.map((error) => `${error.status} ${error.match}`)).toEqual(
      expect.arrayContaining([
        '400 Invalid signature',
        '400 Invalid makerAsset',
        '400 Order expired',
        '404 Order not found',
        '422 Unsupported chain',
      ]),
    )
  })
})
