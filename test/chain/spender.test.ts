import { readFileSync } from 'node:fs'
import { getAddress } from 'viem'
import { describe, expect, it } from 'vitest'
import { parseDeploymentResource } from '../../src/chain/deployment.js'
import { ModeUnavailableError, resolveSpender } from '../../src/chain/spender.js'
import { deltaAddress, marketRouterAddress, rfqAddresses } from '../../src/protocol/addresses.js'
import { request, useSandbox } from '../helpers/sandbox.js'

const production = parseDeploymentResource(
  JSON.parse(readFileSync(new URL('../fixtures/velora/velora-docs-resources-contracts.json', import.meta.url), 'utf8')),
)

describe('resolveSpender on the production deployment resource', () => {
  it('resolves the Delta contract, the router and the chain’s own RFQ contract', () => {
    expect(resolveSpender({ contracts: production, chainId: 8453, mode: 'delta' })).toEqual({
      mode: 'delta',
      chainId: 8453,
      address: getAddress(deltaAddress),
    })
    expect(resolveSpender({ contracts: production, chainId: 1, mode: 'market' }).address.toLowerCase()).toBe(marketRouterAddress)
    expect(resolveSpender({ contracts: production, chainId: 8453, mode: 'rfq' }).address).toBe(rfqAddresses[8453])
  })

  it('takes the Market spender from the envelope’s to when one is given', () => {
    const to = '0x1111111111111111111111111111111111111111'
    expect(resolveSpender({ contracts: production, chainId: 1, mode: 'market', marketEnvelopeTo: to }).address).toBe(to)
  })

  it('throws ModeUnavailableError saying Delta is not available on Gnosis and Avalanche', () => {
    for (const chainId of [100, 43114]) {
      const error = (() => {
        try {
          return resolveSpender({ contracts: production, chainId, mode: 'delta' })
        } catch (caught) {
          return caught
        }
      })()
      expect(error).toBeInstanceOf(ModeUnavailableError)
      expect((error as Error).message).toMatch(new RegExp(`^Delta is not available on chain ${chainId}\\n`))
      expect((error as ModeUnavailableError).details).toMatchObject({
        missingRole: 'delta',
        chainsWithMode: '1, 10, 56, 130, 137, 8453, 42161',
      })
    }
  })

  it('throws ModeUnavailableError for a chain the resource does not list', () => {
    expect(() => resolveSpender({ contracts: production, chainId: 999, mode: 'rfq' })).toThrow(/RFQ \/ OTC is not available on chain 999/)
  })

  it('never returns one mode’s spender for another', () => {
    const spenders = (['delta', 'market', 'rfq'] as const).map((mode) => resolveSpender({ contracts: production, chainId: 1, mode }))
    expect(new Set(spenders.map((spender) => spender.address.toLowerCase())).size).toBe(3)
    expect(spenders.map((spender) => spender.mode)).toEqual(['delta', 'market', 'rfq'])
  })
})

describe('resolveSpender on the sandbox’s /resources/contracts.json', () => {
  const sandbox = useSandbox({ chainIds: [1, 100] })

  it('resolves Delta on chain 1 and refuses it on chain 100, where Market and RFQ exist', async () => {
    const answer = await request(sandbox().url, 'GET', '/resources/contracts.json')
    expect(answer.status).toBe(200)
    const contracts = parseDeploymentResource(answer.json)
    expect(resolveSpender({ contracts, chainId: 1, mode: 'delta' }).address.toLowerCase()).toBe(deltaAddress)
    expect(() => resolveSpender({ contracts, chainId: 100, mode: 'delta' })).toThrow(ModeUnavailableError)
    expect(resolveSpender({ contracts, chainId: 100, mode: 'market' }).address.toLowerCase()).toBe(marketRouterAddress)
    expect(resolveSpender({ contracts, chainId: 100, mode: 'rfq' }).address).toBe(rfqAddresses[100])
  })
})

describe('parseDeploymentResource', () => {
  it('names the chain and role of a malformed address', () => {
    expect(() => parseDeploymentResource({ chains: { '1': { delta: '0x1234' } } })).toThrow(/chains.*1.*delta/s)
  })
})
