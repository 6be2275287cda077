import {
  type Address,
  type Chain,
  erc20Abi,
  type Hex,
  hashTypedData,
  type PublicClient,
  parseUnits,
  recoverAddress,
  size,
  type Transport,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { applyApprovalPlan } from '../../src/chain/apply-approval-plan.js'
import { planApproval } from '../../src/chain/approval-plan.js'
import { createChainClients } from '../../src/chain/chain-clients.js'
import { type DeploymentContracts, parseDeploymentResource } from '../../src/chain/deployment.js'
import { detectTokenCapabilities } from '../../src/chain/detect-token-capabilities.js'
import { readAllowances } from '../../src/chain/read-allowances.js'
import { signDeltaCancellation } from '../../src/chain/sign-delta-cancellation.js'
import { type ReceivedToSign, signDeltaOrder } from '../../src/chain/sign-delta-order.js'
import { signRfqOrder } from '../../src/chain/sign-rfq-order.js'
import type { SigningAccount } from '../../src/chain/sign-token-permit.js'
import { resolveSpender, type Spender } from '../../src/chain/spender.js'
import { createTransactionQueue } from '../../src/chain/transaction-queue.js'
import { SignedPayloadMismatchError } from '../../src/chain/typed-data-check.js'
import { buildTwapOrderTypedData, zeroBridge } from '../../src/protocol/delta-order.js'
import { packNonceAndMeta } from '../../src/protocol/nonce-and-meta.js'
import type { RfqOrder } from '../../src/protocol/rfq-order.js'
import { fromCompactSignature } from '../../src/protocol/signature.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { approveDelta, mustBuild, mustPrice, noAgents, sandboxNow, submitDelta, type ToSign } from '../helpers/delta.js'
import { otcOrderBody } from '../helpers/otc.js'
import { request, sandboxToken, sandboxWallet, useSandbox } from '../helpers/sandbox.js'

const chainId = 1

function accountOf(index: number) {
  return privateKeyToAccount(developmentAccounts[index]?.privateKey ?? expect.unreachable(`no account ${index}`))
}

/** An account that counts its signatures, to prove a refused payload is never signed. */
function countingAccount(index: number): SigningAccount & { signatures: () => number } {
  const account = accountOf(index)
  let count = 0
  return {
    address: account.address,
    signTypedData: (parameters) => {
      count += 1
      return account.signTypedData(parameters)
    },
    signatures: () => count,
  }
}

async function refusal(sign: () => Promise<unknown>): Promise<SignedPayloadMismatchError> {
  const error = await sign().then(
    () => expect.unreachable('the payload was signed'),
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(SignedPayloadMismatchError)
  return error as SignedPayloadMismatchError
}

const clone = <T>(value: T): T => structuredClone(value)

/**
 * The signature as submitted to the sandbox: the 65-byte form of our 64-byte compact signature. The sandbox refuses
 * a compact signature from an owner it has not seen before (its first recovery passes 64 bytes to viem's
 * recoverPublicKey, which takes only 65); the API accepts both forms, so the 65-byte one is sent until that is fixed.
 */
const submittable = (signature: Hex): Hex => fromCompactSignature(signature)

describe('signing', () => {
  const sandbox = useSandbox({ chainIds: [chainId, 8453], speed: 10 })
  let contracts: DeploymentContracts | undefined
  const deploymentContracts = async () => {
    contracts ??= parseDeploymentResource((await request(sandbox().url, 'GET', '/resources/contracts.json')).json)
    return contracts
  }
  const deltaOf = async (id = chainId): Promise<Spender<'delta'>> =>
    resolveSpender({ contracts: await deploymentContracts(), chainId: id, mode: 'delta' })
  const client = (): PublicClient<Transport, Chain> =>
    createChainClients({
      chains: sandbox().chains.map(({ chainId, rpcUrl }) => ({ chainId, rpcUrls: [rpcUrl] })),
      pollingIntervalMs: 50,
    }).get(chainId)?.publicClient ?? expect.unreachable('no client')

  /** A Delta sell built by the sandbox for the account. */
  async function buildSell(
    owner: Address,
    { src = 'WETH', dest = 'USDC', amount = 10n ** 17n, permit }: { src?: string; dest?: string; amount?: bigint; permit?: Hex } = {},
  ) {
    const price = await mustPrice(sandbox(), { chainId, src, dest, amount })
    return mustBuild(sandbox(), {
      route: price.route,
      side: price.side,
      owner,
      deadline: sandboxNow(sandbox()) + 3_600,
      ...(permit === undefined ? {} : { permit }),
    })
  }

  describe('signDeltaOrder', () => {
    it('signs a built order in 64-byte compact form over the server’s orderHash, and the service accepts it', async () => {
      const account = countingAccount(1)
      await approveDelta(sandboxWallet(sandbox(), chainId, 1), sandboxToken(sandbox(), chainId, 'WETH').address)
      const built = await buildSell(account.address)
      const signed = await signDeltaOrder(account, { toSign: built.toSign, delta: await deltaOf(), orderHash: built.orderHash })
      expect(size(signed.signature)).toBe(64)
      expect(signed).toMatchObject({ orderHash: built.orderHash, primaryType: 'Order' })
      expect(await recoverAddress({ hash: built.orderHash, signature: fromCompactSignature(signed.signature) })).toBe(account.address)
      const answer = await submitDelta(sandbox(), {
        chainId,
        order: built.toSign.value,
        signature: submittable(signed.signature),
        partner: 'anon',
        ...noAgents,
      })
      expect(answer.status, answer.text).toBe(200)
      expect((answer.json as { orderHash: string }).orderHash).toBe(built.orderHash)
    })

    it('settles an order whose only allowance is the USDC permit it carries', async () => {
      const account = accountOf(2)
      const publicClient = client()
      const usdc = sandboxToken(sandbox(), chainId, 'USDC').address
      const amount = parseUnits('300', 6)
      const delta = await deltaOf()
      const token = await detectTokenCapabilities(publicClient, { token: usdc })
      const allowances = await readAllowances(publicClient, { token: usdc, owner: account.address, spender: delta })
      expect(allowances.currentAllowance).toBe(0n)
      const plan = planApproval({
        mode: 'delta',
        token,
        owner: account.address,
        spender: delta,
        required: amount,
        ...allowances,
        policy: 'exact',
        settlesOverTime: false,
        permitPreference: 'permit',
      })
      const deadline = sandboxNow(sandbox()) + 3_600
      const queue = createTransactionQueue({ client: publicClient, account })
      const { permit } = await applyApprovalPlan({
        plan,
        client: publicClient,
        queue,
        account,
        permitDomain: token.permitDomain,
        deadline: BigInt(deadline),
      })
      const price = await mustPrice(sandbox(), { chainId, src: 'USDC', dest: 'WETH', amount })
      const built = await mustBuild(sandbox(), { route: price.route, side: price.side, owner: account.address, deadline, permit })
      const signed = await signDeltaOrder(account, {
        toSign: built.toSign,
        delta,
        orderHash: built.orderHash,
        expected: { permit, owner: account.address },
      })
      const balanceBefore = await publicClient.readContract({
        address: usdc,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [account.address],
      })
      const answer = await submitDelta(sandbox(), {
        chainId,
        order: built.toSign.value,
        signature: submittable(signed.signature),
        partner: 'anon',
        excludeAgents: [],
      })
      expect(answer.status, answer.text).toBe(200)
      const id = (answer.json as { id: string }).id
      let status = ''
      for (let attempt = 0; attempt < 300 && status !== 'COMPLETED'; attempt++) {
        status = ((await request(sandbox().url, 'GET', `/v2/delta/orders/${id}`)).json as { status: string }).status
        if (['FAILED', 'EXPIRED', 'CANCELLED'].includes(status)) break
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      expect(status).toBe('COMPLETED')
      const balanceAfter = await publicClient.readContract({
        address: usdc,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [account.address],
      })
      expect(balanceBefore - balanceAfter).toBe(amount)
    })

    const tampering: [string, (toSign: ToSign) => void, RegExp][] = [
      ['a field added to the value', (toSign) => Object.assign(toSign.value, { extra: '1' }), /value\.extra: not a field of Order/],
      ['a field removed from the value', (toSign) => delete toSign.value.expectedAmount, /value\.expectedAmount: missing \(uint256\)/],
      ['a field added to the types', (toSign) => toSign.types.Order?.push({ name: 'tip', type: 'uint256' }), /types\.Order: expected/],
      ['a bridge field retyped', (toSign) => ((toSign.types.Bridge ?? [])[3] = { name: 'scalingFactor', type: 'uint8' }), /types\.Bridge/],
      [
        'another chain in the domain',
        (toSign) => Object.assign(toSign.domain, { chainId: 8453 }),
        /domain\.chainId: expected 1, received 8453/,
      ],
      [
        'another verifying contract',
        (toSign) => Object.assign(toSign.domain, { verifyingContract: `0x${'12'.repeat(20)}` }),
        /domain\.verifyingContract/,
      ],
      ['another domain name', (toSign) => Object.assign(toSign.domain, { name: 'Portikus ' }), /domain\.name: expected "Portikus"/],
      ['a salt in the domain', (toSign) => Object.assign(toSign.domain, { salt: `0x${'00'.repeat(32)}` }), /domain\.salt: not expected/],
      [
        'an amount that is not a number',
        (toSign) => Object.assign(toSign.value, { srcAmount: '1e18' }),
        /value\.srcAmount: expected a uint256/,
      ],
      [
        'a changed amount',
        (toSign) => Object.assign(toSign.value, { srcAmount: '1' }),
        /orderHash: the server says 0x[0-9a-f]{64}, the payload hashes to/,
      ],
      ['another owner', (toSign) => Object.assign(toSign.value, { owner: accountOf(5).address }), /value\.owner: the order is owned by/],
    ]

    it.each(tampering)('refuses to sign %s', async (_name, tamper, problem) => {
      const account = countingAccount(3)
      const built = await buildSell(account.address)
      const toSign = clone(built.toSign)
      tamper(toSign)
      const delta = await deltaOf()
      const error = await refusal(() => signDeltaOrder(account, { toSign, delta, orderHash: built.orderHash }))
      expect(error.problems.join('\n')).toMatch(problem)
      expect(account.signatures()).toBe(0)
    })

    it('refuses an order whose permit differs from the one the build was asked for', async () => {
      const account = countingAccount(3)
      const built = await buildSell(account.address)
      const error = await refusal(async () =>
        signDeltaOrder(account, { toSign: built.toSign, delta: await deltaOf(), expected: { permit: '0x01' } }),
      )
      expect(error.problems).toEqual(['value.permit: built with "0x01", the payload carries "0x"'])
    })

    it('refuses an order of one chain for the Delta contract of another', async () => {
      const account = countingAccount(3)
      const built = await buildSell(account.address)
      await refusal(async () => signDeltaOrder(account, { toSign: built.toSign, delta: await deltaOf(8453) }))
    })

    it('recognises a TWAP order by its types and signs it over the same digest', async () => {
      const account = countingAccount(4)
      const delta = await deltaOf()
      const order = {
        owner: account.address,
        beneficiary: account.address,
        srcToken: sandboxToken(sandbox(), chainId, 'USDC').address,
        destToken: sandboxToken(sandbox(), chainId, 'WETH').address,
        nonce: 7n,
        partnerAndFee: 0n,
        deadline: 2_000_000_000n,
        interval: 60n,
        numSlices: 4,
        destAmountPerSlice: 10n ** 15n,
        totalSrcAmount: 4_000_000n,
        permit: '0x' as Hex,
        metadata: '0x' as Hex,
        bridge: zeroBridge,
      }
      const typed = buildTwapOrderTypedData(order, { chainId, verifyingContract: delta.address })
      const wire: ReceivedToSign = JSON.parse(
        JSON.stringify({ domain: typed.domain, types: typed.types, value: typed.message }, (_key, value) =>
          typeof value === 'bigint' ? value.toString() : value,
        ),
      )
      const signed = await signDeltaOrder(account, { toSign: wire, delta, orderHash: hashTypedData(typed) })
      expect(signed.primaryType).toBe('TWAPOrder')
    })
  })

  describe('signDeltaCancellation', () => {
    async function pendingOrder(index: number): Promise<string> {
      const account = accountOf(index)
      await approveDelta(sandboxWallet(sandbox(), chainId, index), sandboxToken(sandbox(), chainId, 'WETH').address)
      const built = await buildSell(account.address)
      const signed = await signDeltaOrder(account, { toSign: built.toSign, delta: await deltaOf(), orderHash: built.orderHash })
      const answer = await submitDelta(sandbox(), {
        chainId,
        order: built.toSign.value,
        signature: submittable(signed.signature),
        partner: 'anon',
        ...noAgents,
      })
      expect(answer.status, answer.text).toBe(200)
      return (answer.json as { id: string }).id
    }

    async function buildCancellation(orderIds: string[]): Promise<{ toSign: ToSign; hash: Hex }> {
      const answer = await request(sandbox().url, 'POST', '/v2/delta/orders/build/cancellation', { orderIds })
      expect(answer.status, answer.text).toBe(200)
      return answer.json as { toSign: ToSign; hash: Hex }
    }

    it('signs the payload as returned, and the service cancels the order', async () => {
      const id = await pendingOrder(6)
      const built = await buildCancellation([id])
      const signed = await signDeltaCancellation(accountOf(6), {
        toSign: built.toSign,
        delta: await deltaOf(),
        orderIds: [id],
        hash: built.hash,
      })
      expect(size(signed.signature)).toBe(65)
      const answer = await request(sandbox().url, 'POST', '/v2/delta/orders/cancel', {
        orderIds: signed.orderIds,
        signature: signed.signature,
      })
      expect(answer.status, answer.text).toBe(200)
      expect(answer.json).toEqual({ cancelled: [id] })
    })

    it.each<[string, (toSign: ToSign) => void, RegExp]>([
      [
        'an order that was not asked for',
        (toSign) => (toSign.value.orderIds as string[]).push('7f2b7a56-6f11-4b4e-9a53-0f8c2a1d9e10'),
        /was not asked to be cancelled/,
      ],
      ['another chain in the domain', (toSign) => Object.assign(toSign.domain, { chainId: 8453 }), /domain\.chainId/],
      [
        'a field added to the value',
        (toSign) => Object.assign(toSign.value, { owner: accountOf(7).address }),
        /value\.owner: not a field of OrderCancellations/,
      ],
      ['ids that are not strings', (toSign) => Object.assign(toSign.value, { orderIds: [1] }), /value\.orderIds\[0\]: expected a string/],
    ])('refuses to sign a cancellation with %s', async (_name, tamper, problem) => {
      const id = await pendingOrder(7)
      const built = await buildCancellation([id])
      const toSign = clone(built.toSign)
      tamper(toSign)
      const account = countingAccount(7)
      const error = await refusal(async () => signDeltaCancellation(account, { toSign, delta: await deltaOf(), orderIds: [id] }))
      expect(error.problems.join('\n')).toMatch(problem)
      expect(account.signatures()).toBe(0)
    })
  })

  describe('signRfqOrder', () => {
    const rfqOf = async () => resolveSpender({ contracts: await deploymentContracts(), chainId, mode: 'rfq' })
    const orderFor = (maker: Address): RfqOrder => ({
      nonceAndMeta: packNonceAndMeta({ intendedTaker: accountOf(9).address, nonce: 42n }),
      expiry: BigInt(sandboxNow(sandbox()) + 3_600),
      makerAsset: sandboxToken(sandbox(), chainId, 'USDC').address,
      takerAsset: sandboxToken(sandbox(), chainId, 'WETH').address,
      maker,
      taker: accountOf(9).address,
      makerAmount: parseUnits('100', 6),
      takerAmount: 5n * 10n ** 16n,
    })

    it('signs an OTC order that the service stores under the same hash', async () => {
      const account = accountOf(8)
      const order = orderFor(account.address)
      const signed = await signRfqOrder(account, order, await rfqOf())
      const answer = await request(sandbox().url, 'POST', `/ft/p2p/${chainId}/`, otcOrderBody(order, signed.signature))
      expect(answer.status, answer.text).toBe(200)
      expect((answer.json as { order: { orderHash: string } }).order.orderHash).toBe(signed.orderHash)
    })

    it('refuses an order whose maker is not the signer', async () => {
      const account = countingAccount(8)
      const error = await refusal(async () => signRfqOrder(account, orderFor(accountOf(9).address), await rfqOf()))
      expect(error.problems[0]).toMatch(/^order\.maker: the order's maker is/)
      expect(account.signatures()).toBe(0)
    })

    it('refuses an expiry beyond uint128 and a hash other than the order’s', async () => {
      const account = countingAccount(8)
      const order = orderFor(account.address)
      await refusal(async () => signRfqOrder(account, { ...order, expiry: 1n << 128n }, await rfqOf()))
      await refusal(async () => signRfqOrder(account, order, await rfqOf(), { orderHash: `0x${'ab'.repeat(32)}` }))
      expect(account.signatures()).toBe(0)
    })
  })
})
