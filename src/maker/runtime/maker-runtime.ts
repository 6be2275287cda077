import { catchError, defer, EMPTY, exhaustMap, merge, Subject, type Subscription, takeUntil, tap, timer } from 'rxjs'
import type { Address, Hex, LocalAccount } from 'viem'
import { getBlockNumber } from 'viem/actions'
import type { ApiClient } from '../../api/client.js'
import { type ChainClients, requireChainClients } from '../../chain/chain-clients.js'
import type { DeploymentContracts } from '../../chain/deployment.js'
import { resolveSpender, type Spender } from '../../chain/spender.js'
import { createExecutorContext } from '../../exec/executor/executor-context.js'
import { riskLimitsSchema } from '../../exec/risk/risk-limits-schema.js'
import type { JournalFirmQuote } from '../../journal/firm-quotes.js'
import type { Journal } from '../../journal/journal.js'
import { createLogger, type Logger } from '../../log/logger.js'
import type { FirmOrder, FirmRequest } from '../../protocol/maker-wire.js'
import type { Clock } from '../../time/clock.js'
import { MakerBook } from '../maker-book.js'
import type { MakerBalance, MakerFirmQuote, ReferencePrice } from '../maker-strategy.js'
import { approveMakerToken } from './approve-maker-token.js'
import { checkMakerOffer } from './check-maker-offer.js'
import { FirmReservations } from './firm-reservations.js'
import { catchUpFirmQuotes, followFirmQuotes } from './follow-firm-quotes.js'
import { MakerSetupError } from './maker-errors.js'
import { createMakerWallet, spendableOf } from './maker-wallet.js'
import { applyReferenceUpdate, firstReferences, initialReferences, pollReferences } from './reference-prices.js'
import type { SafeMakerStrategy } from './safe-maker-strategy.js'

/** Real milliseconds between the runtime's polls. */
export type MakerRuntimeIntervals = {
  /** Reference prices (Market quotes). */
  referenceMs: number
  /** Wallet balances and RFQ allowances. */
  balanceMs: number
  /** Runs the strategy and writes the book. */
  quoteMs: number
  /** Reads RFQ fill events and closes expired firm quotes. */
  followMs: number
}

export const defaultMakerRuntimeIntervals: MakerRuntimeIntervals = { referenceMs: 1_000, balanceMs: 2_000, quoteMs: 500, followMs: 1_000 }

/** What the server hands the maker for every signed firm order (the maker server's `recordFirmQuote` argument). */
export type MakerFirmRecord = { chainId: number; orderHash: Hex; order: FirmOrder; request: FirmRequest; quotedAt: number }

export type CreateMakerRuntimeParameters = {
  strategy: SafeMakerStrategy
  /** The chains served: every chain of the strategy's references and balances must be one of them. */
  chainIds: readonly number[]
  api: ApiClient
  chains: ReadonlyMap<number, ChainClients>
  /** The deployment resource's chains: the RFQ contract of each served chain. */
  contracts: DeploymentContracts
  /** The maker wallet: holds the inventory, approves the RFQ contract, signs the firm orders (through the server). */
  account: LocalAccount
  journal: Journal
  /** Expiry and reference ages count on it (the sandbox's clock in paper mode). */
  clock: Clock
  approvalPolicy: 'exact' | 'unlimited'
  intervals?: Partial<MakerRuntimeIntervals> | undefined
  /** Clock seconds past its expiry after which a quote is closed though the chain mined no later block. Default 30. */
  expiryGraceSeconds?: number | undefined
  logger?: Logger | undefined
}

export type MakerRuntimeStats = {
  quotes: number
  /** Runs where the strategy threw or returned an invalid offer. */
  strategyFailures: number
  firmQuotes: number
  fills: number
  expired: number
  pollErrors: number
}

export type MakerRuntime = {
  /** What the maker server serves: written here, read there. */
  book: MakerBook
  /** The RFQ contract of a served chain. */
  rfqOf: (chainId: number) => Address
  /**
   * Approves the RFQ contract for every token the maker sells, reads the wallet and the references, catches up on
   * firm quotes a previous run left open, writes the first book, then polls until stop().
   */
  start: () => Promise<void>
  /** Switches every chain off with `reason`, stops polling, and journals the fills seen up to now. */
  stop: (reason?: string) => Promise<void>
  /** The firm check of the maker server: refuses an order the wallet could not pay once open quotes are filled. */
  checkFirm: (request: FirmRequest, order: FirmOrder, chainId?: number) => string | undefined
  /** The journal write of the maker server, made before the order is answered. */
  recordFirmQuote: (record: MakerFirmRecord) => void
  /** Runs the strategy once now and writes the book (the poll does it every `quoteMs`). */
  requote: () => void
  /** One pass over the chains' fill events and expiries (the poll does it every `followMs`). */
  followFirmQuotes: () => Promise<void>
  stats: () => MakerRuntimeStats
}

/**
 * The maker runtime: references and balances polled (rxjs timers with exhaustMap: polls never overlap), the strategy
 * run on every `quoteMs` tick over the latest of both, its offer checked and written to the MakerBook (or the chain
 * switched off with the reason); every firm quote the server signs is checked against the wallet, journaled and
 * followed on-chain until filled or expired.
 *
 * @example
 * const runtime = createMakerRuntime({ strategy, chainIds: [1], api, chains, contracts, account, journal, clock, approvalPolicy: 'exact' })
 * await runtime.start()
 * const server = await startMakerServer({ book: runtime.book, checkFirm: runtime.checkFirm, recordFirmQuote: runtime.recordFirmQuote, ... })
 */
export function createMakerRuntime(parameters: CreateMakerRuntimeParameters): MakerRuntime {
  const { strategy, chainIds, api, chains, contracts, account, journal, clock, approvalPolicy } = parameters
  const intervals = { ...defaultMakerRuntimeIntervals, ...parameters.intervals }
  const expiryGraceSeconds = parameters.expiryGraceSeconds ?? 30
  const logger = (parameters.logger ?? createLogger({ level: 'silent' })).child({ unit: 'maker', strategy: strategy.name })
  const book = new MakerBook(chainIds)
  const spenders = new Map<number, Spender<'rfq'>>()
  const context = createExecutorContext({ api, chains, contracts, account, journal, clock, logger, limits: riskLimitsSchema.parse({}) })
  const decimals = new Map<string, number>()
  const reservations = new FirmReservations()
  const references = initialReferences(strategy.references)
  const wallet = createMakerWallet({ chains, owner: account.address, tokens: strategy.balances, rfqOf, clock })
  const cursors = new Map<number, bigint>()
  const approving = new Set<string>()
  const work = new Set<Promise<unknown>>()
  const stop$ = new Subject<void>()
  const stats: MakerRuntimeStats = { quotes: 0, strategyFailures: 0, firmQuotes: 0, fills: 0, expired: 0, pollErrors: 0 }
  const offReasons = new Map<number, string | undefined>()
  let subscription: Subscription | undefined
  let state: 'new' | 'running' | 'stopped' = 'new'
  const tokenKey = (chainId: number, token: Address) => `${chainId}:${token.toLowerCase()}`

  function rfqOf(chainId: number): Address {
    const spender = spenders.get(chainId) ?? resolveSpender({ contracts, chainId, mode: 'rfq' })
    spenders.set(chainId, spender)
    return spender.address
  }

  function track<T>(promise: Promise<T>): Promise<T> {
    work.add(promise)
    void promise.finally(() => work.delete(promise)).catch(() => undefined)
    return promise
  }

  function checkChains(): void {
    const unserved = [...strategy.references, ...strategy.balances]
      .map((entry) => entry.chainId)
      .filter((chainId) => !chainIds.includes(chainId))
    if (unserved.length > 0) {
      throw new MakerSetupError(`strategy "${strategy.name}" quotes chain ${unserved[0]}, which the maker does not serve`, {
        details: { served: chainIds.join(', ') },
        hint: `add chain ${unserved[0]} under maker.chains (with its basePath), or remove it from the strategy's config`,
        errorClass: 'operational',
      })
    }
    for (const chainId of chainIds) {
      requireChainClients(chains, chainId)
      rfqOf(chainId)
    }
  }

  /** Makes the RFQ contract able to pull the wallet's balance of a token (one approval at a time per token); true if it sent one. */
  async function ensureAllowance(chainId: number, token: Address): Promise<boolean> {
    const entry = wallet.get(chainId, token)
    const key = tokenKey(chainId, token)
    if (!entry || entry.allowance >= entry.balance || approving.has(key)) return false
    approving.add(key)
    try {
      const granted = await approveMakerToken({
        chain: requireChainClients(chains, chainId),
        account,
        queue: context.queueFor(chainId),
        rfq: { mode: 'rfq', chainId, address: rfqOf(chainId) },
        token,
        required: entry.balance,
        policy: approvalPolicy,
        journal,
      })
      logger.info({ chainId, token, allowance: granted.toString() }, 'RFQ contract approved for the maker token')
      return true
    } finally {
      approving.delete(key)
    }
  }

  async function refreshWallet(): Promise<void> {
    await wallet.refresh()
    const pending = strategy.balances.map(({ chainId, token }) => ensureAllowance(chainId, token))
    const results = await Promise.allSettled(pending)
    const failed = results.find((result) => result.status === 'rejected')
    if (failed)
      logger.error({ err: failed.reason }, 'approving a maker token to the RFQ contract failed; it is quoted within its allowance')
    if (results.some((result) => result.status === 'fulfilled' && result.value)) await wallet.refresh()
  }

  function balancesNow(): MakerBalance[] {
    return strategy.balances.flatMap(({ chainId, token }) => {
      const entry = wallet.get(chainId, token)
      if (!entry) return []
      const reserved = reservations.reserved(chainId, token)
      const spendable = spendableOf(entry)
      const available = spendable > reserved ? spendable - reserved : 0n
      return [{ chainId, token, balance: entry.balance, reserved, available, at: entry.at }]
    })
  }

  function firmQuotesNow(now: number): MakerFirmQuote[] {
    if (strategy.firmWindowSeconds <= 0) return []
    return journal
      .firmQuotesSince(now - strategy.firmWindowSeconds * 1000)
      .filter((quote) => quote.maker === account.address.toLowerCase())
      .map((quote) => ({
        chainId: quote.chainId,
        makerAsset: quote.makerAsset,
        takerAsset: quote.takerAsset,
        makerAmount: quote.makerAmount,
        takerAmount: quote.takerAmount,
        quotedAt: quote.quotedAt,
        status: quote.status,
        filledMakerAmount: quote.filledMakerAmount,
        filledTakerAmount: quote.filledTakerAmount,
      }))
  }

  function setOff(chainId: number, reason: string): void {
    book.setOff(reason, chainId)
    if (offReasons.get(chainId) !== reason) logger.warn({ chainId, reason }, 'maker off: /prices fails until it quotes again')
    offReasons.set(chainId, reason)
  }

  function requote(): void {
    if (state === 'stopped') return
    const now = clock.now()
    const snapshot: Record<string, ReferencePrice> = {}
    for (const [id, reference] of references) {
      const fixed = strategy.references.find((request) => request.id === id)?.source === 'fixed'
      snapshot[id] = fixed ? { ...reference, at: now } : reference
    }
    stats.quotes += 1
    const outcome = strategy.quote({ now, references: snapshot, balances: balancesNow(), firmQuotes: firmQuotesNow(now) })
    if (!outcome.ok) {
      stats.strategyFailures += 1
      if (![...offReasons.values()].includes(outcome.error.shortMessage)) logger.error({ err: outcome.error }, 'maker strategy failed')
      for (const chainId of chainIds) setOff(chainId, outcome.error.shortMessage)
      return
    }
    const checked = checkMakerOffer(outcome.output, { chainIds, decimalsOf: (chainId, token) => decimals.get(tokenKey(chainId, token)) })
    if (!checked.ok) {
      stats.strategyFailures += 1
      for (const chainId of chainIds) setOff(chainId, `strategy "${strategy.name}" returned an invalid offer: ${checked.reason}`)
      return
    }
    for (const [chainId, offer] of checked.chains) {
      if ('off' in offer) {
        if (offer.invalid) stats.strategyFailures += 1
        setOff(chainId, offer.invalid ? `strategy "${strategy.name}" returned an ${offer.off}` : offer.off)
        continue
      }
      book.update(chainId, offer.update, now)
      if (offReasons.get(chainId) !== undefined) logger.info({ chainId }, 'maker quoting')
      offReasons.set(chainId, undefined)
    }
  }

  async function followAll(): Promise<void> {
    let changed = false
    await Promise.all(
      chainIds.map(async (chainId) => {
        const result = await followFirmQuotes({
          client: requireChainClients(chains, chainId).publicClient,
          chainId,
          rfq: rfqOf(chainId),
          maker: account.address,
          journal,
          fromBlock: cursors.get(chainId) ?? 0n,
          clock,
          expiryGraceSeconds,
        })
        cursors.set(chainId, result.nextBlock)
        for (const quote of result.filled) {
          changed = true
          stats.fills += 1
          reserve(quote)
          logger.info(
            {
              chainId,
              orderHash: quote.orderHash,
              status: quote.status,
              filledMakerAmount: quote.filledMakerAmount.toString(),
              txHash: quote.txHash,
            },
            'firm quote filled on-chain',
          )
        }
        for (const quote of result.closed) {
          reservations.delete(quote.orderHash)
          if (quote.status === 'expired') stats.expired += 1
          logger.info({ chainId, orderHash: quote.orderHash, status: quote.status }, 'firm quote closed at its expiry')
        }
      }),
    )
    if (changed && state === 'running') {
      await refreshWallet()
      requote()
    }
  }

  function reserve(quote: JournalFirmQuote): void {
    if (quote.closed) {
      reservations.delete(quote.orderHash)
      return
    }
    // What the rest of the taker amount could still take (the contract rounds each fill's maker amount down).
    reservations.set({
      orderHash: quote.orderHash,
      chainId: quote.chainId,
      makerAsset: quote.makerAsset,
      remaining: quote.makerAmount - quote.filledMakerAmount,
      expiry: quote.expiry,
    })
  }

  const logPollError = (what: string) =>
    catchError((error: unknown) => {
      stats.pollErrors += 1
      logger.warn({ err: error }, `${what} failed; trying again at the next tick`)
      return EMPTY
    })

  return {
    book,
    rfqOf,
    start: async () => {
      if (state !== 'new') throw new MakerSetupError(`cannot start a maker runtime that is ${state}`, { errorClass: 'fatal' })
      checkChains()
      await Promise.all(
        strategy.balances.map(async ({ chainId, token }) =>
          decimals.set(tokenKey(chainId, token), await context.decimalsOf(chainId, token)),
        ),
      )
      for (const chainId of chainIds) {
        const client = requireChainClients(chains, chainId).publicClient
        cursors.set(chainId, await getBlockNumber(client, { cacheTime: 0 }))
        const caughtUp = await catchUpFirmQuotes({ client, chainId, rfq: rfqOf(chainId), maker: account.address, journal })
        if (caughtUp.length > 0) logger.info({ chainId, quotes: caughtUp.length }, 'fills of firm quotes from an earlier run journaled')
      }
      for (const quote of journal.openFirmQuotes()) if (quote.maker === account.address.toLowerCase()) reserve(quote)
      await refreshWallet()
      for (const update of await firstReferences({ api, requests: strategy.references, decimalsOf: context.decimalsOf, clock })) {
        applyReferenceUpdate(references, update)
      }
      state = 'running'
      requote()
      const referenceUpdates = pollReferences({
        api,
        requests: strategy.references,
        decimalsOf: context.decimalsOf,
        intervalMs: intervals.referenceMs,
        clock,
      })
      subscription = merge(
        referenceUpdates.pipe(
          tap((update) => {
            if (!update.ok) stats.pollErrors += 1
            applyReferenceUpdate(references, update)
          }),
        ),
        timer(intervals.quoteMs, intervals.quoteMs).pipe(tap(() => requote())),
        timer(intervals.balanceMs, intervals.balanceMs).pipe(
          exhaustMap(() => defer(() => track(refreshWallet())).pipe(logPollError('reading the maker wallet'))),
        ),
        timer(intervals.followMs, intervals.followMs).pipe(
          exhaustMap(() => defer(() => track(followAll())).pipe(logPollError('following firm quotes'))),
        ),
      )
        .pipe(takeUntil(stop$))
        .subscribe()
      logger.info({ chains: chainIds, references: strategy.references.length, openFirmQuotes: reservations.size }, 'maker runtime started')
    },
    stop: async (reason = 'maker stopped') => {
      if (state === 'stopped') return
      const wasRunning = state === 'running'
      state = 'stopped'
      book.setOff(reason)
      stop$.next()
      subscription?.unsubscribe()
      await Promise.allSettled([...work])
      if (wasRunning) await followAll().catch((error: unknown) => logger.warn({ err: error }, 'the last pass over firm quotes failed'))
      logger.info({ stats }, 'maker runtime stopped')
    },
    checkFirm: (request, order, chainId) => {
      const candidates =
        chainId !== undefined
          ? [chainId]
          : chainIds.filter((id) => {
              const listed = Object.values(book.snapshot(id).tokens).map((token) => token.address.toLowerCase())
              return listed.includes(request.makerAsset.toLowerCase()) && listed.includes(request.takerAsset.toLowerCase())
            })
      for (const candidate of candidates) {
        const entry = wallet.get(candidate, order.makerAsset)
        if (!entry) return 'the maker cannot sell this token'
        const reserved = reservations.reserved(candidate, order.makerAsset)
        const spendable = spendableOf(entry)
        if (order.makerAmount + reserved > spendable) {
          logger.warn(
            {
              chainId: candidate,
              token: order.makerAsset,
              makerAmount: order.makerAmount.toString(),
              balance: entry.balance.toString(),
              allowance: entry.allowance.toString(),
              reserved: reserved.toString(),
            },
            'firm quote refused: the wallet cannot cover it beside the open firm quotes',
          )
          return 'insufficient maker inventory for this amount'
        }
      }
      return undefined
    },
    recordFirmQuote: ({ chainId, orderHash, order, request, quotedAt }) => {
      const quote = journal.recordFirmQuote({
        chainId,
        orderHash,
        maker: order.maker,
        makerAsset: order.makerAsset,
        takerAsset: order.takerAsset,
        makerAmount: order.makerAmount,
        takerAmount: order.takerAmount,
        user: request.userAddress,
        taker: order.taker,
        nonceAndMeta: order.nonceAndMeta,
        expiry: order.expiry,
        quotedAt,
      })
      reserve(quote)
      stats.firmQuotes += 1
      logger.info(
        {
          chainId,
          orderHash,
          makerAsset: order.makerAsset,
          makerAmount: order.makerAmount.toString(),
          takerAsset: order.takerAsset,
          takerAmount: order.takerAmount.toString(),
          expiry: order.expiry,
        },
        'firm quote signed',
      )
    },
    requote,
    followFirmQuotes: () => track(followAll()),
    stats: () => ({ ...stats }),
  }
}
