import { randomBytes } from 'node:crypto'
import {
  type Address,
  type Chain,
  type Client,
  encodeFunctionData,
  erc20Abi,
  type Hex,
  hexToBigInt,
  isAddressEqual,
  parseAbi,
  parseEventLogs,
  type Transport,
} from 'viem'
import { readContract } from 'viem/actions'
import { BaseError } from '../errors/base.js'
import { permit2Address } from '../protocol/addresses.js'
import { type DeltaPermit, encodeDeltaPermit } from '../protocol/delta-permit.js'
import type { TokenDomain } from '../protocol/token-permits.js'
import { type ApprovalPlan, ApprovalRequestError, type ApprovalStep } from './approval-plan.js'
import { permit2Abi } from './read-allowances.js'
import { type SigningAccount, signDaiPermit, signEip2612Permit, signPermit2Allowance, signPermit2Transfer } from './sign-token-permit.js'
import type { TradingMode } from './spender.js'
import type { SentTransaction, TransactionQueue } from './transaction-queue.js'

const noncesAbi = parseAbi(['function nonces(address owner) view returns (uint256)'])

export type ApplyApprovalPlanParameters<M extends TradingMode> = {
  plan: ApprovalPlan<M>
  /** Reads nonces and checks allowances, on the plan's chain. */
  client: Client<Transport, Chain>
  /** The owner's queue on that chain: every approve goes through it. */
  queue: TransactionQueue
  /** The owner's signer, for permits. */
  account: SigningAccount
  /** The token's permit domain (detectTokenCapabilities), needed by EIP-2612 and DAI permit steps. */
  permitDomain?: TokenDomain | undefined
  /**
   * Unix seconds until which signed permits are valid, and when Permit2 allowances set here expire. For a Delta
   * order use the order's deadline: the 96-byte Permit2 transfer form must carry exactly it.
   */
  deadline?: bigint | undefined
  /** Expiration of a Permit2 allowance (uint48 unix seconds). Default: `deadline`. */
  permit2Expiration?: bigint | undefined
}

export type ApplyApprovalPlanReturnType = {
  /** The approvals sent, mined and successful, in order. */
  transactions: SentTransaction[]
  /**
   * What travels with the trade. Delta: the order's `permit` bytes (0x, 0x01, 96, 192, 224 or 256 bytes). Market:
   * the build's `permit` (224-byte EIP-2612 or 256-byte DAI permit), undefined when the allowance is on-chain.
   * RFQ: always undefined.
   */
  permit: Hex | undefined
  /** The decoded form of `permit`. */
  signedPermit: DeltaPermit | undefined
}

/**
 * Executes an approval plan: on-chain steps through the owner's transaction queue (each waits for its receipt and
 * stops the plan on a revert), signature steps with the protocol core's typed data, then checks on-chain that the
 * approvals took effect. Returns what the caller attaches to the trade.
 */
export async function applyApprovalPlan<M extends TradingMode>(
  parameters: ApplyApprovalPlanParameters<M>,
): Promise<ApplyApprovalPlanReturnType> {
  const { plan, queue } = parameters
  checkParties(parameters)
  const token = plan.token.address
  const symbol = plan.token.symbol ?? token
  const transactions: SentTransaction[] = []
  let signedPermit: DeltaPermit | undefined
  const approve = async (spender: Address, amount: bigint, label: string) => {
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, amount] })
    transactions.push(await queue.send({ to: token, data, label, purpose: 'approve' }))
  }
  for (const step of plan.steps) {
    switch (step.type) {
      case 'none':
        break
      case 'approveZeroFirst':
        await approve(step.spender, 0n, `reset ${symbol} allowance of ${step.spender} to 0`)
        break
      case 'approve':
        await approve(step.spender, step.amount, `approve ${symbol} to the ${plan.mode} spender`)
        break
      case 'approvePermit2':
        await approve(permit2Address, step.amount, `approve ${symbol} to Permit2`)
        break
      case 'setPermit2Allowance': {
        const data = encodeFunctionData({
          abi: permit2Abi,
          functionName: 'approve',
          args: [token, step.spender, step.amount, Number(permit2ExpirationOf(parameters, step))],
        })
        transactions.push(
          await queue.send({
            to: permit2Address,
            data,
            label: `Permit2 allowance of ${symbol} to the ${plan.mode} spender`,
            purpose: 'approve',
          }),
        )
        break
      }
      case 'usePermit2Allowance':
        signedPermit = { type: 'permit2Approved' }
        break
      default:
        signedPermit = await signStep(parameters, step)
    }
  }
  await checkEffective(parameters, transactions)
  const permit = signedPermit && plan.mode !== 'rfq' ? encodeDeltaPermit(signedPermit) : plan.mode === 'delta' ? '0x' : undefined
  return { transactions, permit, signedPermit }
}

type SignStep = Extract<ApprovalStep, { type: 'signEip2612Permit' | 'signDaiPermit' | 'signPermit2Allowance' | 'signPermit2Transfer' }>

async function signStep(parameters: ApplyApprovalPlanParameters<TradingMode>, step: SignStep): Promise<DeltaPermit> {
  const { plan, client, account } = parameters
  const token = plan.token.address
  const deadline = deadlineOf(parameters, step)
  const chainId = plan.spender.chainId
  switch (step.type) {
    case 'signEip2612Permit': {
      const nonce = await readContract(client, { address: token, abi: noncesAbi, functionName: 'nonces', args: [account.address] })
      return signEip2612Permit(account, { domain: domainOf(parameters, step), spender: step.spender, value: step.value, nonce, deadline })
    }
    case 'signDaiPermit': {
      const nonce = await readContract(client, { address: token, abi: noncesAbi, functionName: 'nonces', args: [account.address] })
      return signDaiPermit(account, { domain: domainOf(parameters, step), spender: step.spender, nonce, expiry: deadline, allowed: true })
    }
    case 'signPermit2Allowance': {
      const [, , nonce] = await readContract(client, {
        address: permit2Address,
        abi: permit2Abi,
        functionName: 'allowance',
        args: [account.address, token, step.spender],
      })
      const expiration = permit2ExpirationOf(parameters, step)
      return signPermit2Allowance(account, {
        chainId,
        token,
        spender: step.spender,
        amount: step.amount,
        expiration,
        nonce: BigInt(nonce),
        sigDeadline: deadline,
      })
    }
    case 'signPermit2Transfer': {
      const nonce = await unusedPermit2Nonce(client, account.address)
      return signPermit2Transfer(account, { chainId, token, spender: step.spender, amount: step.amount, nonce, deadline })
    }
  }
}

/** Permit2 signature transfers use unordered nonces (word = nonce >> 8, bit = nonce & 255): a random unused one. */
async function unusedPermit2Nonce(client: Client, owner: Address): Promise<bigint> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const nonce = hexToBigInt(`0x${randomBytes(8).toString('hex')}`)
    const word = await readContract(client, {
      address: permit2Address,
      abi: permit2Abi,
      functionName: 'nonceBitmap',
      args: [owner, nonce >> 8n],
    })
    if ((word & (1n << (nonce & 255n))) === 0n) return nonce
  }
  throw new ApprovalRequestError('no unused Permit2 nonce in 8 random draws', {
    details: { owner },
    hint: 'The owner has used an improbable number of Permit2 nonces; sign again.',
  })
}

function deadlineOf(parameters: ApplyApprovalPlanParameters<TradingMode>, step: ApprovalStep): bigint {
  if (parameters.deadline === undefined) {
    throw new ApprovalRequestError(`the step ${step.type} needs a deadline`, {
      hint: 'Pass deadline (unix seconds; for a Delta order, the order’s deadline) to applyApprovalPlan.',
    })
  }
  return parameters.deadline
}

function permit2ExpirationOf(parameters: ApplyApprovalPlanParameters<TradingMode>, step: ApprovalStep): bigint {
  return parameters.permit2Expiration ?? deadlineOf(parameters, step)
}

function domainOf(parameters: ApplyApprovalPlanParameters<TradingMode>, step: ApprovalStep): TokenDomain {
  const domain = parameters.permitDomain
  if (!domain || !isAddressEqual(domain.verifyingContract, parameters.plan.token.address)) {
    throw new ApprovalRequestError(`the step ${step.type} needs the permit domain of ${parameters.plan.token.address}`, {
      hint: 'Pass permitDomain from detectTokenCapabilities (or the configuration) to applyApprovalPlan.',
    })
  }
  return domain
}

function checkParties({ plan, client, queue, account }: ApplyApprovalPlanParameters<TradingMode>): void {
  const problems = [
    isAddressEqual(plan.owner, account.address) ? undefined : `the plan's owner is ${plan.owner}, the signer is ${account.address}`,
    isAddressEqual(plan.owner, queue.account) ? undefined : `the plan's owner is ${plan.owner}, the queue sends from ${queue.account}`,
    plan.spender.chainId === client.chain.id
      ? undefined
      : `the plan is for chain ${plan.spender.chainId}, the client reads chain ${client.chain.id}`,
  ].filter((problem) => problem !== undefined)
  if (problems.length > 0) {
    throw new ApprovalRequestError(problems.join('; '), {
      hint: 'Approve, sign and execute with the same account on the same chain (API section 5.5).',
    })
  }
}

/**
 * On-chain approvals must show on-chain: some tokens answer `false` instead of reverting. Read at the block of the last
 * approval: later blocks may hold fills of the owner's open orders, which spend the allowance this plan set (without
 * an approval sent, at the latest block). A fill in the approval's own block, after it, spends it too: an ERC-20
 * allowance read lower than required still counts when the token logged the approval of at least the required amount
 * in the plan's transactions (a token that answers `false` logs nothing).
 */
async function checkEffective(
  { plan, client }: ApplyApprovalPlanParameters<TradingMode>,
  transactions: readonly SentTransaction[],
): Promise<void> {
  const blockNumber = transactions.at(-1)?.receipt.blockNumber
  const token = plan.token.address
  const allowanceTo = (spender: Address) =>
    readContract(client, { address: token, abi: erc20Abi, functionName: 'allowance', args: [plan.owner, spender], blockNumber })
  for (const step of plan.steps) {
    let granted: bigint | undefined
    let spender: Address = plan.spender.address
    if (step.type === 'approve') granted = await allowanceTo(step.spender)
    if (step.type === 'approvePermit2') {
      spender = permit2Address
      granted = await allowanceTo(permit2Address)
    }
    if (step.type === 'setPermit2Allowance') {
      granted = (
        await readContract(client, {
          address: permit2Address,
          abi: permit2Abi,
          functionName: 'allowance',
          args: [plan.owner, token, step.spender],
          blockNumber,
        })
      )[0]
    }
    if (granted === undefined || granted >= plan.required) continue
    const logged = step.type === 'setPermit2Allowance' ? undefined : loggedApproval(transactions, token, plan.owner, spender)
    if (logged === undefined || logged < plan.required) throw new ApprovalNotEffectiveError({ plan, step: step.type, spender, granted })
  }
}

/** The value of the last ERC-20 `Approval(owner, spender, value)` that `token` logged in these transactions. */
function loggedApproval(transactions: readonly SentTransaction[], token: Address, owner: Address, spender: Address): bigint | undefined {
  let value: bigint | undefined
  for (const { receipt } of transactions) {
    for (const log of parseEventLogs({ abi: erc20Abi, eventName: 'Approval', logs: receipt.logs, strict: true })) {
      if (isAddressEqual(log.address, token) && isAddressEqual(log.args.owner, owner) && isAddressEqual(log.args.spender, spender)) {
        value = log.args.value
      }
    }
  }
  return value
}

/**
 * An approval was mined but the allowance did not change as asked (a token that answers `false` instead of
 * reverting, or a concurrent spend). Operational: the bot does not place the trade; the user checks the token.
 */
export class ApprovalNotEffectiveError extends BaseError {
  override name = 'ApprovalNotEffectiveError' as const
  constructor({ plan, step, spender, granted }: { plan: ApprovalPlan; step: string; spender: Address; granted: bigint }) {
    super(`The ${step} of ${plan.token.symbol ?? plan.token.address} was mined, but the allowance to ${spender} is ${granted}`, {
      details: { chainId: plan.spender.chainId, token: plan.token.address, owner: plan.owner, spender, required: plan.required, granted },
      hint: 'The token did not apply the approval. Check the token contract; set its approveBehaviour in the configuration if detection was wrong.',
      errorClass: 'operational',
    })
  }
}
