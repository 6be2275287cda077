import { type Address, maxUint160, maxUint256 } from 'viem'
import { BaseError } from '../errors/base.js'
import { permit2Address } from '../protocol/addresses.js'
import type { Spender, TradingMode } from './spender.js'
import type { ApprovalToken } from './token-capabilities.js'

/**
 * One step of an approval plan, in execution order. On-chain steps are transactions from the owner; `sign*` steps
 * are signatures that travel with the order (Delta `permit` bytes) or the Market build (`permit`).
 */
export type ApprovalStep =
  /** Nothing to do; only ever the single step of a plan. */
  | { type: 'none'; reason: 'nativeToken' | 'nothingRequired' | 'allowanceCovers' }
  /** `approve(spender, 0)` on a USDT-style token whose allowance to `spender` is not zero. */
  | { type: 'approveZeroFirst'; spender: Address }
  /** `approve(spender, amount)` to the mode's spender. */
  | { type: 'approve'; spender: Address; amount: bigint }
  /** Sign EIP-2612 `Permit` for the mode's spender. */
  | { type: 'signEip2612Permit'; spender: Address; value: bigint }
  /** Sign DAI `Permit` with allowed = true: an unlimited allowance, the only amount a DAI permit grants. */
  | { type: 'signDaiPermit'; spender: Address }
  /** `approve(Permit2, amount)` on the token. */
  | { type: 'approvePermit2'; amount: bigint }
  /** `Permit2.approve(token, spender, amount, expiration)` on-chain: a Permit2 allowance without a signature. */
  | { type: 'setPermit2Allowance'; spender: Address; amount: bigint }
  /** Sign a Permit2 PermitSingle for the spender (Delta permit of 192 bytes). */
  | { type: 'signPermit2Allowance'; spender: Address; amount: bigint }
  /** Sign a Permit2 PermitTransferFrom for the spender (Delta permit of 96 bytes; one use, not for fillable orders). */
  | { type: 'signPermit2Transfer'; spender: Address; amount: bigint }
  /** Rely on the existing Permit2 allowance (Delta permit 0x01). */
  | { type: 'usePermit2Allowance'; spender: Address }

export type ApprovalStepType = ApprovalStep['type']

export type PermitPreference = 'onchain' | 'permit' | 'permit2'

export type Permit2Allowances = {
  /** ERC-20 allowance of the owner to Permit2. */
  token: bigint
  /** Permit2's allowance of the owner to the spender, 0 when expired. */
  spender: bigint
}

export type PlanApprovalParameters<M extends TradingMode> = {
  mode: M
  token: ApprovalToken
  owner: Address
  /** Resolved for this mode (resolveSpender): a spender of another mode does not type-check. */
  spender: Spender<M>
  /** Source amount the spender must be able to pull (for a buy: the maximum source amount). */
  required: bigint
  /** ERC-20 allowance of the owner to the spender. */
  currentAllowance: bigint
  /** Delta only; read with readAllowances. Missing means none. */
  currentPermit2Allowance?: Permit2Allowances | undefined
  /** `exact` grants `required`; `unlimited` grants the maximum. */
  policy: 'exact' | 'unlimited'
  /** Delta LIMIT (fillable) and TWAP orders: the allowance must be on-chain, never a signed permit (section 5.6). */
  settlesOverTime: boolean
  permitPreference: PermitPreference
  /** Which Permit2 signature a Delta order carries when Permit2 is used. Default `allowance`. */
  permit2Signature?: 'allowance' | 'transfer' | undefined
}

export type ApprovalPlan<M extends TradingMode = TradingMode> = {
  mode: M
  spender: Spender<M>
  owner: Address
  token: ApprovalToken
  required: bigint
  steps: readonly ApprovalStep[]
}

/**
 * The steps that let `spender` pull `required` of `token` from `owner` (API section 5):
 * - a native source, a zero amount, or an allowance that already covers the need: nothing;
 * - USDT-style tokens go through 0 before any non-zero change of a non-zero allowance;
 * - signed permits only where the mode takes them: Market takes EIP-2612 and DAI permits, Delta takes every permit
 *   byte form, RFQ none; orders that settle over time (Delta LIMIT, TWAP) need an on-chain allowance, which for
 *   Permit2 means `Permit2.approve` and the 0x01 form;
 * - a permit-only token cannot be approved (except to Permit2), so it gets a permit or Permit2;
 * - a DAI permit always grants an unlimited allowance, so the `exact` policy never uses one.
 * The preference picks among the paths the rules leave; when none is left, ApprovalNotPossibleError.
 */
export function planApproval<M extends TradingMode>(parameters: PlanApprovalParameters<M>): ApprovalPlan<M> {
  const { mode, spender, owner, token, required } = parameters
  if (spender.mode !== mode) {
    throw new ApprovalRequestError(`a ${spender.mode} spender was given for mode ${mode}`, {
      details: { spender: spender.address },
      hint: 'Approve the spender of the mode that executes the trade: the Delta contract for Delta, the Market router for Market.',
    })
  }
  const plan = (steps: ApprovalStep[]): ApprovalPlan<M> => ({ mode, spender, owner, token, required, steps })
  if (token.kind === 'native') return plan([{ type: 'none', reason: 'nativeToken' }])
  if (required <= 0n) return plan([{ type: 'none', reason: 'nothingRequired' }])
  if (parameters.currentAllowance >= required) return plan([{ type: 'none', reason: 'allowanceCovers' }])
  const permit2 = parameters.currentPermit2Allowance ?? { token: 0n, spender: 0n }
  if (mode === 'delta' && permit2.token >= required && permit2.spender >= required) {
    return plan([{ type: 'usePermit2Allowance', spender: spender.address }])
  }
  for (const path of pathsInPreferenceOrder(parameters)) {
    const steps = stepsOf(path, parameters, permit2)
    if (steps) return plan(steps)
  }
  throw new ApprovalNotPossibleError(parameters)
}

type Path = 'onchain' | 'tokenPermit' | 'permit2'

function pathsInPreferenceOrder({ mode, permitPreference }: PlanApprovalParameters<TradingMode>): Path[] {
  const order: Record<PermitPreference, Path[]> = {
    onchain: ['onchain', 'tokenPermit', 'permit2'],
    permit: ['tokenPermit', 'onchain', 'permit2'],
    permit2: ['permit2', 'tokenPermit', 'onchain'],
  }
  // Permit2 is a Delta feature here: the Market build takes EIP-2612 / DAI permits only, RFQ fills no permit at all.
  return order[permitPreference].filter((path) => path !== 'permit2' || mode === 'delta')
}

/** The steps of one path, or undefined when the rules forbid that path for these parameters. */
function stepsOf(path: Path, parameters: PlanApprovalParameters<TradingMode>, permit2: Permit2Allowances): ApprovalStep[] | undefined {
  const { mode, token, spender, required, currentAllowance, policy, settlesOverTime } = parameters
  switch (path) {
    case 'onchain':
      if (token.approveBehaviour === 'permitOnly') return undefined
      return [
        ...resetIfNeeded(token, spender.address, currentAllowance),
        { type: 'approve', spender: spender.address, amount: grant(policy, required) },
      ]
    case 'tokenPermit':
      if (mode === 'rfq' || settlesOverTime) return undefined
      if (token.permit === 'eip2612') return [{ type: 'signEip2612Permit', spender: spender.address, value: grant(policy, required) }]
      if (token.permit === 'dai' && policy === 'unlimited') return [{ type: 'signDaiPermit', spender: spender.address }]
      return undefined
    case 'permit2': {
      // Permit2 allowances are uint160.
      if (required > maxUint160) return undefined
      const toPermit2: ApprovalStep[] =
        permit2.token >= required
          ? []
          : [...resetIfNeeded(token, permit2Address, permit2.token), { type: 'approvePermit2', amount: grant(policy, required) }]
      if (permit2.spender >= required) return [...toPermit2, { type: 'usePermit2Allowance', spender: spender.address }]
      if (settlesOverTime) {
        return [
          ...toPermit2,
          { type: 'setPermit2Allowance', spender: spender.address, amount: permit2Grant(policy, required) },
          { type: 'usePermit2Allowance', spender: spender.address },
        ]
      }
      if (parameters.permit2Signature === 'transfer')
        return [...toPermit2, { type: 'signPermit2Transfer', spender: spender.address, amount: required }]
      return [...toPermit2, { type: 'signPermit2Allowance', spender: spender.address, amount: permit2Grant(policy, required) }]
    }
  }
}

function resetIfNeeded(token: ApprovalToken, spender: Address, current: bigint): ApprovalStep[] {
  return token.approveBehaviour === 'usdtStyle' && current > 0n ? [{ type: 'approveZeroFirst', spender }] : []
}

function grant(policy: 'exact' | 'unlimited', required: bigint): bigint {
  return policy === 'exact' ? required : maxUint256
}

/** Permit2 amounts are uint160; its maximum is the never-decremented allowance. */
function permit2Grant(policy: 'exact' | 'unlimited', required: bigint): bigint {
  return policy === 'exact' ? required : maxUint160
}

const modeNames: Record<TradingMode, string> = { delta: 'Delta', market: 'Market', rfq: 'RFQ / OTC' }

/**
 * No approval path exists for this token in this mode (a permit-only token for an RFQ fill, a Market swap of a
 * permit-only token without a usable permit). Operational: the bot skips the trade; the user picks another mode or
 * another approval policy.
 */
export class ApprovalNotPossibleError extends BaseError {
  override name = 'ApprovalNotPossibleError' as const
  constructor({ mode, token, policy, settlesOverTime }: PlanApprovalParameters<TradingMode>) {
    const symbol = token.symbol ?? token.address
    const reason =
      mode === 'rfq'
        ? `an RFQ fill needs an on-chain approval of the RFQ contract, and ${symbol} can only be approved to Permit2`
        : token.permit === 'dai' && policy === 'exact'
          ? `${symbol} moves only through a DAI permit, which always grants an unlimited allowance, and the policy is exact`
          : mode === 'delta'
            ? `${symbol} moves only through a permit or Permit2, and the amount exceeds what Permit2 can hold (uint160)`
            : `${symbol} moves only through a permit or Permit2, and ${modeNames[mode]} takes neither for it`
    super(`Cannot approve ${symbol} for ${modeNames[mode]}: ${reason}`, {
      details: { mode, token: token.address, approveBehaviour: token.approveBehaviour, permit: token.permit, policy, settlesOverTime },
      hint:
        mode === 'market' && token.permit === 'dai' && policy === 'exact'
          ? 'Use the unlimited policy for this token, or trade it through Delta with Permit2.'
          : 'Trade this token through Delta, which accepts permits and Permit2.',
      errorClass: 'operational',
    })
  }
}

/**
 * An approval was asked for inconsistently: a spender of another mode, a plan applied with another account or chain,
 * a permit step without its deadline or domain. Fatal: a bug in the caller; the trade is not placed.
 */
export class ApprovalRequestError extends BaseError {
  override name = 'ApprovalRequestError' as const
  constructor(reason: string, { details, hint }: { details?: Record<string, unknown>; hint: string }) {
    super(`Inconsistent approval request: ${reason}`, { details, hint, errorClass: 'fatal' })
  }
}
