import { z } from 'zod'
import { routerByVersion } from '../market/price-route.js'
import type { ChainVenue } from '../venue/chain-venue.js'
import type { SandboxVenue } from '../venue/sandbox-venue.js'
import { ApiError, defineApiErrors, listApiErrors } from './api-error.js'
import type { SandboxDesk } from './desk.js'
import { parseRequestPart } from './validate.js'

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

const resourcesErrors = defineApiErrors({
  adaptersUnsupportedChain: {
    endpoint: 'GET /adapters/contracts',
    status: 422,
    message: 'Unsupported chain',
    cause: 'chainId (or network) is not a chain this sandbox runs.',
    fix: 'Use a chain id listed in /resources/contracts.json.',
  },
})

const chainIdSchema = z
  .string()
  .regex(/^\d{1,10}$/, { error: (issue) => `expected a chain id (integer), received ${JSON.stringify(issue.input)}` })
  .transform(Number)

/** Query of GET /adapters/contracts: the official SDK sends `chainId` and `version`; older clients send `network`. */
const adaptersContractsQuerySchema = z
  .object({
    chainId: chainIdSchema.optional(),
    network: chainIdSchema.optional(),
    // The Market API's documented default is the legacy version 5 (section 4.2); the SDK always sends 6.2.
    version: z.enum(['5', '6.2'], { error: (issue) => `expected 5 or 6.2, received ${JSON.stringify(issue.input)}` }).default('5'),
  })
  .refine((query) => query.chainId !== undefined || query.network !== undefined, {
    error: 'expected chainId (or network), received neither',
  })

/** One chain's roles as `/resources/contracts.json` names them; roles the chain does not deploy are absent. */
function deploymentOf({ chainId, fixture: { contracts } }: ChainVenue) {
  return {
    name: chainName(chainId),
    augustusV6_2: contracts.marketRouter,
    ...(contracts.delta ? { delta: contracts.delta } : {}),
    ...(contracts.deltaWrappedNative ? { deltaWrappedNative: contracts.deltaWrappedNative } : {}),
    augustusRFQ: contracts.rfq,
    feeClaimer: contracts.feeClaimer,
  }
}

/**
 * The same deployment in the shape of the Market API's `GET /adapters/contracts` (what the official SDK's
 * getContracts, getSpender, getDeltaContract and its limit-order builder read). Version 6.2 is its own
 * token-transfer proxy; version 5 names production's legacy router, which the sandbox does not deploy (as /prices
 * does). The sandbox router swaps itself, so there are no executors; Portikus is not emulated.
 */
function adapterContractsOf(chain: ChainVenue, version: keyof typeof routerByVersion) {
  const deployment = deploymentOf(chain)
  const router = routerByVersion[version]
  return {
    AugustusSwapper: router.contractAddress,
    TokenTransferProxy: router.tokenTransferProxy,
    AugustusRFQ: deployment.augustusRFQ,
    Executors: {},
    ...(deployment.delta ? { ParaswapDelta: deployment.delta } : {}),
  }
}

/**
 * `/resources/contracts.json` and `/resources/errors.json` in the shapes of the production resources, and
 * `GET /adapters/contracts` from the same deployment data.
 */
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
        chains: Object.fromEntries([...venue.chains.values()].map((chain) => [String(chain.chainId), deploymentOf(chain)])),
      }))
      app.get('/adapters/contracts', async (request) => {
        const query = parseRequestPart(adaptersContractsQuerySchema, request.query, 'query')
        const chainId = query.chainId ?? query.network
        const chain = chainId === undefined ? undefined : venue.chains.get(chainId)
        if (!chain) {
          throw new ApiError(resourcesErrors.adaptersUnsupportedChain, {
            message: `Unsupported chain: ${chainId} is not running in this sandbox (running: ${[...venue.chains.keys()].join(', ')})`,
          })
        }
        return adapterContractsOf(chain, query.version)
      })
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
