import type { Address } from 'viem'
import { describe, expect, it } from 'vitest'
import type { ApiClient } from '../../src/api/client.js'
import { getDeltaOrder } from '../../src/api/delta/get-delta-order.js'
import { getDeltaOrders } from '../../src/api/delta/get-delta-orders.js'
import { ApiMalformedAnswerError, ApiResponseError } from '../../src/api/errors.js'
import { getQuote } from '../../src/api/get-quote.js'
import { buildMarketTransaction } from '../../src/api/market/build-market-transaction.js'
import { getMarketPrices } from '../../src/api/market/get-market-prices.js'
import { getOtcOrder } from '../../src/api/otc/get-otc-order.js'
import { getContracts } from '../../src/api/resources/get-contracts.js'
import { getErrorCatalogue } from '../../src/api/resources/get-error-catalogue.js'
import { NoRouteError, PriceImpactTooHighError } from '../../src/api/service-errors.js'
import { answeringClient, fixtureJson, fixtureText, recordedJsonFixtures } from './recorded-answer.js'

const anyToken: Address = '0x0000000000000000000000000000000000000001'
const priceQuery = { srcToken: anyToken, destToken: anyToken, amount: 1n, srcDecimals: 18, destDecimals: 18 }
const quoteQuery = { chainId: 1, ...priceQuery }
const orderHash = `0x${'ab'.repeat(32)}` as const

const readPrices = (client: ApiClient) => getMarketPrices(client, priceQuery)
const readQuote = (client: ApiClient) => getQuote(client, quoteQuery)
const readOrder = (client: ApiClient) => getDeltaOrder(client, { orderId: '7ec0dc82-98ad-4501-9f46-03e31e51098f' })
const readOrderList = (client: ApiClient) => getDeltaOrders(client, { userAddress: anyToken })
const readOtcOrder = (client: ApiClient) => getOtcOrder(client, { orderHash })

/** A bare priceRoute (the dex-lib files) is answered wrapped, as GET /prices sends it. */
function asPricesAnswer(name: string): unknown {
  const json = fixtureJson(name)
  return typeof json === 'object' && json !== null && 'priceRoute' in json ? json : { priceRoute: json }
}

const v5Routes = recordedJsonFixtures().filter((name) => name.startsWith('market-priceRoute-v5-'))

/**
 * What the client does with every recorded JSON file: accepted (the V2 / v6.2 shapes), refused with a clear error
 * (older shapes), or not an answer of a client endpoint.
 */
const decisions: Record<string, 'accepted' | 'refused' | 'error body' | 'not an answer'> = {
  'market-priceRoute-wsteth-weth-1.json': 'accepted',
  'market-priceRoute-v62-usdc-eth-uniswapv3-docs-1.json': 'accepted',
  'quote-mode-all-market-eth-usdc-1.json': 'accepted',
  'delta-v2-quote-response-example-1.json': 'accepted',
  'market-transactions-response-v62-docs-1.json': 'accepted',
  // The v5 envelope has the same fields as the v6.2 one, so it parses; `to` is then the v5 router.
  'market-transactions-response-v5-weth-zrx-sell-1.json': 'accepted',
  'market-transactions-response-v5-weth-zrx-buy-1.json': 'accepted',
  'otc-limit-orders-list-polygon-1.json': 'accepted',
  'rfq-limit-order-api-object-polygon-1.json': 'accepted',
  'velora-docs-resources-contracts.json': 'accepted',
  'velora-docs-errors.json': 'accepted',
  'market-priceRoute-2021-eth-usdc-swapOnUniswap-1.json': 'refused',
  'delta-order-v1-failed-dai-eth-1.json': 'refused',
  'delta-order-v2-executed-weth-usdc-1.json': 'refused',
  'delta-orders-list-user-1.json': 'refused',
  'delta-orders-list-user-v1-format-1.json': 'refused',
  'market-prices-error-no-routes-1.json': 'error body',
  'market-prices-error-max-impact-2021-1.json': 'error body',
  'otc-p2p-order-typed-data-sdk-1.json': 'not an answer',
  'rfq-limit-order-signed-payload-polygon-1.json': 'not an answer',
  'market-transactions-request-v5-weth-zrx-sell-1.json': 'not an answer',
  'market-transactions-request-v5-weth-zrx-buy-1.json': 'not an answer',
  // GET /adapters/contracts is not an endpoint of the client (getContracts reads /resources/contracts.json).
  'adapters-contracts-mainnet-1.json': 'not an answer',
  'velora-docs-openapi-delta-v2.json': 'not an answer',
  'velora-docs-openapi-market.json': 'not an answer',
  'velora-docs-openapi-rfq.json': 'not an answer',
  ...Object.fromEntries(v5Routes.map((name) => [name, 'refused' as const])),
}

async function responseError(promise: Promise<unknown>): Promise<ApiResponseError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  )
  expect(error).toBeInstanceOf(ApiResponseError)
  return error as ApiResponseError
}

describe('recorded answers of the real service', () => {
  it('has a decision for every recorded JSON file', () => {
    expect(recordedJsonFixtures().sort()).toEqual(Object.keys(decisions).sort())
  })

  describe('accepted', () => {
    it.each([
      ['market-priceRoute-wsteth-weth-1.json', 1225321457601530719n, 'swapExactAmountIn'],
      ['market-priceRoute-v62-usdc-eth-uniswapv3-docs-1.json', 283341969876959340n, 'swapExactAmountInOnUniswapV3'],
    ])('parses the v6.2 priceRoute of %s with bigint amounts', async (name, destAmount, contractMethod) => {
      const route = await readPrices(answeringClient(fixtureText(name)))
      expect(route).toMatchObject({ version: '6.2', network: 1, side: 'SELL', destAmount, contractMethod })
      expect(typeof route.srcAmount).toBe('bigint')
      expect(typeof route.gasCost).toBe('bigint')
    })

    it('keeps the raw priceRoute exactly as recorded, unknown fields included', async () => {
      const name = 'market-priceRoute-wsteth-weth-1.json'
      const route = await readPrices(answeringClient(fixtureText(name)))
      expect(JSON.stringify(route.raw)).toBe(JSON.stringify((fixtureJson(name) as { priceRoute: unknown }).priceRoute))
      expect(Object.isFrozen(route.raw)).toBe(true)
    })

    it('parses the mode=ALL quote that fell back to Market as a market result with destAmountAfterFee', async () => {
      const quote = await readQuote(answeringClient(fixtureText('quote-mode-all-market-eth-usdc-1.json')))
      expect(quote.mode).toBe('market')
      if (quote.mode !== 'market') return
      expect(quote.market).toMatchObject({ destAmount: 2115974695n, destAmountAfterFee: 2115763098n, partner: 'my-app-name' })
      expect(Object.keys(quote.market.raw).at(-1)).toBe('hmac')
    })

    it('parses the Delta V2 quote example as a delta result whose route keeps its raw JSON', async () => {
      const quote = await readQuote(answeringClient(fixtureText('delta-v2-quote-response-example-1.json')))
      expect(quote.mode).toBe('delta')
      if (quote.mode !== 'delta') return
      expect(quote.delta).toMatchObject({ side: 'SELL', spender: '0x76e0ebb8d4c6dccb3fdedab7a3e1c87036719a42', alternatives: [] })
      expect(quote.delta.route.origin.input.amount).toBe(1_000_000n)
      expect(quote.delta.route.bridge).toBeNull()
      expect(quote.delta.route.raw).toEqual(
        (fixtureJson('delta-v2-quote-response-example-1.json') as { delta: { route: unknown } }).delta.route,
      )
    })

    it.each([
      ['market-transactions-response-v62-docs-1.json', '0x6a000f20005980200259b80c5102003040001068', 16_000_000_000n],
      ['market-transactions-response-v5-weth-zrx-sell-1.json', '0xDEF171Fe48CF0115B1d80b88dc8eAB59176FEe57', 29_000_000_000n],
      ['market-transactions-response-v5-weth-zrx-buy-1.json', '0xDEF171Fe48CF0115B1d80b88dc8eAB59176FEe57', undefined],
    ])('parses the transaction envelope of %s', async (name, to, gasPrice) => {
      const route = await readPrices(answeringClient(fixtureText('market-priceRoute-wsteth-weth-1.json')))
      const envelope = await buildMarketTransaction(answeringClient(fixtureText(name)), {
        priceRoute: route,
        userAddress: anyToken,
        slippage: 100,
      })
      expect(envelope).toMatchObject({ to, value: 0n, chainId: 1 })
      if (gasPrice !== undefined) expect(envelope.gasPrice).toBe(gasPrice)
    })

    it('parses every order of the recorded OTC order list (type LIMIT, without reservedBalance)', async () => {
      const orders = fixtureJson('otc-limit-orders-list-polygon-1.json') as unknown[]
      for (const recorded of orders) {
        const order = await readOtcOrder(answeringClient(recorded))
        expect(order).toMatchObject({ chainId: 137, state: 'CANCELLED', type: 'LIMIT', expiry: 0 })
        expect(order.reservedBalance).toBeUndefined()
      }
    })

    it('parses the recorded RFQ order object with its balances as bigint', async () => {
      const order = await readOtcOrder(answeringClient(fixtureText('rfq-limit-order-api-object-polygon-1.json')))
      expect(order).toMatchObject({ state: 'PENDING', makerAmount: 10_000_000_000_000_000n, transactionHash: null, permitMakerAsset: null })
      expect(order.nonceAndMeta).toBe(7433034152904838547212883274543254857465784035140417181410394112n)
    })

    it('parses the deployment resource into a map whose chains omit the roles they lack', async () => {
      const contracts = await getContracts(answeringClient(fixtureText('velora-docs-resources-contracts.json')))
      expect(contracts.chains.get(1)).toMatchObject({ name: 'Ethereum', delta: '0x0000000000bbf5c5fd284e657f01bd000933c96d' })
      expect(contracts.chains.get(100)?.delta).toBeUndefined()
      expect(contracts.chains.get(100)?.augustusRFQ).toBe('0x92EaD5bACf6F0E995FA46Ad8215A9b11f67ca241')
      expect([...contracts.chains.keys()]).toEqual([1, 10, 56, 100, 130, 137, 8453, 42161, 43114])
    })

    it('parses the error catalogue, including rows without an HTTP status', async () => {
      const catalogue = await getErrorCatalogue(answeringClient(fixtureText('velora-docs-errors.json')))
      expect(catalogue.errors.length).toBeGreaterThan(30)
      expect(catalogue.errors.some((entry) => entry.status === null)).toBe(true)
    })
  })

  describe('error bodies', () => {
    it('maps the recorded "No routes found with enough liquidity" body to NoRouteError', async () => {
      const refused = readPrices(answeringClient(fixtureText('market-prices-error-no-routes-1.json'), 400))
      await expect(refused).rejects.toBeInstanceOf(NoRouteError)
      await expect(refused).rejects.toMatchObject({ serviceMessage: 'No routes found with enough liquidity', status: 400 })
    })

    it('maps the recorded max-impact body to PriceImpactTooHighError, keeping its value but not its route', async () => {
      const error = await readPrices(answeringClient(fixtureText('market-prices-error-max-impact-2021-1.json'), 400)).catch(
        (reason) => reason,
      )
      expect(error).toBeInstanceOf(PriceImpactTooHighError)
      expect(error.details).toMatchObject({ value: '28.13%' })
      expect(error.details).not.toHaveProperty('priceRoute')
    })
  })

  describe('refused older shapes', () => {
    it.each(v5Routes)('refuses the v5 route %s as a legacy route', async (name) => {
      const error = await responseError(readPrices(answeringClient(asPricesAnswer(name))))
      expect(error.problems).toEqual([expect.stringMatching(/^priceRoute: a priceRoute without `version`: a legacy v5 route/)])
    })

    it('refuses the 2021-era route with src / dest keys', async () => {
      const error = await responseError(readPrices(answeringClient(fixtureText('market-priceRoute-2021-eth-usdc-swapOnUniswap-1.json'))))
      expect(error.problems).toEqual([expect.stringMatching(/^priceRoute: a 2021-era priceRoute/)])
    })

    it('refuses a Delta V1 order, saying it is one', async () => {
      const error = await responseError(readOrder(answeringClient(fixtureText('delta-order-v1-failed-dai-eth-1.json'))))
      expect(error.message).toContain('answer: a Delta V1 order (deltaVersion "1.0")')
    })

    it('refuses the legacy order object of the V1 endpoints even when it says deltaVersion 2.0', async () => {
      const error = await responseError(readOrder(answeringClient(fixtureText('delta-order-v2-executed-weth-usdc-1.json'))))
      expect(error.problems).toEqual([expect.stringContaining('legacy shape of the V1 endpoints (status "EXECUTED"')])
    })

    it.each(['delta-orders-list-user-1.json', 'delta-orders-list-user-v1-format-1.json'])(
      'refuses the bare order array of %s as the V1 list shape, and each of its orders',
      async (name) => {
        const error = await responseError(readOrderList(answeringClient(fixtureText(name))))
        expect(error.problems).toEqual([expect.stringContaining('a bare array of orders (the Delta V1 list shape)')])
        for (const order of fixtureJson(name) as unknown[]) {
          expect((await responseError(readOrder(answeringClient(order)))).message).toContain('a Delta V1 order')
        }
      },
    )
  })

  describe('malformed answers', () => {
    const wstethRoute = () => fixtureJson('market-priceRoute-wsteth-weth-1.json') as { priceRoute: Record<string, unknown> }
    const deltaQuote = () =>
      fixtureJson('delta-v2-quote-response-example-1.json') as {
        delta: { spender: string; route: { origin: { input: { amount: unknown } }; bridge: unknown } }
      }

    it('names the field and the received value of a non-decimal amount', async () => {
      const answer = wstethRoute()
      answer.priceRoute.destAmount = 12.5
      const error = await responseError(readPrices(answeringClient(answer)))
      expect(error.problems).toEqual(['priceRoute.destAmount: expected a decimal integer string, received 12.5'])
      expect(error.message).toContain('priceRoute.destAmount: expected a decimal integer string, received 12.5')
    })

    it('refuses a route amount cast from its string to a number', async () => {
      const answer = deltaQuote()
      answer.delta.route.origin.input.amount = 1_000_000
      const error = await responseError(readQuote(answeringClient(answer)))
      expect(error.problems).toEqual(['delta.route.origin.input.amount: expected a decimal integer string, received 1000000'])
    })

    it('refuses a spender that is not an address', async () => {
      const answer = deltaQuote()
      answer.delta.spender = '0x76e0ebb8'
      const error = await responseError(readQuote(answeringClient(answer)))
      expect(error.problems).toEqual(['delta.spender: expected an address (0x + 40 hex digits), received "0x76e0ebb8"'])
    })

    it('refuses a bridge tag outside the documented ones', async () => {
      const answer = deltaQuote()
      answer.delta.route.bridge = {
        protocol: 'across',
        estimatedTimeMs: 1000,
        tags: ['cheapest'],
        contractParams: { protocolSelector: '0x12345678', outputToken: anyToken, scalingFactor: 0, protocolData: '0x' },
      }
      const error = await responseError(readQuote(answeringClient(answer)))
      expect(error.problems).toEqual([expect.stringMatching(/^delta\.route\.bridge\.tags\[0\]: .*received "cheapest"$/)])
    })

    it('refuses a quote answer carrying both a delta and a market block', async () => {
      const both = { ...deltaQuote(), market: wstethRoute().priceRoute }
      const error = await responseError(readQuote(answeringClient(both)))
      expect(error.problems).toEqual(['answer: expected either a delta or a market block, received both'])
    })

    it('refuses an OTC order state outside the documented ones', async () => {
      const answer = { ...(fixtureJson('rfq-limit-order-api-object-polygon-1.json') as object), state: 'OPEN' }
      const error = await responseError(readOtcOrder(answeringClient(answer)))
      expect(error.problems).toEqual([expect.stringMatching(/^state: .*received "OPEN"$/)])
    })

    it('refuses a negative value in a transaction envelope', async () => {
      const route = await readPrices(answeringClient(fixtureText('market-priceRoute-wsteth-weth-1.json')))
      const answer = { ...(fixtureJson('market-transactions-response-v62-docs-1.json') as object), value: '-1' }
      const error = await responseError(
        buildMarketTransaction(answeringClient(answer), { priceRoute: route, userAddress: anyToken, slippage: 1 }),
      )
      expect(error.problems).toEqual(['value: expected a decimal integer string, received "-1"'])
    })

    it('refuses a deployment role that is not an address, naming the chain', async () => {
      const answer = fixtureJson('velora-docs-resources-contracts.json') as { chains: Record<string, Record<string, unknown>> }
      const mainnet = answer.chains['1']
      if (mainnet) mainnet.delta = 'delta'
      const error = await responseError(getContracts(answeringClient(answer)))
      expect(error.problems).toEqual(['chains.1.delta: expected an address (0x + 40 hex digits), received "delta"'])
    })

    it('reads an empty 2xx body and a body that is not JSON as a retryable ApiMalformedAnswerError', async () => {
      const empty = await readPrices(answeringClient('')).catch((error: unknown) => error)
      expect(empty).toBeInstanceOf(ApiMalformedAnswerError)
      expect(empty).toMatchObject({ status: 200, excerpt: '""', errorClass: 'retryable' })
      const html = await readPrices(answeringClient('<html>ok</html>')).catch((error: unknown) => error)
      expect(html).toMatchObject({ name: 'ApiMalformedAnswerError', excerpt: '"<html>ok</html>"' })
    })
  })
})
