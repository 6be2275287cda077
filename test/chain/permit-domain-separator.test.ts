import {
  type Address,
  type BaseError,
  ContractFunctionExecutionError,
  domainSeparator,
  erc20Abi,
  type Hex,
  type LocalAccount,
  maxUint256,
  parseAbi,
  parseUnits,
  size,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createChainClients, requireChainClients } from '../../src/chain/chain-clients.js'
import { parseDeploymentResource } from '../../src/chain/deployment.js'
import {
  createTokenCapabilityCache,
  detectTokenCapabilities,
  TokenCapabilityDetectionError,
} from '../../src/chain/detect-token-capabilities.js'
import { readPermitDomain } from '../../src/chain/permit-domain.js'
import { signEip2612Permit } from '../../src/chain/sign-token-permit.js'
import { resolveSpender } from '../../src/chain/spender.js'
import { createTransactionQueue } from '../../src/chain/transaction-queue.js'
import { createIntent } from '../../src/domain/intents/create-intent.js'
import { isFinalStatus } from '../../src/domain/order-status.js'
import { approveForTrade } from '../../src/exec/approve-for-trade.js'
import { createExecutor } from '../../src/exec/executor/executor.js'
import type { ExecutorContext, ExecutorSettings } from '../../src/exec/executor/executor-context.js'
import { permit2Address } from '../../src/protocol/addresses.js'
import { decodeDeltaPermit, encodeDeltaPermit } from '../../src/protocol/delta-permit.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { waitForLocalReceipt } from '../../src/sandbox/chains/receipt.js'
import { sendFixtureCall } from '../../src/sandbox/chains/send.js'
import { getContractArtifact } from '../../src/sandbox/contracts/compile.js'
import { labelAddress } from '../helpers/chain.js'
import { sandboxExecutorContext } from '../helpers/executor.js'
import { request, sandboxToken, sandboxWallet, useSandbox } from '../helpers/sandbox.js'
import { createTempDirectory } from '../helpers/temp-directory.js'

// Mainnet DAI, USDC and Permit2 have no EIP-5267 eip712Domain(): a wallet rebuilds their permit domain from name() and
// version() and checks it against DOMAIN_SEPARATOR(). The sandbox's DAI and USDC behave the same, so these tests take
// that path from detection to a permit the token, and the Delta settlement, accept.

const chainId = 1
const domainAbi = parseAbi([
  'function eip712Domain() view returns (bytes1 fields, string name, string version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)',
  'function DOMAIN_SEPARATOR() view returns (bytes32)',
])
const permitAbi = parseAbi([
  'function nonces(address owner) view returns (uint256)',
  'function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)',
  'function permit(address holder, address spender, uint256 nonce, uint256 expiry, bool allowed, uint8 v, bytes32 r, bytes32 s)',
])
/** Submits other people's permits, as a spender (or anyone) would. */
const relayerIndex = 9

const directory = createTempDirectory('deltaflow-permit-domain-')
const opened: ExecutorContext[] = []
afterAll(() => {
  for (const context of opened) context.journal.close()
  directory.cleanup()
})

function accountOf(index: number): LocalAccount {
  return privateKeyToAccount(developmentAccounts[index]?.privateKey ?? expect.unreachable(`no account ${index}`))
}

/** An account that counts its typed-data signatures, to prove that no permit was signed. */
function countingAccount(index: number): LocalAccount & { signatures: () => number } {
  const account = accountOf(index)
  let count = 0
  return {
    ...account,
    signTypedData: (parameters) => {
      count += 1
      return account.signTypedData(parameters as never)
    },
    signatures: () => count,
  }
}

describe('permits under a domain read from DOMAIN_SEPARATOR, name and version', () => {
  const sandbox = useSandbox({ chainIds: [chainId], speed: 30 })
  const token = (symbol: string): Address => sandboxToken(sandbox(), chainId, symbol).address
  /** Reads the chain, and sends as the relayer. */
  const chain = () => sandboxWallet(sandbox(), chainId, relayerIndex)
  const deltaSpender = async () => {
    const contracts = parseDeploymentResource((await request(sandbox().url, 'GET', '/resources/contracts.json')).json)
    return resolveSpender({ contracts, chainId, mode: 'delta' })
  }
  /** The bot's clients on the chain, signing and sending as `account`. */
  const clientsOf = (account: LocalAccount) =>
    requireChainClients(
      createChainClients({
        chains: sandbox().chains.map(({ chainId, rpcUrl }) => ({ chainId, rpcUrls: [rpcUrl] })),
        account,
        pollingIntervalMs: 50,
      }),
      chainId,
    )
  const eip712DomainOf = (address: Address) =>
    chain()
      .readContract({ address, abi: domainAbi, functionName: 'eip712Domain' })
      .then(
        (domain) => domain,
        (error: unknown) => {
          expect(error).toBeInstanceOf(ContractFunctionExecutionError)
          return undefined
        },
      )
  const deadline = () => BigInt(Math.floor(sandbox().venue.clock.now() / 1000) + 3_600)

  /** Approves the Delta contract through the bot's path, preferring a signed permit; returns what travels with the order. */
  async function permitFor(symbol: string, account: LocalAccount, required: bigint, policy: 'exact' | 'unlimited' = 'exact') {
    const clients = clientsOf(account)
    return approveForTrade({
      chain: clients,
      account,
      queue: createTransactionQueue({ client: clients.publicClient, account }),
      spender: await deltaSpender(),
      token: token(symbol),
      required,
      deadline: deadline(),
      permitPreference: 'permit',
      policy,
    })
  }

  /** Submits a Delta permit's token permit from the relayer, as the Delta contract would on settlement. */
  async function submitTokenPermit(address: Address, permit: Hex): Promise<void> {
    const decoded = decodeDeltaPermit(permit)
    const relayer = chain()
    const hash =
      decoded.type === 'eip2612'
        ? await relayer.writeContract({
            address,
            abi: permitAbi,
            functionName: 'permit',
            args: [decoded.owner, decoded.spender, decoded.value, decoded.deadline, decoded.v, decoded.r, decoded.s],
          })
        : decoded.type === 'dai'
          ? await relayer.writeContract({
              address,
              abi: permitAbi,
              functionName: 'permit',
              args: [decoded.holder, decoded.spender, decoded.nonce, decoded.expiry, decoded.allowed, decoded.v, decoded.r, decoded.s],
            })
          : expect.unreachable(`not a token permit: ${decoded.type}`)
    expect((await waitForLocalReceipt(relayer, hash)).status).toBe('success')
  }

  const allowance = (address: Address, owner: Address, spender: Address) =>
    chain().readContract({ address, abi: erc20Abi, functionName: 'allowance', args: [owner, spender] })

  describe('the sandbox tokens, as on mainnet', () => {
    it.each(['USDC', 'DAI'])('%s answers no eip712Domain(), only DOMAIN_SEPARATOR()', async (symbol) => {
      expect(await eip712DomainOf(token(symbol))).toBeUndefined()
      expect(await chain().readContract({ address: token(symbol), abi: domainAbi, functionName: 'DOMAIN_SEPARATOR' })).toMatch(
        /^0x[0-9a-f]{64}$/,
      )
    })

    it('Permit2 answers no eip712Domain()', async () => {
      expect(await eip712DomainOf(permit2Address)).toBeUndefined()
    })

    it.each(['WBTC', 'PUSD'])('%s still announces its domain through eip712Domain()', async (symbol) => {
      expect((await eip712DomainOf(token(symbol)))?.[0]).toBe('0x0f')
    })
  })

  describe('readPermitDomain', () => {
    it.each([
      ['USDC', 'USD Coin', '2'],
      ['DAI', 'Dai Stablecoin', '1'],
    ])('rebuilds the domain of %s from name() and version(), as its DOMAIN_SEPARATOR hashes', async (symbol, name, version) => {
      const reading = await readPermitDomain(chain(), { token: token(symbol), chainId })
      const domain = { name, version, chainId, verifyingContract: token(symbol) }
      expect(reading).toEqual({ domain })
      expect(await chain().readContract({ address: token(symbol), abi: domainAbi, functionName: 'DOMAIN_SEPARATOR' })).toBe(
        domainSeparator({ domain }),
      )
    })
  })

  describe('permits signed under that domain', () => {
    it('signs a USDC EIP-2612 permit that USDC accepts', async () => {
      const owner = accountOf(1)
      const spender = await deltaSpender()
      const { permit, approvals } = await permitFor('USDC', owner, parseUnits('250', 6))
      expect(approvals).toEqual([])
      expect(size(permit ?? '0x')).toBe(224)
      await submitTokenPermit(token('USDC'), permit ?? '0x')
      expect(await allowance(token('USDC'), owner.address, spender.address)).toBe(parseUnits('250', 6))
    })

    it('signs a DAI permit that DAI accepts, granting an unlimited allowance', async () => {
      const owner = accountOf(2)
      const spender = await deltaSpender()
      const { permit, approvals } = await permitFor('DAI', owner, parseUnits('250', 18), 'unlimited')
      expect(approvals).toEqual([])
      expect(size(permit ?? '0x')).toBe(256)
      await submitTokenPermit(token('DAI'), permit ?? '0x')
      expect(await allowance(token('DAI'), owner.address, spender.address)).toBe(maxUint256)
    })

    /** Sells through the executor as a strategy would, with a permit preferred; waits for the order to be final. */
    async function sellWithPermit(accountIndex: number, symbol: string, amount: bigint, settings: Partial<ExecutorSettings>) {
      const context = await sandboxExecutorContext(sandbox(), {
        accountIndex,
        journalFile: directory.path(`account-${accountIndex}.sqlite`),
        clock: sandbox().venue.clock,
        settings: { permitPreference: 'permit', ...settings },
      })
      opened.push(context)
      const before = await chain().readContract({
        address: token(symbol),
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [context.account.address],
      })
      const outcome = await createExecutor(context).execute(
        createIntent({
          clock: sandbox().venue.clock,
          key: `permit-${symbol}`,
          content: {
            strategy: 'permit-domain',
            kind: 'swap',
            chainId,
            mode: 'delta',
            maxPriceImpactPercent: 5,
            srcToken: token(symbol),
            destToken: token('WETH'),
            amount: amount.toString(),
            side: 'SELL',
            maxSlippageBps: 50,
          },
        }),
      )
      expect(outcome.status, outcome.reason).toBe('accepted')
      const venueId = outcome.order?.venueId ?? expect.unreachable('the order has no venue id')
      let status = ''
      for (let attempt = 0; attempt < 400; attempt++) {
        status = ((await request(sandbox().url, 'GET', `/v2/delta/orders/${venueId}`)).json as { status: string }).status
        if (isFinalStatus('delta', status)) break
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      const stored = sandbox().delta.store.get(venueId)
      const permit = stored?.signed.kind === 'Order' ? (stored.signed.order.permit as Hex) : expect.unreachable('not a Delta order')
      const after = await chain().readContract({
        address: token(symbol),
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [context.account.address],
      })
      const nonce = await chain().readContract({
        address: token(symbol),
        abi: permitAbi,
        functionName: 'nonces',
        args: [context.account.address],
      })
      return { status, permit, spent: before - after, nonce, approvals: context.journal.transactionsFrom(context.account.address, chainId) }
    }

    it('sells USDC in a Delta order whose only allowance is the permit it carries, and the sandbox settles it', async () => {
      const amount = parseUnits('300', 6)
      const sold = await sellWithPermit(3, 'USDC', amount, {})
      expect(sold.status).toBe('COMPLETED')
      expect(size(sold.permit)).toBe(224)
      expect(sold.approvals).toEqual([])
      expect(sold.nonce).toBe(1n)
      expect(sold.spent).toBe(amount)
    })

    it('sells DAI in a Delta order carrying a DAI permit, and the sandbox settles it', async () => {
      const amount = parseUnits('300', 18)
      const sold = await sellWithPermit(4, 'DAI', amount, { approvalPolicy: 'unlimited' })
      expect(sold.status).toBe('COMPLETED')
      expect(size(sold.permit)).toBe(256)
      expect(sold.approvals).toEqual([])
      expect(sold.nonce).toBe(1n)
      expect(sold.spent).toBe(amount)
    })
  })

  describe('a token whose DOMAIN_SEPARATOR matches no domain its views tell', () => {
    // Launched as "Launch Token", renamed "Renamed Token": its permits are still signed under the launch name.
    const renamed = labelAddress('permit-domain.renamed-token')
    const minter = developmentAccounts[0]?.address ?? expect.unreachable('no account 0')
    const holderIndex = 5
    const fresh = () => ({ token: renamed, cache: createTokenCapabilityCache() })

    beforeAll(async () => {
      const { clients } = sandbox().localChains.chain(chainId)
      const { abi, deployedBytecode } = getContractArtifact('RenamedPermitToken')
      await clients.testClient.setCode({ address: renamed, bytecode: deployedBytecode })
      const call = (functionName: string, args: readonly unknown[]) =>
        sendFixtureCall(clients, { from: minter, to: renamed, abi, functionName, args })
      await call('initialize', ['Launch Token', 'LCH', 18, '1', minter])
      await call('mint', [accountOf(holderIndex).address, parseUnits('1000', 18)])
      await call('rename', ['Renamed Token'])
    })

    it('is read as no domain, with the separator and the domain it does not match named', async () => {
      const reading = await readPermitDomain(chain(), { token: renamed, chainId })
      expect(reading.domain).toBeUndefined()
      expect(reading.reason).toMatch(/DOMAIN_SEPARATOR\(\) 0x[0-9a-f]{64} matches no domain of name "Renamed Token" with version "1"/)
    })

    it('is detected without a permit, and a trade preferring permits approves on chain without signing one', async () => {
      expect(await detectTokenCapabilities(chain(), fresh())).toMatchObject({ permit: 'none', approveBehaviour: 'standard' })
      const owner = countingAccount(holderIndex)
      const clients = clientsOf(owner)
      const spender = await deltaSpender()
      const { permit, approvals } = await approveForTrade({
        chain: clients,
        account: owner,
        queue: createTransactionQueue({ client: clients.publicClient, account: owner }),
        spender,
        token: renamed,
        required: parseUnits('10', 18),
        deadline: deadline(),
        permitPreference: 'permit',
      })
      expect(permit).toBe('0x')
      expect(approvals).toHaveLength(1)
      expect(owner.signatures()).toBe(0)
      expect(await allowance(renamed, owner.address, spender.address)).toBe(parseUnits('10', 18))
    })

    it('refuses a configured permit kind, saying why the domain cannot be read', async () => {
      const error = await detectTokenCapabilities(chain(), { ...fresh(), override: { permit: 'eip2612' } }).catch(
        (caught: unknown) => caught,
      )
      expect(error).toBeInstanceOf(TokenCapabilityDetectionError)
      expect((error as BaseError).shortMessage).toMatch(
        /configuration says eip2612, but its permit domain cannot be read: its DOMAIN_SEPARATOR\(\) 0x[0-9a-f]{64} matches no domain of name "Renamed Token"/,
      )
    })

    it('refuses a configured permitDomain that does not hash to the token’s DOMAIN_SEPARATOR, instead of signing under it', async () => {
      const error = await detectTokenCapabilities(chain(), {
        ...fresh(),
        override: { permit: 'eip2612', permitDomain: { name: 'Renamed Token', version: '1' } },
      }).catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(TokenCapabilityDetectionError)
      expect((error as BaseError).shortMessage).toMatch(
        /configured permitDomain is not the token's: name "Renamed Token" with version "1" hashes to 0x[0-9a-f]{64}, but the token's DOMAIN_SEPARATOR\(\) is 0x[0-9a-f]{64}/,
      )
    })

    it('takes the configured launch domain, and the token accepts a permit signed under it', async () => {
      const capabilities = await detectTokenCapabilities(chain(), {
        ...fresh(),
        override: { permitDomain: { name: 'Launch Token', version: '1' } },
      })
      expect(capabilities).toMatchObject({
        permit: 'eip2612',
        permitDomain: { name: 'Launch Token', version: '1', chainId, verifyingContract: renamed },
      })
      const owner = accountOf(holderIndex)
      const spender = labelAddress('permit-domain.spender')
      const signed = await signEip2612Permit(owner, {
        domain: capabilities.permitDomain ?? expect.unreachable('no domain'),
        spender,
        value: 7n,
        nonce: await chain().readContract({ address: renamed, abi: permitAbi, functionName: 'nonces', args: [owner.address] }),
        deadline: deadline(),
      })
      await submitTokenPermit(renamed, encodeDeltaPermit(signed))
      expect(await allowance(renamed, owner.address, spender)).toBe(7n)
    })
  })
})
