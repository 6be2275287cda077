import type { Address, LocalAccount } from 'viem'
import { applyApprovalPlan } from '../../chain/apply-approval-plan.js'
import { planApproval } from '../../chain/approval-plan.js'
import type { ChainClients } from '../../chain/chain-clients.js'
import { detectTokenCapabilities } from '../../chain/detect-token-capabilities.js'
import { readAllowances } from '../../chain/read-allowances.js'
import type { Spender } from '../../chain/spender.js'
import type { TransactionQueue } from '../../chain/transaction-queue.js'
import type { Journal } from '../../journal/journal.js'

export type ApproveMakerTokenParameters = {
  chain: ChainClients
  account: LocalAccount
  queue: TransactionQueue
  /** The RFQ contract of the chain: it pulls the maker's token when a firm order is filled. */
  rfq: Spender<'rfq'>
  token: Address
  /** What the RFQ contract must be able to pull: the maker's balance of the token. */
  required: bigint
  /** `exact` grants `required`; `unlimited` the maximum once. */
  policy: 'exact' | 'unlimited'
  journal: Journal
}

/**
 * Makes the RFQ contract able to pull `required` of a token the maker sells: reads the allowance, plans (RFQ takes
 * on-chain approvals only, a USDT-style token is reset to 0 first) and sends what is missing through the account's
 * queue, journaling each approval. Returns the allowance now in place.
 */
export async function approveMakerToken(parameters: ApproveMakerTokenParameters): Promise<bigint> {
  const { chain, account, queue, rfq, token, required, policy, journal } = parameters
  const allowances = await readAllowances(chain.publicClient, { token, owner: account.address, spender: rfq })
  if (allowances.currentAllowance >= required) return allowances.currentAllowance
  const capabilities = await detectTokenCapabilities(chain.publicClient, { token })
  const plan = planApproval({
    mode: 'rfq',
    token: capabilities,
    owner: account.address,
    spender: rfq,
    required,
    ...allowances,
    policy,
    settlesOverTime: true,
    permitPreference: 'onchain',
  })
  const applied = await applyApprovalPlan({ plan, client: chain.publicClient, queue, account })
  // An RFQ plan has on-chain steps only (a reset to 0, then the approve), one transaction each, in order.
  let granted = allowances.currentAllowance
  applied.transactions.forEach((transaction, index) => {
    const step = plan.steps[index]
    const amount = step?.type === 'approve' ? step.amount : 0n
    granted = amount
    journal.recordApproval({
      chainId: rfq.chainId,
      owner: account.address,
      token,
      spender: rfq.address,
      mode: 'approve',
      amount,
      txHash: transaction.hash,
    })
  })
  return granted
}
