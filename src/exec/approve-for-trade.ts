import type { Address, Hex, LocalAccount } from 'viem'
import { applyApprovalPlan } from '../chain/apply-approval-plan.js'
import { type PermitPreference, planApproval } from '../chain/approval-plan.js'
import type { ChainClients } from '../chain/chain-clients.js'
import { detectTokenCapabilities } from '../chain/detect-token-capabilities.js'
import { readAllowances } from '../chain/read-allowances.js'
import type { Spender } from '../chain/spender.js'
import type { TransactionQueue } from '../chain/transaction-queue.js'

export type ApproveForTradeParameters<M extends 'delta' | 'market'> = {
  chain: ChainClients
  account: LocalAccount
  queue: TransactionQueue
  spender: Spender<M>
  token: Address
  required: bigint
  /** Unix seconds until which permits are valid (the order's deadline for Delta). */
  deadline: bigint
  /** Default `onchain`: an approve transaction where the token allows one; `permit` / `permit2` sign instead. */
  permitPreference?: PermitPreference | undefined
  /** `exact` (default) grants what the trade needs; `unlimited` grants the maximum once. */
  policy?: 'exact' | 'unlimited' | undefined
  /** LIMIT and TWAP orders settle over time: they need an on-chain allowance, never a one-shot permit. */
  settlesOverTime?: boolean | undefined
}

/**
 * Detects the token, reads the allowances, plans (exact amounts; on-chain approval preferred unless told otherwise,
 * a permit where the token cannot be approved) and applies the plan. Returns the permit that travels with the trade and the approvals sent.
 */
export async function approveForTrade<M extends 'delta' | 'market'>(
  parameters: ApproveForTradeParameters<M>,
): Promise<{ permit: Hex | undefined; approvals: Hex[] }> {
  const { chain, account, queue, spender, required, deadline } = parameters
  const token = await detectTokenCapabilities(chain.publicClient, { token: parameters.token })
  const allowances = await readAllowances(chain.publicClient, { token: token.address, owner: account.address, spender })
  const plan = planApproval({
    mode: spender.mode,
    token,
    owner: account.address,
    spender,
    required,
    ...allowances,
    policy: parameters.policy ?? 'exact',
    settlesOverTime: parameters.settlesOverTime ?? false,
    permitPreference: parameters.permitPreference ?? 'onchain',
  })
  const applied = await applyApprovalPlan({
    plan,
    client: chain.publicClient,
    queue,
    account,
    permitDomain: token.permitDomain,
    deadline,
  })
  return { permit: applied.permit, approvals: applied.transactions.map((transaction) => transaction.hash) }
}
