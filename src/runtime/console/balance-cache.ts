import type { Address } from 'viem'
import { withoutUrlSecrets } from '../../errors/url-secrets.js'
import type { BalanceRequest } from '../../strategy/strategy-events.js'
import type { Clock } from '../../time/clock.js'
import { readBalances } from '../read-balances.js'
import type { BalancesAnswer } from './balance-answer.js'
import type { ConsoleSources } from './console-sources.js'
import { tokenViewOf } from './token-view.js'

/** Real ms a read of the balances is answered again before the chains are read anew. */
export const balanceCacheMs = 5_000

/**
 * The tokens the bot deals in, on the chains it has: those its strategies watch, quote and trade, and those of its
 * journaled orders' flows; ordered by chain and address.
 */
export function botTokensOf({ chains, strategies, journal }: Pick<ConsoleSources, 'chains' | 'strategies' | 'journal'>): BalanceRequest[] {
  const requests: BalanceRequest[] = strategies.flatMap((strategy) => [
    ...strategy.balances,
    ...strategy.subscriptions.flatMap((request) => [
      { chainId: request.chainId, token: request.srcToken },
      { chainId: request.destChainId ?? request.chainId, token: request.destToken },
    ]),
  ])
  for (const flow of journal.tokenFlows()) requests.push({ chainId: flow.chainId, token: flow.token as Address })
  const unique = new Map(requests.filter((request) => chains.has(request.chainId)).map((r) => [`${r.chainId}:${r.token.toLowerCase()}`, r]))
  return [...unique.values()].sort((a, b) => a.chainId - b.chainId || a.token.localeCompare(b.token))
}

/**
 * The wallet's balances of the tokens the bot deals in (those its strategies watch, quote and trade, and those of its
 * journaled orders), read as the bot reads them (readBalances: one block per chain) at most once per `balanceCacheMs`;
 * concurrent requests share one read.
 */
export function createBalanceCache(
  { chains, account, strategies, journal, labels }: Pick<ConsoleSources, 'chains' | 'account' | 'strategies' | 'journal' | 'labels'>,
  clock: Clock,
  now: () => number = Date.now,
) {
  let answer: BalancesAnswer = { account, readAt: null, balances: [], error: null }
  let readRealAt = Number.NEGATIVE_INFINITY
  let reading: Promise<BalancesAnswer> | undefined

  async function read(): Promise<BalancesAnswer> {
    try {
      const tokens = botTokensOf({ chains, strategies, journal })
      const [balances] = await Promise.all([readBalances(chains, account, tokens), labels.read(tokens)])
      const view = tokenViewOf(labels)
      answer = {
        account,
        readAt: clock.now(),
        balances: balances.map(({ chainId, token, amount }) => ({
          chainId,
          token,
          amount: amount.toString(),
          label: view.labelOf(chainId, token),
          amountUnits: view.unitsOf(chainId, token, amount),
        })),
        error: null,
      }
    } catch (error) {
      // The first line only, without URLs: an RPC URL may hold a key.
      answer = { ...answer, error: withoutUrlSecrets((error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '') }
    }
    readRealAt = now()
    return answer
  }

  return {
    balances: (): Promise<BalancesAnswer> => {
      if (now() - readRealAt < balanceCacheMs) return Promise.resolve(answer)
      reading ??= read().finally(() => {
        reading = undefined
      })
      return reading
    },
  }
}
