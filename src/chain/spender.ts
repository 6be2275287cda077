import { type Address, getAddress } from 'viem'
import { BaseError } from '../errors/base.js'
import type { ChainDeployment, DeploymentContracts } from './deployment.js'

/** How a trade executes; each mode has its own spender (API section 5.4), never interchangeable. */
export type TradingMode = 'delta' | 'market' | 'rfq'

/**
 * The contract that pulls the source token in one mode on one chain. The mode travels with the address, so a
 * `Spender<'market'>` cannot be passed where a `Spender<'delta'>` is expected.
 */
export type Spender<M extends TradingMode = TradingMode> = {
  readonly mode: M
  readonly chainId: number
  readonly address: Address
}

export type ResolveSpenderParameters<M extends TradingMode> = {
  /** `chains` of `/resources/contracts.json`, read at runtime (see parseDeploymentResource). */
  contracts: DeploymentContracts
  chainId: number
  mode: M
  /** Market only: `to` of the transaction envelope, which the API names as the spender (section 2.5). */
  marketEnvelopeTo?: (M extends 'market' ? Address : never) | undefined
}

const roleOfMode = { delta: 'delta', market: 'augustusV6_2', rfq: 'augustusRFQ' } as const satisfies Record<
  TradingMode,
  keyof ChainDeployment
>

const modeNames: Record<TradingMode, string> = { delta: 'Delta', market: 'Market', rfq: 'RFQ / OTC' }

/**
 * The spender of `mode` on `chainId`: the Delta contract, the Market router (the envelope's `to` when given, else
 * the `augustusV6_2` role) or the RFQ contract.
 */
export function resolveSpender<M extends TradingMode>({
  contracts,
  chainId,
  mode,
  marketEnvelopeTo,
}: ResolveSpenderParameters<M>): Spender<M> {
  if (mode === 'market' && marketEnvelopeTo !== undefined) return { mode, chainId, address: getAddress(marketEnvelopeTo) }
  const role = roleOfMode[mode]
  const deployment = contracts[chainId]
  const address = deployment?.[role]
  if (!address) {
    throw new ModeUnavailableError({
      mode,
      chainId,
      role,
      chainKnown: deployment !== undefined,
      chainsWithMode: Object.entries(contracts)
        .filter(([, entry]) => entry?.[role] !== undefined)
        .map(([id]) => Number(id)),
    })
  }
  return { mode, chainId, address: getAddress(address) }
}

/**
 * The deployment resource has no contract for this mode on this chain (e.g. Delta on Gnosis, chain 100).
 * Operational: the bot skips the mode on that chain; the user picks another mode or chain.
 */
export class ModeUnavailableError extends BaseError {
  override name = 'ModeUnavailableError' as const
  readonly mode: TradingMode
  readonly chainId: number

  constructor({
    mode,
    chainId,
    role,
    chainKnown,
    chainsWithMode,
  }: {
    mode: TradingMode
    chainId: number
    role: string
    chainKnown: boolean
    chainsWithMode: number[]
  }) {
    super(`${modeNames[mode]} is not available on chain ${chainId}`, {
      details: {
        mode,
        chainId,
        missingRole: role,
        reason: chainKnown
          ? `the deployment resource has no ${role} on chain ${chainId}`
          : `the deployment resource has no chain ${chainId}`,
        chainsWithMode: chainsWithMode.join(', ') || 'none',
      },
      hint: `Use another mode on chain ${chainId}, or trade ${modeNames[mode]} on a chain that has it.`,
      errorClass: 'operational',
    })
    this.mode = mode
    this.chainId = chainId
  }
}
