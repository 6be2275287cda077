import {
  type Address,
  type Chain,
  erc20Abi,
  getAddress,
  type Hex,
  maxUint256,
  type PublicClient,
  parseAbi,
  parseEventLogs,
  parseUnits,
  size,
  type Transport,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { applyApprovalPlan } from '../../src/chain/apply-approval-plan.js'
import { type PermitPreference, planApproval } from '../../src/chain/approval-plan.js'
import { createChainClients } from '../../src/chain/chain-clients.js'
import { type DeploymentContracts, parseDeploymentResource } from '../../src/chain/deployment.js'
import { detectTokenCapabilities } from '../../src/chain/detect-token-capabilities.js'
import { permit2Abi, readAllowances } from '../../src/chain/read-allowances.js'
import { resolveSpender, type TradingMode } from '../../src/chain/spender.js'
import { createTransactionQueue } from '../../src/chain/transaction-queue.js'
import { deltaAddress, permit2Address } from '../../src/protocol/addresses.js'
import { decodeDeltaPermit } from '../../src/protocol/delta-permit.js'
import { fromCompactSignature } from '../../src/protocol/signature.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { waitForLocalReceipt } from '../../src/sandbox/chains/receipt.js'
import { sendFixtureCall } from '../../src/sandbox/chains/send.js'
import { getContractArtifact } from '../../src/sandbox/contracts/compile.js'
import { buildMarketTransaction, type Envelope, quoteMarket } from '../helpers/market.js'
import { request, sandboxToken, sandboxWallet, useSandbox } from '../helpers/sandbox.js'
import { waitFor } from '../helpers/wait-for.js'

const chainId = 1
const permitAbi = parseAbi([
  'function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)',
  'function permit(address holder, address spender, uint256 nonce, uint256 expiry, bool allowed, uint8 v, bytes32 r, bytes32 s)',
])
const sandboxPermit2Abi = getContractArtifact('Permit2').abi
/** Submits other people's permits, as the spender (or anyone) would. */
const relayerIndex = 9

type Approval = {
  symbol: string
  index: number
  mode: TradingMode
  required: bigint
  policy?: 'exact' | 'unlimited'
  permitPreference?: PermitPreference
  settlesOverTime?: boolean
  permit2Signature?: 'allowance' | 'transfer'
}

describe('applyApprovalPlan', () => {
  const sandbox = useSandbox({ chainIds: [chainId] })
  let contracts: DeploymentContracts | undefined
  const client = (): PublicClient<Transport, Chain> =>
    createChainClients({
      chains: sandbox().chains.map(({ chainId, rpcUrl }) => ({ chainId, rpcUrls: [rpcUrl] })),
      pollingIntervalMs: 50,
    }).get(chainId)?.publicClient ?? expect.unreachable('no client')
  const deadline = () => BigInt(Math.floor(sandbox().venue.clock.now() / 1000) + 3_600)

  /** Detect, resolve, read, plan and apply, as the executor will. */
  async function approve({ symbol, index, mode, required, ...choices }: Approval) {
    contracts ??= parseDeploymentResource((await request(sandbox().url, 'GET', '/resources/contracts.json')).json)
    const publicClient = client()
    const account = privateKeyToAccount(developmentAccounts[index]?.privateKey ?? expect.unreachable('no account'))
    const token = await detectTokenCapabilities(publicClient, { token: sandboxToken(sandbox(), chainId, symbol).address })
    const spender = resolveSpender({ contracts, chainId, mode })
    const allowances = await readAllowances(publicClient, { token: token.address, owner: account.address, spender })
    const plan = planApproval({
      mode,
      token,
      owner: account.address,
      spender,
      required,
      ...allowances,
      policy: choices.policy ?? 'exact',
      settlesOverTime: choices.settlesOverTime ?? false,
      permitPreference: choices.permitPreference ?? 'onchain',
      permit2Signature: choices.permit2Signature,
    })
    const queue = createTransactionQueue({ client: publicClient, account })
    const permitDeadline = deadline()
    const result = await applyApprovalPlan({
      plan,
      client: publicClient,
      queue,
      account,
      permitDomain: token.permitDomain,
      deadline: permitDeadline,
    })
    const allowanceTo = (to: Address) =>
      publicClient.readContract({ address: token.address, abi: erc20Abi, functionName: 'allowance', args: [account.address, to] })
    return {
      plan,
      result,
      owner: account.address,
      token: token.address,
      spender: spender.address,
      publicClient,
      allowanceTo,
      permitDeadline,
    }
  }

  /** Submits a permit's arguments to the token from another account, as the spender would. */
  async function submitTokenPermit(token: Address, permit: Hex): Promise<void> {
    const decoded = decodeDeltaPermit(permit)
    const relayer = sandboxWallet(sandbox(), chainId, relayerIndex)
    const hash =
      decoded.type === 'eip2612'
        ? await relayer.writeContract({
            address: token,
            abi: permitAbi,
            functionName: 'permit',
            args: [decoded.owner, decoded.spender, decoded.value, decoded.deadline, decoded.v, decoded.r, decoded.s],
          })
        : decoded.type === 'dai'
          ? await relayer.writeContract({
              address: token,
              abi: permitAbi,
              functionName: 'permit',
              args: [decoded.holder, decoded.spender, decoded.nonce, decoded.expiry, decoded.allowed, decoded.v, decoded.r, decoded.s],
            })
          : expect.unreachable(`not a token permit: ${decoded.type}`)
    expect((await waitForLocalReceipt(relayer, hash)).status).toBe('success')
  }

  it('approves USDC on-chain to the Delta contract when on-chain approval is preferred', async () => {
    const { plan, result, allowanceTo, spender } = await approve({
      symbol: 'USDC',
      index: 1,
      mode: 'delta',
      required: parseUnits('250', 6),
    })
    expect(plan.steps.map((step) => step.type)).toEqual(['approve'])
    expect(result.transactions).toHaveLength(1)
    expect(result.permit).toBe('0x')
    expect(await allowanceTo(spender)).toBe(parseUnits('250', 6))
  })

  it('signs a USDC EIP-2612 permit of 224 bytes that the token accepts for the Delta contract', async () => {
    const required = parseUnits('100', 6)
    const { result, token, allowanceTo, owner, publicClient } = await approve({
      symbol: 'USDC',
      index: 2,
      mode: 'delta',
      required,
      permitPreference: 'permit',
    })
    const nonceBefore = await publicClient.getTransactionCount({ address: owner })
    expect(result.transactions).toEqual([])
    expect(size(result.permit ?? '0x')).toBe(224)
    await submitTokenPermit(token, result.permit ?? '0x')
    expect(await allowanceTo(deltaAddress)).toBe(required)
    expect(await publicClient.getTransactionCount({ address: owner })).toBe(nonceBefore)
  })

  it('resets USDT to 0 before approving a new amount, on-chain', async () => {
    const wallet = sandboxWallet(sandbox(), chainId, 3)
    const usdt = sandboxToken(sandbox(), chainId, 'USDT').address
    await waitForLocalReceipt(
      wallet,
      await wallet.writeContract({ address: usdt, abi: erc20Abi, functionName: 'approve', args: [deltaAddress, 5n] }),
    )
    const required = parseUnits('40', 6)
    const { plan, result, allowanceTo } = await approve({ symbol: 'USDT', index: 3, mode: 'delta', required })
    expect(plan.steps.map((step) => step.type)).toEqual(['approveZeroFirst', 'approve'])
    const approvals = result.transactions.flatMap(({ receipt }) =>
      parseEventLogs({ abi: erc20Abi, eventName: 'Approval', logs: receipt.logs }),
    )
    expect(approvals.map((log) => log.args.value)).toEqual([0n, required])
    expect(await allowanceTo(deltaAddress)).toBe(required)
  })

  it('signs a DAI permit of 256 bytes that the token accepts, granting an unlimited allowance', async () => {
    const { result, token, allowanceTo } = await approve({
      symbol: 'DAI',
      index: 4,
      mode: 'delta',
      required: parseUnits('10', 18),
      policy: 'unlimited',
      permitPreference: 'permit',
    })
    expect(size(result.permit ?? '0x')).toBe(256)
    await submitTokenPermit(token, result.permit ?? '0x')
    expect(await allowanceTo(deltaAddress)).toBe(maxUint256)
  })

  it('signs a WBTC permit under its own domain version that the token accepts', async () => {
    const required = parseUnits('0.5', 8)
    const { result, token, allowanceTo } = await approve({ symbol: 'WBTC', index: 5, mode: 'delta', required, permitPreference: 'permit' })
    expect(result.signedPermit).toMatchObject({ type: 'eip2612', value: required })
    await submitTokenPermit(token, result.permit ?? '0x')
    expect(await allowanceTo(deltaAddress)).toBe(required)
  })

  it('gives the permit-only PUSD a permit even when on-chain approval is preferred', async () => {
    const required = parseUnits('75', 18)
    const { plan, result, token, allowanceTo } = await approve({ symbol: 'PUSD', index: 6, mode: 'delta', required })
    expect(plan.steps.map((step) => step.type)).toEqual(['signEip2612Permit'])
    await submitTokenPermit(token, result.permit ?? '0x')
    expect(await allowanceTo(deltaAddress)).toBe(required)
  })

  it('approves PUSD to Permit2 and signs a 192-byte Permit2 allowance that Permit2 accepts for Delta', async () => {
    const required = parseUnits('30', 18)
    const { plan, result, token, owner, publicClient, allowanceTo, permitDeadline } = await approve({
      symbol: 'PUSD',
      index: 7,
      mode: 'delta',
      required,
      permitPreference: 'permit2',
    })
    expect(plan.steps.map((step) => step.type)).toEqual(['approvePermit2', 'signPermit2Allowance'])
    expect(await allowanceTo(permit2Address)).toBe(required)
    const permit = decodeDeltaPermit(result.permit ?? '0x')
    if (permit.type !== 'permit2Allowance') return expect.unreachable(`expected a Permit2 allowance permit, got ${permit.type}`)
    const relayer = sandboxWallet(sandbox(), chainId, relayerIndex)
    const single = {
      details: { token, amount: permit.amount, expiration: Number(permit.expiration), nonce: Number(permit.nonce) },
      spender: getAddress(deltaAddress),
      sigDeadline: permit.sigDeadline,
    }
    const hash = await relayer.writeContract({
      address: permit2Address,
      abi: sandboxPermit2Abi,
      functionName: 'permit',
      args: [owner, single, fromCompactSignature(permit.signature)],
    })
    expect((await waitForLocalReceipt(relayer, hash)).status).toBe('success')
    const [amount, expiration] = await publicClient.readContract({
      address: permit2Address,
      abi: permit2Abi,
      functionName: 'allowance',
      args: [owner, token, deltaAddress],
    })
    expect(amount).toBe(required)
    expect(BigInt(expiration)).toBe(permitDeadline)
  })

  it('signs a 96-byte Permit2 transfer that Permit2 executes when the Delta contract calls it', async () => {
    const required = parseUnits('12', 18)
    const { result, token, owner, publicClient, permitDeadline } = await approve({
      symbol: 'PUSD',
      index: 8,
      mode: 'delta',
      required,
      permitPreference: 'permit2',
      permit2Signature: 'transfer',
    })
    const permit = decodeDeltaPermit(result.permit ?? '0x')
    if (permit.type !== 'permit2Transfer') return expect.unreachable(`expected a Permit2 transfer, got ${permit.type}`)
    const chain = sandbox().venue.chains.get(chainId) ?? expect.unreachable('no chain')
    await chain.clients.testClient.impersonateAccount({ address: deltaAddress })
    await chain.clients.testClient.setBalance({ address: deltaAddress, value: 10n ** 18n })
    const receiver: Address = '0x00000000000000000000000000000000000d1e7a'
    await sendFixtureCall(chain.clients, {
      from: deltaAddress,
      to: permit2Address,
      abi: sandboxPermit2Abi,
      functionName: 'permitTransferFrom',
      args: [
        { permitted: { token, amount: required }, nonce: permit.nonce, deadline: permitDeadline },
        { to: receiver, requestedAmount: required },
        owner,
        permit.signature,
      ],
    })
    await chain.clients.testClient.stopImpersonatingAccount({ address: deltaAddress })
    expect(await publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [receiver] })).toBe(required)
  })

  it('sets an on-chain Permit2 allowance and answers 0x01 for a PUSD order that settles over time', async () => {
    const required = parseUnits('20', 18)
    const { plan, result, token, owner, publicClient, permitDeadline } = await approve({
      symbol: 'PUSD',
      index: 0,
      mode: 'delta',
      required,
      permitPreference: 'permit',
      settlesOverTime: true,
    })
    expect(plan.steps.map((step) => step.type)).toEqual(['approvePermit2', 'setPermit2Allowance', 'usePermit2Allowance'])
    expect(result.permit).toBe('0x01')
    expect(result.transactions).toHaveLength(2)
    const [amount, expiration] = await publicClient.readContract({
      address: permit2Address,
      abi: permit2Abi,
      functionName: 'allowance',
      args: [owner, token, deltaAddress],
    })
    expect([amount, BigInt(expiration)]).toEqual([required, permitDeadline])
  })

  it('counts an approval the token logged when a spend later in the same block leaves less than required', async () => {
    // A fill of an open order in the approval's own block spends the allowance the plan just set: the allowance read at
    // that block is lower than required although the approval took effect.
    contracts ??= parseDeploymentResource((await request(sandbox().url, 'GET', '/resources/contracts.json')).json)
    const publicClient = client()
    const owner = privateKeyToAccount(developmentAccounts[6]?.privateKey ?? expect.unreachable('no account'))
    const taker = sandboxWallet(sandbox(), chainId, 7)
    const token = await detectTokenCapabilities(publicClient, { token: sandboxToken(sandbox(), chainId, 'USDC').address })
    // The spender is an account of ours, so it can spend in the approval's block as a settling contract would.
    const spender = { ...resolveSpender({ contracts, chainId, mode: 'delta' }), address: taker.account.address }
    const required = parseUnits('100', 6)
    const allowances = await readAllowances(publicClient, { token: token.address, owner: owner.address, spender })
    const plan = planApproval({
      mode: 'delta',
      token,
      owner: owner.address,
      spender,
      required,
      ...allowances,
      policy: 'exact',
      settlesOverTime: false,
      permitPreference: 'onchain',
    })
    expect(plan.steps.map((step) => step.type)).toEqual(['approve'])
    const sent = await publicClient.getTransactionCount({ address: owner.address })
    const baseFee = (await publicClient.getBlock()).baseFeePerGas ?? 0n
    await publicClient.request({ method: 'evm_setAutomine', params: [false] } as never)
    try {
      // Sent first but at the lowest fee the block takes, so the node mines it after the approval; with a gas limit of
      // its own (an estimate now would see no allowance).
      const spend = await taker.writeContract({
        address: token.address,
        abi: erc20Abi,
        functionName: 'transferFrom',
        args: [owner.address, taker.account.address, 1n],
        gas: 100_000n,
        maxPriorityFeePerGas: 0n,
        maxFeePerGas: baseFee,
      })
      const applying = applyApprovalPlan({
        plan,
        client: publicClient,
        queue: createTransactionQueue({ client: publicClient, account: owner }),
        account: owner,
        permitDomain: token.permitDomain,
        deadline: deadline(),
      })
      await waitFor('the approval in the pool', async () =>
        (await publicClient.getTransactionCount({ address: owner.address, blockTag: 'pending' })) > sent ? true : undefined,
      )
      await publicClient.request({ method: 'evm_mine' } as never)
      const result = await applying
      const spent = await waitForLocalReceipt(publicClient, spend)
      expect(spent.status).toBe('success')
      expect(spent.blockNumber).toBe(result.transactions[0]?.receipt.blockNumber)
      expect(spent.transactionIndex).toBeGreaterThan(result.transactions[0]?.receipt.transactionIndex ?? Number.POSITIVE_INFINITY)
      const left = await publicClient.readContract({
        address: token.address,
        abi: erc20Abi,
        functionName: 'allowance',
        args: [owner.address, taker.account.address],
        blockNumber: spent.blockNumber,
      })
      expect(left).toBe(required - 1n)
    } finally {
      await publicClient.request({ method: 'evm_setAutomine', params: [true] } as never)
    }
  })

  it('does nothing for native ETH', async () => {
    const { plan, result } = await approve({ symbol: 'ETH', index: 1, mode: 'delta', required: 10n ** 18n })
    expect(plan.steps).toEqual([{ type: 'none', reason: 'nativeToken' }])
    expect(result).toEqual({ transactions: [], permit: '0x', signedPermit: undefined })
  })

  it('approves the RFQ contract on-chain for an RFQ fill', async () => {
    const { result, allowanceTo, spender } = await approve({ symbol: 'WETH', index: 2, mode: 'rfq', required: 10n ** 17n })
    expect(result.permit).toBeUndefined()
    expect(await allowanceTo(spender)).toBe(10n ** 17n)
  })

  it('produces a DAI permit that the sandbox’s Market build applies, then swaps through the queue', async () => {
    const amount = parseUnits('500', 18)
    const route = await quoteMarket(sandbox(), { srcToken: 'DAI', destToken: 'USDC', amount: amount.toString(), version: '6.2' })
    const { result, owner, publicClient, allowanceTo, spender } = await approve({
      symbol: 'DAI',
      index: 1,
      mode: 'market',
      required: amount,
      policy: 'unlimited',
      permitPreference: 'permit',
    })
    expect(size(result.permit ?? '0x')).toBe(256)
    const answer = await buildMarketTransaction(sandbox(), chainId, {
      priceRoute: route,
      srcToken: 'DAI',
      destToken: 'USDC',
      srcAmount: route.srcAmount,
      slippage: 100,
      userAddress: owner,
      permit: result.permit,
    })
    expect(answer.status, answer.text).toBe(200)
    expect(await allowanceTo(spender)).toBe(maxUint256)
    const envelope = answer.json as Envelope
    const usdc = sandboxToken(sandbox(), chainId, 'USDC').address
    const usdcBefore = await publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [owner] })
    const account = privateKeyToAccount(developmentAccounts[1]?.privateKey ?? expect.unreachable('no account'))
    const queue = createTransactionQueue({ client: publicClient, account })
    const swap = await queue.send({
      to: envelope.to,
      data: envelope.data,
      value: BigInt(envelope.value),
      fallbackGas: envelope.gas === undefined ? undefined : BigInt(envelope.gas),
      from: envelope.from,
      chainId: envelope.chainId,
    })
    expect(swap.receipt.status).toBe('success')
    const usdcAfter = await publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [owner] })
    expect(usdcAfter - usdcBefore).toBeGreaterThanOrEqual((BigInt(route.destAmount) * 99n) / 100n)
  })
})
