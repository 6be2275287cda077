import { type Address, encodeFunctionData, erc20Abi, type Hex, maxUint256, type TransactionReceipt, zeroAddress } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { beforeAll } from 'vitest'
import { deltaAddress, permit2Address } from '../../src/protocol/addresses.js'
import {
  buildDeltaOrderTypedData,
  buildExternalOrderTypedData,
  buildTwapBuyOrderTypedData,
  buildTwapOrderTypedData,
  type DeltaOrder,
  type ExternalOrder,
  type TwapBuyOrder,
  type TwapOrder,
  zeroBridge,
} from '../../src/protocol/delta-order.js'
import type { DeltaDomainParameters } from '../../src/protocol/delta-types.js'
import { developmentAccounts } from '../../src/sandbox/chains/accounts.js'
import { placeContract } from '../../src/sandbox/chains/place-contract.js'
import { labelAddress, useTestChain } from '../helpers/chain.js'
import { type BoundContract, bindContract } from '../helpers/contract.js'
import { useSnapshotPerTest } from '../helpers/snapshot.js'

function developmentAccount(index: number) {
  const account = developmentAccounts[index]
  if (!account) throw new Error(`anvil development account ${index} missing`)
  return privateKeyToAccount(account.privateKey)
}

/** Who is who in the Delta tests: unlocked anvil accounts (with keys where someone signs) and plain labelled addresses. */
export const actors = {
  admin: developmentAccount(0).address,
  agent: developmentAccount(1).address,
  owner: developmentAccount(2),
  outsider: developmentAccount(3).address,
  walletSigner: developmentAccount(4),
  partner: labelAddress('delta.partner'),
  beneficiary: labelAddress('delta.beneficiary'),
  handler: labelAddress('delta.handler'),
} as const

/** Balance of every token account at the start of each test. */
export const initialTokenBalance = 1_000_000n

export type Holding = readonly [asset: BoundContract | 'native', holder: Address]

/** Sets up one anvil chain with the Delta contract at its production address, Permit2, tokens and funded actors. */
export function useDeltaFixture() {
  const chain = useTestChain()
  const bind = (name: string, label: string) => bindContract(chain, name, labelAddress(label))
  const contracts = {
    delta: bindContract(chain, 'DeltaSettlement', deltaAddress),
    permit2: bindContract(chain, 'Permit2', permit2Address),
    /** Approved to Delta by the owner. */
    src: bind('SandboxToken', 'delta.src'),
    /** Paid by the agent, approved to Delta by the agent. */
    dest: bind('SandboxToken', 'delta.dest'),
    /** EIP-2612 token the owner never approves: for the permit tests. */
    permitToken: bind('SandboxToken', 'delta.permit-token'),
    dai: bind('DaiStyleToken', 'delta.dai'),
    /** Approved to Delta by the owner. */
    usdt: bind('UsdtStyleToken', 'delta.usdt'),
    /** EIP-1271 owner, signed for by walletSigner; holds src approved to Delta. */
    wallet: bind('Eip1271Wallet', 'delta.wallet'),
  }
  const { delta, src, dest, permitToken, dai, usdt, wallet } = contracts
  const { admin, agent, owner, walletSigner } = actors

  beforeAll(async () => {
    await placeContract(chain(), { name: 'DeltaSettlement', address: deltaAddress })
    await placeContract(chain(), { name: 'Permit2', address: permit2Address })
    await chain().place('SandboxToken', 'delta.src')
    await chain().place('SandboxToken', 'delta.dest')
    await chain().place('SandboxToken', 'delta.permit-token')
    await chain().place('DaiStyleToken', 'delta.dai')
    await chain().place('UsdtStyleToken', 'delta.usdt')
    await chain().place('Eip1271Wallet', 'delta.wallet')
    await delta.send(admin, 'initialize', [admin])
    await delta.send(admin, 'setAgent', [agent, true])
    await src.send(admin, 'initialize', ['Source Token', 'SRC', 18, '1', admin])
    await dest.send(admin, 'initialize', ['Destination Token', 'DST', 18, '1', admin])
    await permitToken.send(admin, 'initialize', ['Permit Token', 'PRM', 18, '1', admin])
    await dai.send(admin, 'initialize', ['Dai Stablecoin', 'DAI', 18, '1', admin])
    await usdt.send(admin, 'initialize', ['Tether USD', 'USDT', 6, admin])
    await wallet.send(admin, 'initialize', [walletSigner.address])
    for (const token of [src, permitToken, dai, usdt]) await token.send(admin, 'mint', [owner.address, initialTokenBalance])
    await dest.send(admin, 'mint', [agent, initialTokenBalance])
    await src.send(admin, 'mint', [wallet.address, initialTokenBalance])
    await src.send(owner.address, 'approve', [deltaAddress, maxUint256])
    await usdt.send(owner.address, 'approve', [deltaAddress, maxUint256])
    await dest.send(agent, 'approve', [deltaAddress, maxUint256])
    const approve = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [deltaAddress, maxUint256] })
    await wallet.send(walletSigner.address, 'execute', [src.address, 0n, approve])
  })
  useSnapshotPerTest(chain)

  const domain = (): DeltaDomainParameters => ({ chainId: chain().chain.id, verifyingContract: deltaAddress })
  const latestTimestamp = async () => (await chain().publicClient.getBlock()).timestamp

  const readBigint = async (contract: BoundContract, functionName: string, args: readonly unknown[]): Promise<bigint> => {
    const value = await contract.read(functionName, args)
    if (typeof value !== 'bigint') throw new TypeError(`${functionName} returned ${typeof value}, expected a bigint`)
    return value
  }

  const readHoldings = async <K extends string>(holdings: Record<K, Holding>): Promise<Record<K, bigint>> => {
    const entries = await Promise.all(
      Object.entries<Holding>(holdings).map(async ([key, [asset, holder]]) => {
        const amount =
          asset === 'native' ? await chain().publicClient.getBalance({ address: holder }) : await readBigint(asset, 'balanceOf', [holder])
        return [key, amount] as const
      }),
    )
    return Object.fromEntries(entries) as Record<K, bigint>
  }

  return {
    chain,
    ...contracts,
    domain,
    latestTimestamp,
    readBigint,

    /** Runs `action` and returns how each holding changed, with the action's result. */
    async balanceChanges<K extends string, T>(holdings: Record<K, Holding>, action: () => Promise<T>) {
      const before = await readHoldings(holdings)
      const result = await action()
      const after = await readHoldings(holdings)
      const changes = {} as Record<K, bigint>
      for (const key of Object.keys(holdings) as K[]) {
        const [was, is]: [bigint, bigint] = [before[key], after[key]]
        changes[key] = is - was
      }
      return { changes, result }
    },

    /** Native spent on gas by a transaction's sender. */
    gasCost: (receipt: TransactionReceipt) => receipt.gasUsed * receipt.effectiveGasPrice,

    /** A same-chain sell of 1000 src for at least 2000 dest by the owner, valid for an hour; `overrides` win. */
    async makeOrder(overrides: Partial<DeltaOrder> = {}): Promise<DeltaOrder> {
      return {
        owner: owner.address,
        beneficiary: zeroAddress,
        srcToken: src.address,
        destToken: dest.address,
        srcAmount: 1_000n,
        destAmount: 2_000n,
        expectedAmount: 2_100n,
        deadline: (await latestTimestamp()) + 3_600n,
        kind: 0,
        nonce: 1n,
        partnerAndFee: 0n,
        permit: '0x',
        metadata: '0x',
        bridge: zeroBridge,
        ...overrides,
      }
    },

    /** A sell TWAP of 1000 src in 3 slices of at least 600 dest, one per minute. */
    async makeTwapOrder(overrides: Partial<TwapOrder> = {}): Promise<TwapOrder> {
      return {
        owner: owner.address,
        beneficiary: zeroAddress,
        srcToken: src.address,
        destToken: dest.address,
        nonce: 1n,
        partnerAndFee: 0n,
        deadline: (await latestTimestamp()) + 3_600n,
        interval: 60n,
        numSlices: 3,
        destAmountPerSlice: 600n,
        totalSrcAmount: 1_000n,
        permit: '0x',
        metadata: '0x',
        bridge: zeroBridge,
        ...overrides,
      }
    },

    /** A buy TWAP of 1000 dest in 3 slices for at most 500 src in total, one per minute. */
    async makeTwapBuyOrder(overrides: Partial<TwapBuyOrder> = {}): Promise<TwapBuyOrder> {
      return {
        owner: owner.address,
        beneficiary: zeroAddress,
        srcToken: src.address,
        destToken: dest.address,
        nonce: 1n,
        partnerAndFee: 0n,
        deadline: (await latestTimestamp()) + 3_600n,
        interval: 60n,
        numSlices: 3,
        totalDestAmount: 1_000n,
        maxSrcAmount: 500n,
        permit: '0x',
        metadata: '0x',
        bridge: zeroBridge,
        ...overrides,
      }
    },

    /** An external sell of 1000 src (to the handler) for at least 2000 dest. */
    async makeExternalOrder(overrides: Partial<ExternalOrder> = {}): Promise<ExternalOrder> {
      return {
        owner: owner.address,
        handler: actors.handler,
        srcToken: src.address,
        destToken: dest.address,
        srcAmount: 1_000n,
        destAmount: 2_000n,
        expectedAmount: 2_100n,
        deadline: (await latestTimestamp()) + 3_600n,
        kind: 0,
        nonce: 1n,
        partnerAndFee: 0n,
        permit: '0x',
        metadata: '0x',
        data: '0xdeadbeef',
        ...overrides,
      }
    },

    /** 65-byte signatures made with viem's signTypedData over the protocol module's typed data. */
    signOrder: (order: DeltaOrder, signer = owner): Promise<Hex> => signer.signTypedData(buildDeltaOrderTypedData(order, domain())),
    signTwapOrder: (order: TwapOrder, signer = owner): Promise<Hex> => signer.signTypedData(buildTwapOrderTypedData(order, domain())),
    signTwapBuyOrder: (order: TwapBuyOrder, signer = owner): Promise<Hex> =>
      signer.signTypedData(buildTwapBuyOrderTypedData(order, domain())),
    signExternalOrder: (order: ExternalOrder, signer = owner): Promise<Hex> =>
      signer.signTypedData(buildExternalOrderTypedData(order, domain())),

    /** Moves the chain clock forward and mines a block at the new time. */
    async advanceTime(seconds: number) {
      await chain().testClient.increaseTime({ seconds })
      await chain().testClient.mine({ blocks: 1 })
    },
  }
}

export type DeltaFixture = ReturnType<typeof useDeltaFixture>
