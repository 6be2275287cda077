import { type Address, erc20Abi, type Hex, isAddressEqual } from 'viem'
import { buildMarketTransaction } from '../api/market/build-market-transaction.js'
import type { MarketPriceRoute } from '../api/market/price-route-schema.js'
import { type ChainClients, requireChainClients } from '../chain/chain-clients.js'
import { resolveSpender } from '../chain/spender.js'
import { createTransactionQueue } from '../chain/transaction-queue.js'
import type { Session } from '../cli/session.js'
import { BaseError } from '../errors/base.js'
import { nativeTokenPlaceholder } from '../protocol/addresses.js'
import { unixSeconds } from '../time/clock.js'
import { approveForTrade } from './approve-for-trade.js'
import type { TradeRequest } from './quote-trade.js'

export type MarketSwapResult = {
  mode: 'market'
  transactionHash: Hex
  approvals: Hex[]
  /** Measured on-chain: balance changes of the account (gas excluded for a native source). Raw units. */
  spent: bigint
  received: bigint
  gasUsed: bigint
}

export class MarketSpenderMismatchError extends BaseError {
  override name = 'MarketSpenderMismatchError'
}

export type SwapWithMarketParameters = {
  trade: TradeRequest
  route: MarketPriceRoute
  slippageBps: number
  validForSeconds: number
}

/** Approves (or permits) the Market router, builds the transaction, broadcasts it and measures what moved. */
export async function swapWithMarket(session: Session, parameters: SwapWithMarketParameters): Promise<MarketSwapResult> {
  const { trade, route, slippageBps } = parameters
  const chain = requireChainClients(session.chains, trade.chainId)
  const owner = session.account.address
  const spender = resolveSpender({ contracts: session.contracts, chainId: trade.chainId, mode: 'market' })
  const deadline = unixSeconds(session.clock) + parameters.validForSeconds
  const queue = createTransactionQueue({ client: chain.publicClient, account: session.account, clock: session.clock })
  const native = isNative(trade.srcToken.address)
  // The router may pull at most srcAmount on a SELL, srcAmount plus the slippage on a BUY.
  const required = trade.side === 'SELL' ? route.srcAmount : (route.srcAmount * BigInt(10_000 + slippageBps) + 9_999n) / 10_000n
  const { permit, approvals } = native
    ? { permit: undefined, approvals: [] }
    : await approveForTrade({
        chain,
        account: session.account,
        queue,
        spender,
        token: trade.srcToken.address,
        required,
        deadline: BigInt(deadline),
      })
  const envelope = await buildMarketTransaction(session.api, {
    priceRoute: route,
    userAddress: owner,
    slippage: slippageBps,
    deadline,
    permit,
  })
  if (!isAddressEqual(envelope.to, spender.address)) {
    throw new MarketSpenderMismatchError('The Market transaction does not go to the router that was approved', {
      details: { to: envelope.to, approved: spender.address },
      hint: 'The deployment resource and the transaction builder disagree: stop and check the venue.',
    })
  }
  const before = await balances(chain, trade, owner)
  const sent = await queue.send({
    to: envelope.to,
    data: envelope.data,
    value: envelope.value,
    fallbackGas: envelope.gas,
    from: envelope.from,
    chainId: envelope.chainId,
    label: `Market swap ${trade.srcToken.address} → ${trade.destToken.address}`,
  })
  const after = await balances(chain, trade, owner)
  const gasPaid = sent.receipt.gasUsed * sent.receipt.effectiveGasPrice
  return {
    mode: 'market',
    transactionHash: sent.hash,
    approvals,
    spent: before.src - after.src - (native ? gasPaid : 0n),
    received: after.dest - before.dest + (isNative(trade.destToken.address) ? gasPaid : 0n),
    gasUsed: sent.receipt.gasUsed,
  }
}

function isNative(token: Address): boolean {
  return token.toLowerCase() === nativeTokenPlaceholder.toLowerCase()
}

async function balances(chain: ChainClients, trade: TradeRequest, owner: Address): Promise<{ src: bigint; dest: bigint }> {
  const read = (token: Address) =>
    isNative(token)
      ? chain.publicClient.getBalance({ address: owner })
      : chain.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [owner] })
  const [src, dest] = await Promise.all([read(trade.srcToken.address), read(trade.destToken.address)])
  return { src, dest }
}
