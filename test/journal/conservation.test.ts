import { type Address, erc20Abi, type Hex, keccak256, maxUint256, parseEther, parseUnits, type TransactionReceipt } from 'viem'
import { afterAll, describe, expect, it } from 'vitest'
import { nativeToken, readAccountFlows, readTransactionFlows } from '../../src/chain/token-flows.js'
import {
  type ConservationReport,
  checkConservation,
  listJournalMovements,
  readJournalRecords,
  sumMovements,
} from '../../src/journal/conservation.js'
import { type Journal, openJournal } from '../../src/journal/journal.js'
import type { TransactionPurpose } from '../../src/journal/transactions.js'
import { marketRouterAddress } from '../../src/protocol/addresses.js'
import { waitForLocalReceipt } from '../../src/sandbox/chains/receipt.js'
import { ManualClock } from '../../src/time/clock.js'
import { broadcast, gasPaid, type MarketWallet, marketWallet, prepareMarketSwap, tokenAddress } from '../helpers/market.js'
import { useSandbox } from '../helpers/sandbox.js'
import { createJournalDirectory } from './journal-fixtures.js'

const chainId = 1
const directory = createJournalDirectory()
afterAll(() => directory.cleanup())

/** Records a sent transaction and its receipt, as the executor's queue and reconciler do. */
async function journalTransaction(journal: Journal, wallet: MarketWallet, hash: Hex, purpose: TransactionPurpose, orderId?: string) {
  const [transaction, receipt] = await Promise.all([wallet.getTransaction({ hash }), waitForLocalReceipt(wallet, hash)])
  journal.recordTransaction({
    txHash: hash,
    ...(orderId === undefined ? {} : { orderId }),
    purpose,
    chainId,
    nonce: transaction.nonce,
    from: transaction.from,
    to: transaction.to ?? '0x',
    value: transaction.value,
    dataHash: keccak256(transaction.input),
  })
  const outcome = {
    txHash: hash,
    blockNumber: Number(receipt.blockNumber),
    gasUsed: receipt.gasUsed,
    effectiveGasPrice: receipt.effectiveGasPrice,
  }
  journal.updateTransaction(
    receipt.status === 'success' ? { ...outcome, status: 'mined' } : { ...outcome, status: 'reverted', revertReason: 'out of gas' },
  )
  return receipt
}

describe('checkConservation', () => {
  const sandbox = useSandbox({ chainIds: [chainId], market: 'still' })
  const clock = new ManualClock(1_700_000_000_000)
  let journal: Journal
  let wallet: MarketWallet
  let usdc: Address
  let wbtc: Address
  const receipts: TransactionReceipt[] = []
  const check = (blockNumbers?: ReadonlyMap<number, bigint>) =>
    checkConservation({
      journal,
      account: wallet.account.address,
      chains: new Map([[chainId, { publicClient: wallet }]]),
      ...(blockNumbers ? { blockNumbers } : {}),
    })
  const differences = (report: ConservationReport) => {
    const names = new Map<string, string>([
      [nativeToken, 'native'],
      [usdc.toLowerCase(), 'usdc'],
      [wbtc.toLowerCase(), 'wbtc'],
    ])
    return Object.fromEntries(report.tokens.map((token) => [names.get(token.token) ?? token.token, token.difference]))
  }
  const entry = async (token: Address, blockNumbers?: ReadonlyMap<number, bigint>) => {
    const report = await check(blockNumbers)
    return { report, token: report.tokens.find((candidate) => candidate.token === token.toLowerCase()) }
  }

  /** A Market SELL as the executor records it: order, transaction with receipt, and the fill read from the chain. */
  async function journaledSell(
    id: string,
    srcToken: string,
    destToken: string,
    amount: bigint,
    options: { gas?: bigint; fill?: 'with block' | 'without block' | 'none' } = {},
  ) {
    const { route, envelope } = await prepareMarketSwap(sandbox(), chainId, wallet, { srcToken, destToken, amount: amount.toString() })
    const src = tokenAddress(sandbox(), chainId, srcToken)
    const dest = tokenAddress(sandbox(), chainId, destToken)
    journal.recordIntent({ id: `intent-${id}`, strategy: 'conservation-test', kind: 'swap', intent: { srcToken, destToken, amount } })
    journal.recordSignedOrder({
      id,
      intentId: `intent-${id}`,
      mode: 'market',
      account: wallet.account.address,
      chainId,
      srcToken: src,
      destToken: dest,
      srcAmount: BigInt(route.srcAmount),
      destAmount: BigInt(route.destAmount),
      side: 'SELL',
      signedPayload: envelope,
    })
    const sent = await broadcast(wallet, envelope, options.gas)
    const receipt = await journalTransaction(journal, wallet, sent.transactionHash, 'swap', id)
    receipts.push(receipt)
    if (receipt.status !== 'success' || options.fill === 'none') return receipt
    const flows = await readTransactionFlows(wallet, receipt.transactionHash)
    const account = await readAccountFlows(wallet, flows, wallet.account.address)
    const spent = account.spent.get(src.toLowerCase() as Address)
    const received = account.received.get(dest.toLowerCase() as Address)
    journal.recordFill({
      orderId: id,
      chainId,
      txHash: receipt.transactionHash,
      ...(spent?.firstLogIndex === undefined ? {} : { logIndex: spent.firstLogIndex }),
      spentAmount: spent?.amount ?? 0n,
      receivedAmount: received?.amount ?? 0n,
      source: 'chain',
      ...(options.fill === 'without block' ? {} : { blockNumber: Number(receipt.blockNumber) }),
    })
    return receipt
  }

  async function approve(token: Address, owner: MarketWallet = wallet): Promise<Hex> {
    const hash = await owner.writeContract({
      account: owner.account,
      chain: owner.chain,
      address: token,
      abi: erc20Abi,
      functionName: 'approve',
      args: [marketRouterAddress, maxUint256],
    })
    await waitForLocalReceipt(owner, hash)
    return hash
  }

  it('balances to the wei, gas included, when every movement is journaled', async () => {
    journal = openJournal({ file: directory.path('conservation.sqlite'), clock })
    wallet = marketWallet(sandbox(), chainId, 1)
    usdc = tokenAddress(sandbox(), chainId, 'USDC')
    wbtc = tokenAddress(sandbox(), chainId, 'WBTC')
    const baselineBlock = await wallet.getBlockNumber({ cacheTime: 0 })
    for (const token of [nativeToken, usdc, wbtc]) {
      const amount =
        token === nativeToken
          ? await wallet.getBalance({ address: wallet.account.address, blockNumber: baselineBlock })
          : await wallet.readContract({
              address: token,
              abi: erc20Abi,
              functionName: 'balanceOf',
              args: [wallet.account.address],
              blockNumber: baselineBlock,
            })
      journal.recordBalanceBaseline({ chainId, account: wallet.account.address, token, amount, blockNumber: Number(baselineBlock) })
    }

    receipts.push(await journalTransaction(journal, wallet, await approve(usdc), 'approve'))
    await journaledSell('sell-usdc-wbtc', 'USDC', 'WBTC', parseUnits('2500', 6))
    await journaledSell('sell-usdc-eth', 'USDC', 'ETH', parseUnits('3000', 6), { fill: 'without block' })
    await journaledSell('sell-eth-usdc', 'ETH', 'USDC', parseEther('1.5'))
    const reverted = await journaledSell('sell-eth-usdc-reverted', 'ETH', 'USDC', parseEther('0.5'), { gas: 60_000n })
    expect(reverted.status).toBe('reverted')

    const report = await check()
    expect(report.notes.filter((note) => !note.includes('whose block the journal does not know'))).toEqual([])
    expect(report.balanced).toBe(true)
    expect(differences(report)).toEqual({ native: 0n, usdc: 0n, wbtc: 0n })
    const native = report.tokens.find((token) => token.token === nativeToken)
    expect(native?.gas).toBe(receipts.reduce((sum, receipt) => sum + gasPaid(receipt), 0n))
    expect(native?.spent).toBe(parseEther('1.5'))
    expect(native?.received).toBeGreaterThan(0n)
    expect(native?.actual).toBe(await wallet.getBalance({ address: wallet.account.address, blockNumber: native?.block ?? 0n }))
    // The fill recorded without its block: its spent USDC and its received ETH both count, each with a note.
    expect(report.notes).toHaveLength(2)
    expect(report.notes.every((note) => note.includes('of order sell-usdc-eth'))).toBe(true)
  })

  it('names the missing gas when the account sent a transaction the journal lacks, and balances once it is recorded', async () => {
    const hash = await approve(wbtc)
    const receipt = await wallet.getTransactionReceipt({ hash })
    const { report, token } = await entry(nativeToken)
    expect(report.balanced).toBe(false)
    expect(token).toMatchObject({ difference: -gasPaid(receipt), unrecordedTransactions: 1 })
    expect(report.notes.join('\n')).toContain(`${gasPaid(receipt)} raw units less than the journal accounts for`)
    expect(report.notes.join('\n')).toContain('the chain shows 1 transaction(s) sent by')

    await journalTransaction(journal, wallet, hash, 'approve')
    expect((await check()).balanced).toBe(true)
  })

  it('shows a fill missing from the journal as the exact amounts on both tokens, and balances once it is recorded', async () => {
    const receipt = await journaledSell('sell-usdc-wbtc-2', 'USDC', 'WBTC', parseUnits('1000', 6), { fill: 'none' })
    const flows = await readAccountFlows(wallet, await readTransactionFlows(wallet, receipt.transactionHash), wallet.account.address)
    const spent = flows.spent.get(usdc.toLowerCase() as Address)
    const received = flows.received.get(wbtc.toLowerCase() as Address)
    const report = await check()
    expect(report.balanced).toBe(false)
    expect(differences(report)).toEqual({ native: 0n, usdc: -(spent?.amount ?? 0n), wbtc: received?.amount ?? 0n })
    // The transaction is journaled, so no Transfer of it is listed as foreign: the fill is what is missing.
    expect(report.tokens.flatMap((token) => token.unrecordedTransfers)).toEqual([])

    journal.recordFill({
      orderId: 'sell-usdc-wbtc-2',
      chainId,
      txHash: receipt.transactionHash,
      ...(spent?.firstLogIndex === undefined ? {} : { logIndex: spent.firstLogIndex }),
      spentAmount: spent?.amount ?? 0n,
      receivedAmount: received?.amount ?? 0n,
      source: 'chain',
      blockNumber: Number(receipt.blockNumber),
    })
    expect((await check()).balanced).toBe(true)
  })

  it('lists a transfer in from outside deltaflow with its exact amount, and balances at a block before it', async () => {
    const before = await wallet.getBlockNumber({ cacheTime: 0 })
    const outsider = marketWallet(sandbox(), chainId, 2)
    const hash = await outsider.writeContract({
      account: outsider.account,
      chain: outsider.chain,
      address: usdc,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [wallet.account.address, 123_456n],
    })
    const transferReceipt = await waitForLocalReceipt(outsider, hash)

    const { report, token } = await entry(usdc)
    expect(report.balanced).toBe(false)
    expect(token?.difference).toBe(123_456n)
    expect(token?.unrecordedTransfers).toEqual([
      {
        txHash: hash,
        blockNumber: transferReceipt.blockNumber,
        logIndex: 0,
        from: outsider.account.address.toLowerCase(),
        to: wallet.account.address.toLowerCase(),
        amount: 123_456n,
      },
    ])
    expect(differences(report)).toEqual({ native: 0n, usdc: 123_456n, wbtc: 0n })
    expect(report.notes.join('\n')).toContain(`transfer in from ${outsider.account.address.toLowerCase()} of 123456 in ${hash}`)

    const earlier = await entry(usdc, new Map([[chainId, before]]))
    expect(earlier.report.balanced).toBe(true)
    expect(earlier.token?.block).toBe(before)
  })
})

describe('listJournalMovements and sumMovements', () => {
  const owner: Address = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
  const beneficiary: Address = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc'
  const usdc: Address = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48'
  const baseUsdc: Address = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913'
  const hash = (n: number) => `0x${n.toString(16).padStart(64, '0')}`

  function journalWithCrosschainOrder() {
    const journal = openJournal({
      file: directory.path(`movements-${Math.random().toString(36).slice(2)}.sqlite`),
      clock: new ManualClock(1),
    })
    journal.recordIntent({ id: 'intent-x', strategy: 'test', kind: 'crosschain', intent: {} })
    journal.recordSignedOrder({
      id: 'x',
      intentId: 'intent-x',
      mode: 'delta',
      account: owner,
      beneficiary,
      chainId: 1,
      destChainId: 8453,
      srcToken: usdc,
      destToken: baseUsdc,
      srcAmount: 1_000n,
      destAmount: 990n,
      side: 'SELL',
      signedPayload: {},
    })
    journal.recordFill({
      orderId: 'x',
      chainId: 1,
      txHash: hash(1),
      logIndex: 3,
      spentAmount: 600n,
      receivedAmount: 595n,
      source: 'chain',
      blockNumber: 100,
      destinationChainId: 8453,
      destinationTxHash: hash(2),
    })
    journal.recordFill({
      orderId: 'x',
      chainId: 1,
      txHash: hash(3),
      logIndex: 1,
      spentAmount: 400n,
      receivedAmount: 396n,
      source: 'chain',
      blockNumber: 120,
    })
    journal.recordRefund({ orderId: 'x', txHash: hash(4), chainId: 1, token: usdc, amount: 7n })
    const transaction = { orderId: 'x', purpose: 'approve' as const, chainId: 1, from: owner, to: usdc, value: 0n, dataHash: hash(0) }
    journal.recordTransaction({ ...transaction, txHash: hash(5), nonce: 0 })
    journal.updateTransaction({
      txHash: hash(5),
      status: 'reverted',
      revertReason: 'x',
      blockNumber: 90,
      gasUsed: 50_000n,
      effectiveGasPrice: 3n,
    })
    journal.recordTransaction({ ...transaction, txHash: hash(6), nonce: 1 })
    return journal
  }

  it('puts spending and refunds on the owner, delivered output on the beneficiary, and holds back an undelivered crosschain fill', () => {
    const journal = journalWithCrosschainOrder()
    const ofOwner = listJournalMovements(owner, readJournalRecords(journal, owner, [1]))
    expect(ofOwner.movements.map(({ kind, chainId, token, amount, blockNumber }) => [kind, chainId, token, amount, blockNumber])).toEqual([
      ['spent', 1, usdc, 600n, 100n],
      ['spent', 1, usdc, 400n, 120n],
      ['refunded', 1, usdc, 7n, undefined],
      ['gas', 1, nativeToken, 150_000n, 90n],
    ])
    const ofBeneficiary = listJournalMovements(beneficiary, readJournalRecords(journal, beneficiary, [8453]))
    expect(
      ofBeneficiary.movements.map(({ kind, chainId, token, amount, blockNumber, txHash }) => [
        kind,
        chainId,
        token,
        amount,
        blockNumber,
        txHash,
      ]),
    ).toEqual([['received', 8453, baseUsdc, 595n, undefined, hash(2)]])
    expect(ofBeneficiary.undelivered.map((movement) => movement.amount)).toEqual([396n])
    journal.close()
  })

  it('counts only movements after the baseline block and up to the checked block, and those without a block', () => {
    const journal = journalWithCrosschainOrder()
    const { movements } = listJournalMovements(owner, readJournalRecords(journal, owner, [1]))
    expect(sumMovements(movements, { chainId: 1, token: usdc, afterBlock: 99n, atBlock: 119n })).toMatchObject({
      spent: 600n,
      refunded: 7n,
    })
    expect(sumMovements(movements, { chainId: 1, token: usdc, afterBlock: 100n, atBlock: 120n })).toMatchObject({
      spent: 400n,
      refunded: 7n,
    })
    const native = sumMovements(movements, { chainId: 1, token: nativeToken, afterBlock: 89n, atBlock: 90n })
    expect(native).toMatchObject({ gas: 150_000n, withoutBlock: [] })
    expect(sumMovements(movements, { chainId: 1, token: nativeToken, afterBlock: 90n, atBlock: 200n }).gas).toBe(0n)
    journal.close()
  })

  it('skips a chain it was given no client for and says so', async () => {
    const journal = journalWithCrosschainOrder()
    journal.recordBalanceBaseline({ chainId: 8453, account: beneficiary, token: baseUsdc, amount: 0n, blockNumber: 5 })
    const report = await checkConservation({ journal, account: beneficiary, chains: new Map() })
    expect(report.tokens).toEqual([])
    expect(report.notes).toContain('chain 8453 has baselines (1) but no client was given: not checked')
    expect(report.notes.some((note) => note.includes('396') && note.includes('has no recorded delivery'))).toBe(true)
    journal.close()
  })
})
