import type { SandboxVenue } from '../venue/sandbox-venue.js'
import { listApiErrors } from './api-error.js'
import type { SandboxDesk } from './desk.js'

/** Chain names as the production deployment resource spells them. */
export const chainNames: Readonly<Record<number, string>> = {
  1: 'Ethereum',
  10: 'Optimism',
  56: 'BNB Chain',
  100: 'Gnosis',
  130: 'Unichain',
  137: 'Polygon',
  8453: 'Base',
  42161: 'Arbitrum One',
  43114: 'Avalanche',
}

export function chainName(chainId: number): string {
  return chainNames[chainId] ?? `Local chain ${chainId}`
}

/** `/resources/contracts.json` and `/resources/errors.json`, in the shapes of the production resources. */
export function createResourcesDesk(venue: SandboxVenue): SandboxDesk {
  return {
    name: 'resources',
    register: (app) => {
      app.get('/resources/contracts.json', async () => ({
        _meta: {
          description: 'Per-chain deployment addresses of the sandbox, keyed by chain id. Roles not deployed on a chain are omitted.',
          source: 'deltaflow sandbox',
          lastUpdated: new Date(venue.clock.now()).toISOString().slice(0, 10),
          runtimeSource: 'GET /chains is the runtime source of truth for the supported-chain list.',
          unverifiedRoles: { note: 'Roles the sandbox does not emulate.', roles: ['augustusV6_1', 'augustusV5', 'portikus'] },
        },
        chains: Object.fromEntries(
          [...venue.chains.values()].map(({ chainId, fixture: { contracts } }) => [
            String(chainId),
            {
              name: chainName(chainId),
              augustusV6_2: contracts.marketRouter,
              ...(contracts.delta ? { delta: contracts.delta } : {}),
              ...(contracts.deltaWrappedNative ? { deltaWrappedNative: contracts.deltaWrappedNative } : {}),
              augustusRFQ: contracts.rfq,
              feeClaimer: contracts.feeClaimer,
            },
          ]),
        ),
      }))
      app.get('/resources/errors.json', async () => ({
        _meta: {
          description: 'Every error the sandbox can return: endpoint, status, the `error` string, its cause and the fix.',
          source: 'deltaflow sandbox',
          note: 'Messages are matched as quoted in the API document; validation messages append the failing field.',
        },
        errors: listApiErrors().map(({ endpoint, status, message, cause, fix }) => ({ endpoint, status, match: message, cause, fix })),
      }))
    },
  }
}
