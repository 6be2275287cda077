import { describe, expect, it } from 'vitest'
import { toApiRequestError } from '../../src/api/error-rules.js'
import { ApiRequestError } from '../../src/api/errors.js'
import { getContracts } from '../../src/api/resources/get-contracts.js'
import { getErrorCatalogue } from '../../src/api/resources/get-error-catalogue.js'
import { deltaAddress, marketRouterAddress } from '../../src/protocol/addresses.js'
import { useSandbox } from '../helpers/sandbox.js'
import { sandboxClient } from './delta-flow.js'

/** Refusals of a malformed request that stay ApiRequestError (operational, with the service's message). */
const requestMistakes = [
  'Validation failed',
  'Not found',
  'Invalid decimals',
  'Invalid tokens',
  'Invalid route',
  'Invalid DEX',
  'Bad USD Price',
  'Invalid chainId',
  'Unsupported priceRoute version',
  'Invalid token',
  'Invalid amounts',
  'Invalid deadline',
  'Permit not supported',
  'Invalid permit',
  'This transaction has some errors and may fail. Please contact support for more details',
  'Unsupported version',
  'Invalid makerAsset',
  'Invalid takerAsset',
  'Market routes are same-chain only',
  'Payload too large',
]

describe('resources', () => {
  const sandbox = useSandbox({ chainIds: [1, 8453] })

  it('reads the deployment resource of the running chains into a map by chain id', async () => {
    const contracts = await getContracts(sandboxClient(sandbox()))
    expect([...contracts.chains.keys()]).toEqual([1, 8453])
    expect(contracts.chains.get(1)).toMatchObject({ name: 'Ethereum', delta: deltaAddress, augustusV6_2: marketRouterAddress })
    expect(contracts.chains.get(8453)?.augustusRFQ).toBe(sandbox().venue.chains.get(8453)?.fixture.contracts.rfq)
  })

  it('reads the error catalogue, and the client has a typed error for every refusal it lists but request mistakes', async () => {
    const catalogue = await getErrorCatalogue(sandboxClient(sandbox()))
    const untyped = catalogue.errors
      .filter((entry) => entry.status !== null && entry.status >= 400)
      .filter((entry) => {
        const error = toApiRequestError({ endpoint: entry.endpoint, path: '/', status: entry.status ?? 0, message: entry.match, extra: {} })
        return error.constructor === ApiRequestError
      })
      .map((entry) => entry.match)
    // Malformed requests: the message names the field; the bot cannot do better than report it.
    expect(new Set(untyped)).toEqual(new Set(requestMistakes))
  })
})
