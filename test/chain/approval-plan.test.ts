import fc from 'fast-check'
import { type Address, isAddressEqual, maxUint160, maxUint256 } from 'viem'
import { describe, expect, it } from 'vitest'
import { ApprovalNotPossibleError, type ApprovalPlan, type PlanApprovalParameters, planApproval } from '../../src/chain/approval-plan.js'
import type { Spender, TradingMode } from '../../src/chain/spender.js'
import type { ApprovalToken } from '../../src/chain/token-capabilities.js'
import { nativeTokenPlaceholder, permit2Address } from '../../src/protocol/addresses.js'

const owner: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const tokenAddress: Address = '0xdAC17F958D2ee523a2206206994597C13D831ec7'
const spenders: { [M in TradingMode]: Spender<M> } = {
  delta: { mode: 'delta', chainId: 1, address: '0x0000000000bbf5c5fd284e657f01bd000933c96d' },
  market: { mode: 'market', chainId: 1, address: '0x6a000f20005980200259b80c5102003040001068' },
  rfq: { mode: 'rfq', chainId: 1, address: '0xe92b586627ccA7a83dC919cc7127196d70f55a06' },
}

const erc20 = (approveBehaviour: ApprovalToken['approveBehaviour'], permit: ApprovalToken['permit']): ApprovalToken => ({
  address: tokenAddress,
  kind: 'erc20',
  approveBehaviour,
  permit,
  symbol: 'TKN',
})

function parameters<M extends TradingMode>(mode: M, overrides: Partial<PlanApprovalParameters<M>> = {}): PlanApprovalParameters<M> {
  return {
    mode,
    spender: spenders[mode],
    owner,
    token: erc20('standard', 'none'),
    required: 1_000n,
    currentAllowance: 0n,
    policy: 'exact',
    settlesOverTime: false,
    permitPreference: 'onchain',
    ...overrides,
  }
}

const stepTypes = (plan: ApprovalPlan) => plan.steps.map((step) => step.type)

describe('planApproval', () => {
  it('plans nothing for a native source, whatever the allowance', () => {
    const plan = planApproval(
      parameters('delta', { token: { ...erc20('standard', 'none'), address: nativeTokenPlaceholder, kind: 'native' } }),
    )
    expect(plan.steps).toEqual([{ type: 'none', reason: 'nativeToken' }])
  })

  it('plans nothing when the allowance already covers the amount', () => {
    expect(planApproval(parameters('market', { currentAllowance: 1_000n })).steps).toEqual([{ type: 'none', reason: 'allowanceCovers' }])
  })

  it('resets a USDT-style allowance to 0 before approving a new amount', () => {
    const plan = planApproval(parameters('delta', { token: erc20('usdtStyle', 'none'), currentAllowance: 5n }))
    expect(plan.steps).toEqual([
      { type: 'approveZeroFirst', spender: spenders.delta.address },
      { type: 'approve', spender: spenders.delta.address, amount: 1_000n },
    ])
  })

  it('approves a USDT-style token directly when its allowance is 0', () => {
    expect(stepTypes(planApproval(parameters('rfq', { token: erc20('usdtStyle', 'none') })))).toEqual(['approve'])
  })

  it('approves the maximum under the unlimited policy', () => {
    expect(planApproval(parameters('market', { policy: 'unlimited' })).steps).toEqual([
      { type: 'approve', spender: spenders.market.address, amount: maxUint256 },
    ])
  })

  it('signs an EIP-2612 permit for a Market swap when permits are preferred', () => {
    expect(planApproval(parameters('market', { token: erc20('standard', 'eip2612'), permitPreference: 'permit' })).steps).toEqual([
      { type: 'signEip2612Permit', spender: spenders.market.address, value: 1_000n },
    ])
  })

  it('signs a DAI permit only under the unlimited policy, since it always grants the maximum', () => {
    const dai = erc20('standard', 'dai')
    expect(stepTypes(planApproval(parameters('market', { token: dai, permitPreference: 'permit', policy: 'unlimited' })))).toEqual([
      'signDaiPermit',
    ])
    expect(stepTypes(planApproval(parameters('market', { token: dai, permitPreference: 'permit', policy: 'exact' })))).toEqual(['approve'])
  })

  it('approves on-chain for a Delta order that settles over time even when permits are preferred', () => {
    const plan = planApproval(
      parameters('delta', { token: erc20('standard', 'eip2612'), permitPreference: 'permit', settlesOverTime: true }),
    )
    expect(stepTypes(plan)).toEqual(['approve'])
  })

  it('gives a permit-only token a permit for Delta even when on-chain approval is preferred', () => {
    expect(stepTypes(planApproval(parameters('delta', { token: erc20('permitOnly', 'eip2612') })))).toEqual(['signEip2612Permit'])
  })

  it('gives a permit-only token an on-chain Permit2 allowance for a Delta order that settles over time', () => {
    const plan = planApproval(parameters('delta', { token: erc20('permitOnly', 'eip2612'), settlesOverTime: true }))
    expect(plan.steps).toEqual([
      { type: 'approvePermit2', amount: 1_000n },
      { type: 'setPermit2Allowance', spender: spenders.delta.address, amount: 1_000n },
      { type: 'usePermit2Allowance', spender: spenders.delta.address },
    ])
  })

  it('approves Permit2 and signs a Permit2 allowance for Delta when Permit2 is preferred', () => {
    const plan = planApproval(parameters('delta', { permitPreference: 'permit2', policy: 'unlimited' }))
    expect(plan.steps).toEqual([
      { type: 'approvePermit2', amount: maxUint256 },
      { type: 'signPermit2Allowance', spender: spenders.delta.address, amount: maxUint160 },
    ])
  })

  it('signs a Permit2 transfer of exactly the amount when asked for the transfer form', () => {
    const plan = planApproval(
      parameters('delta', {
        permitPreference: 'permit2',
        permit2Signature: 'transfer',
        currentPermit2Allowance: { token: maxUint256, spender: 0n },
      }),
    )
    expect(plan.steps).toEqual([{ type: 'signPermit2Transfer', spender: spenders.delta.address, amount: 1_000n }])
  })

  it('uses an existing Permit2 allowance for Delta without any step on-chain', () => {
    const plan = planApproval(parameters('delta', { currentPermit2Allowance: { token: 1_000n, spender: 1_000n } }))
    expect(plan.steps).toEqual([{ type: 'usePermit2Allowance', spender: spenders.delta.address }])
  })

  it('refuses an RFQ fill of a permit-only token: it cannot be approved to the RFQ contract', () => {
    expect(() => planApproval(parameters('rfq', { token: erc20('permitOnly', 'eip2612') }))).toThrow(
      /Cannot approve TKN for RFQ \/ OTC: an RFQ fill needs an on-chain approval of the RFQ contract/,
    )
  })

  it('refuses a Market swap of a permit-only token without a token permit', () => {
    expect(() => planApproval(parameters('market', { token: erc20('permitOnly', 'none') }))).toThrow(ApprovalNotPossibleError)
  })
})

// ---------------------------------------------------------------- properties

const amount = fc.oneof(fc.bigInt({ min: 0n, max: 10_000n }), fc.bigInt({ min: 0n, max: maxUint256 }))

const parametersArbitrary: fc.Arbitrary<PlanApprovalParameters<TradingMode>> = fc
  .record({
    mode: fc.constantFrom<TradingMode>('delta', 'market', 'rfq'),
    native: fc.boolean(),
    approveBehaviour: fc.constantFrom<ApprovalToken['approveBehaviour']>('standard', 'usdtStyle', 'permitOnly'),
    permit: fc.constantFrom<ApprovalToken['permit']>('none', 'eip2612', 'dai'),
    required: amount,
    allowance: fc.oneof(fc.constant('zero'), fc.constant('below'), fc.constant('exact'), amount),
    // Permit2 stores uint160 allowances.
    permit2: fc.option(fc.record({ token: amount, spender: fc.bigInt({ min: 0n, max: maxUint160 }) }), { nil: undefined }),
    policy: fc.constantFrom<'exact' | 'unlimited'>('exact', 'unlimited'),
    settlesOverTime: fc.boolean(),
    permitPreference: fc.constantFrom<'onchain' | 'permit' | 'permit2'>('onchain', 'permit', 'permit2'),
    permit2Signature: fc.constantFrom<'allowance' | 'transfer' | undefined>('allowance', 'transfer', undefined),
  })
  .map((drawn) => {
    const currentAllowance =
      drawn.allowance === 'zero'
        ? 0n
        : drawn.allowance === 'below'
          ? drawn.required > 0n
            ? drawn.required - 1n
            : 0n
          : drawn.allowance === 'exact'
            ? drawn.required
            : drawn.allowance
    return {
      mode: drawn.mode,
      spender: spenders[drawn.mode],
      owner,
      token: drawn.native
        ? { address: nativeTokenPlaceholder, kind: 'native', approveBehaviour: 'standard', permit: 'none' }
        : erc20(drawn.approveBehaviour, drawn.permit),
      required: drawn.required,
      currentAllowance,
      currentPermit2Allowance: drawn.permit2,
      policy: drawn.policy,
      // Only Delta LIMIT and TWAP orders settle over time.
      settlesOverTime: drawn.mode === 'delta' && drawn.settlesOverTime,
      permitPreference: drawn.permitPreference,
      permit2Signature: drawn.permit2Signature,
    } satisfies PlanApprovalParameters<TradingMode>
  })

/** Whether the rules leave no path at all (section 5): the only cases planApproval may refuse. */
function impossible(parameters: PlanApprovalParameters<TradingMode>): boolean {
  const { mode, token, required, currentAllowance, policy } = parameters
  if (token.kind === 'native' || required <= 0n || currentAllowance >= required || token.approveBehaviour !== 'permitOnly') return false
  if (mode === 'rfq') return true
  const noTokenPermit = token.permit === 'none' || (token.permit === 'dai' && policy === 'exact')
  if (mode === 'market') return noTokenPermit
  // Delta: Permit2 holds at most a uint160, and an order that settles over time takes no signed permit.
  return required > maxUint160 && (noTokenPermit || parameters.settlesOverTime)
}

type ChainModel = { allowance: Map<string, bigint>; permit2Allowance: bigint; signedFor: bigint; permit2Transfer: bigint }

/** Executes a plan on a model of the token and Permit2, failing on any step the token would revert. */
function execute(plan: ApprovalPlan, parameters: PlanApprovalParameters<TradingMode>): ChainModel {
  const spender = parameters.spender.address.toLowerCase()
  const model: ChainModel = {
    allowance: new Map([
      [spender, parameters.currentAllowance],
      [permit2Address.toLowerCase(), parameters.currentPermit2Allowance?.token ?? 0n],
    ]),
    permit2Allowance: parameters.currentPermit2Allowance?.spender ?? 0n,
    signedFor: 0n,
    permit2Transfer: 0n,
  }
  const approve = (to: Address, value: bigint) => {
    const key = to.toLowerCase()
    const current = model.allowance.get(key) ?? 0n
    if (parameters.token.approveBehaviour === 'usdtStyle' && value !== 0n && current !== 0n) {
      throw new Error(`a non-zero approve of ${to} over a non-zero allowance on a USDT-style token`)
    }
    if (parameters.token.approveBehaviour === 'permitOnly' && !isAddressEqual(to, permit2Address)) {
      throw new Error(`an approve of ${to} on a permit-only token`)
    }
    model.allowance.set(key, value)
  }
  for (const step of plan.steps) {
    switch (step.type) {
      case 'none':
      case 'usePermit2Allowance':
        break
      case 'approveZeroFirst':
        approve(step.spender, 0n)
        break
      case 'approve':
        approve(step.spender, step.amount)
        break
      case 'approvePermit2':
        approve(permit2Address, step.amount)
        break
      case 'setPermit2Allowance':
      case 'signPermit2Allowance':
        model.permit2Allowance = step.amount
        break
      case 'signPermit2Transfer':
        model.permit2Transfer = step.amount
        break
      case 'signEip2612Permit':
        model.signedFor = step.value
        break
      case 'signDaiPermit':
        model.signedFor = maxUint256
        break
    }
  }
  return model
}

/** After the plan, the spender can pull `required`: through its allowance, a signed permit, or Permit2. */
function canPull(model: ChainModel, plan: ApprovalPlan, parameters: PlanApprovalParameters<TradingMode>): boolean {
  const { required } = parameters
  if (plan.steps.length === 1 && plan.steps[0]?.type === 'none') return true
  if ((model.allowance.get(parameters.spender.address.toLowerCase()) ?? 0n) >= required) return true
  if (model.signedFor >= required) return true
  const toPermit2 = model.allowance.get(permit2Address.toLowerCase()) ?? 0n
  return toPermit2 >= required && (model.permit2Allowance >= required || model.permit2Transfer >= required)
}

const signing = new Set(['signEip2612Permit', 'signDaiPermit', 'signPermit2Allowance', 'signPermit2Transfer'])
const permit2Steps = new Set([
  'approvePermit2',
  'setPermit2Allowance',
  'signPermit2Allowance',
  'signPermit2Transfer',
  'usePermit2Allowance',
])

function planOrRefusal(parameters: PlanApprovalParameters<TradingMode>): ApprovalPlan | ApprovalNotPossibleError {
  try {
    return planApproval(parameters)
  } catch (error) {
    if (error instanceof ApprovalNotPossibleError) return error
    throw error
  }
}

describe('planApproval properties', () => {
  it('refuses exactly when the rules leave no approval path', () => {
    fc.assert(
      fc.property(parametersArbitrary, (parameters) => {
        expect(planOrRefusal(parameters) instanceof ApprovalNotPossibleError).toBe(impossible(parameters))
      }),
      { numRuns: 2_000 },
    )
  })

  it('lets the spender pull the amount after the plan, without a step the token would revert', () => {
    fc.assert(
      fc.property(parametersArbitrary, (parameters) => {
        const plan = planOrRefusal(parameters)
        if (plan instanceof ApprovalNotPossibleError) return
        expect(canPull(execute(plan, parameters), plan, parameters)).toBe(true)
      }),
      { numRuns: 2_000 },
    )
  })

  it('plans no step at all for a native source', () => {
    fc.assert(
      fc.property(parametersArbitrary, (parameters) => {
        if (parameters.token.kind !== 'native') return
        expect(planApproval(parameters).steps).toEqual([{ type: 'none', reason: 'nativeToken' }])
      }),
    )
  })

  it('never signs a permit for an order that settles over time', () => {
    fc.assert(
      fc.property(parametersArbitrary, (parameters) => {
        const plan = planOrRefusal(parameters)
        if (plan instanceof ApprovalNotPossibleError || !parameters.settlesOverTime) return
        expect(plan.steps.filter((step) => signing.has(step.type))).toEqual([])
      }),
      { numRuns: 1_000 },
    )
  })

  it('never puts two non-zero approves of one spender in a row on a USDT-style token', () => {
    fc.assert(
      fc.property(parametersArbitrary, (parameters) => {
        const plan = planOrRefusal(parameters)
        if (plan instanceof ApprovalNotPossibleError || parameters.token.approveBehaviour !== 'usdtStyle') return
        // The allowances before the plan count as the approves that came before it.
        const before = [
          { to: parameters.spender.address, amount: parameters.currentAllowance },
          { to: permit2Address, amount: parameters.currentPermit2Allowance?.token ?? 0n },
        ]
        const planned = plan.steps.flatMap((step) =>
          step.type === 'approve'
            ? [{ to: step.spender, amount: step.amount }]
            : step.type === 'approvePermit2'
              ? [{ to: permit2Address, amount: step.amount }]
              : step.type === 'approveZeroFirst'
                ? [{ to: step.spender, amount: 0n }]
                : [],
        )
        const approves = [...before, ...planned]
        for (const [index, current] of approves.entries()) {
          if (index < before.length) continue
          const previous = approves.slice(0, index).findLast((candidate) => isAddressEqual(candidate.to, current.to))
          if (previous && current.amount !== 0n) expect(previous.amount).toBe(0n)
        }
      }),
      { numRuns: 1_000 },
    )
  })

  it('uses Permit2 only for Delta, and no signed permit at all for RFQ', () => {
    fc.assert(
      fc.property(parametersArbitrary, (parameters) => {
        const plan = planOrRefusal(parameters)
        if (plan instanceof ApprovalNotPossibleError) return
        if (parameters.mode !== 'delta') expect(plan.steps.filter((step) => permit2Steps.has(step.type))).toEqual([])
        if (parameters.mode === 'rfq') expect(plan.steps.filter((step) => signing.has(step.type))).toEqual([])
      }),
      { numRuns: 1_000 },
    )
  })

  it('grants exactly the amount under the exact policy', () => {
    fc.assert(
      fc.property(parametersArbitrary, (parameters) => {
        const plan = planOrRefusal(parameters)
        if (plan instanceof ApprovalNotPossibleError || parameters.policy !== 'exact') return
        for (const step of plan.steps) {
          expect(step.type).not.toBe('signDaiPermit')
          if ('amount' in step) expect(step.amount).toBe(parameters.required)
          if (step.type === 'signEip2612Permit') expect(step.value).toBe(parameters.required)
        }
      }),
      { numRuns: 1_000 },
    )
  })

  it('plans a single none step exactly when nothing is needed, and never a none among other steps', () => {
    fc.assert(
      fc.property(parametersArbitrary, (parameters) => {
        const plan = planOrRefusal(parameters)
        if (plan instanceof ApprovalNotPossibleError) return
        const nothingNeeded =
          parameters.token.kind === 'native' || parameters.required <= 0n || parameters.currentAllowance >= parameters.required
        expect(plan.steps.some((step) => step.type === 'none')).toBe(nothingNeeded)
        if (nothingNeeded) expect(plan.steps).toHaveLength(1)
        expect(plan.steps.length).toBeGreaterThan(0)
      }),
      { numRuns: 1_000 },
    )
  })
})
