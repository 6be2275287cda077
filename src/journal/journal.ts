import BetterSqlite3 from 'better-sqlite3'
import type { Clock } from '../time/clock.js'
import { createApprovalStatements } from './approvals.js'
import { inlineCheckpointPages, startBackgroundCheckpoints } from './background-checkpoints.js'
import { createBalanceBaselineStatements } from './balance-baselines.js'
import { createConsoleEventStatements } from './console-events.js'
import { createConsoleQueries } from './console-queries.js'
import { createDeliveryStatements } from './deliveries.js'
import { createFirmQuoteStatements } from './firm-quotes.js'
import { createIntentStatements, type JournalIntent, type RecordIntentParameters } from './intents.js'
import { JournalRecordNotFoundError } from './journal-errors.js'
import { prepareLazily } from './lazy-statements.js'
import { journalMigrations, migrateJournal } from './migrations.js'
import { createModeChoiceStatements } from './mode-choices.js'
import { createNotificationSourceStatements } from './notification-sources.js'
import { createNotificationStatements } from './notifications.js'
import { createOperatorActionStatements } from './operator-actions.js'
import { createOrderEventStatements, type OrderEvent, type RecordFillParameters, type RecordStatusParameters } from './order-events.js'
import { createOrderStatements } from './orders.js'
import { createOutstandingSourceQuery } from './outstanding-amounts.js'
import { createRefundStatements } from './refunds.js'
import { createRiskUsageQuery } from './risk-usage-query.js'
import { createSpendTotalStatements } from './spend-totals.js'
import { createStrategyStateStatements } from './strategy-state.js'
import { createSummaryStatements } from './summary.js'
import { createTransactionStatements } from './transactions.js'

export type OpenJournalParameters = {
  /** Path of the SQLite file; created (with its schema) when missing. */
  file: string
  clock: Clock
  /** How long a write waits for another connection's lock before failing. */
  busyTimeoutMs?: number
  /**
   * Where SQLite's checkpoints run: `inline` (the commit that fills the WAL copies it into the file) or `background`
   * (a thread of their own, so that no commit waits for one: for a long-running bot or maker). Default inline; an
   * in-memory journal has none.
   */
  checkpoints?: 'inline' | 'background'
}

export type { OrderEvent }

/** An order that never reached the venue, closed with its intent (Journal.closeUnsentOrder). */
export type CloseUnsentOrderParameters = {
  orderId: string
  /** FAILED, EXPIRED or CANCELLED: what the order's mode calls an order that was never live. */
  status: RecordStatusParameters['status']
  /** The intent's failure reason (and the status change's, unless `statusReason` says otherwise). */
  reason: string
  statusReason?: string
  /** Where the intent failed: venue, chain, ... */
  stage: string
}

export type Journal = ReturnType<typeof openJournal>

/**
 * Opens (creating and migrating as needed) the journal: the single source of truth about intents, orders, fills and
 * refunds, and the only writer of the database. Every `record*` runs in one transaction and may be repeated after a
 * restart: a repeat finds the stored row instead of adding one.
 *
 * @example
 * const journal = openJournal({ file: 'deltaflow.sqlite', clock: systemClock })
 * journal.recordIntent({ id, strategy: 'dca', kind: 'swap', intent })
 * journal.recordSignedOrder({ id: `${id}/0`, intentId: id, mode: 'delta', ... }) // before submitting
 */
export function openJournal({ file, clock, busyTimeoutMs = 5_000, checkpoints = 'inline' }: OpenJournalParameters) {
  const db = file === ':memory:' ? new BetterSqlite3(migratedEmptyImage()) : new BetterSqlite3(file)
  try {
    db.pragma('journal_mode = WAL')
    // Our crash model is process death (SIGKILL, OOM, a crash) at any instant. With WAL, NORMAL skips the fsync at each
    // commit but a committed transaction is already in the WAL file (in the OS page cache), so a dead process loses
    // nothing and the file never corrupts. Only an OS crash or power loss can roll back the last commits (never tear
    // them); startup recovery reconciles orders with the venue, which covers that rarer case at 2-3x the write rate of FULL.
    db.pragma('synchronous = NORMAL')
    db.pragma('foreign_keys = ON')
    db.pragma('cache_size = -65536')
    db.pragma('temp_store = MEMORY')
    db.pragma(`wal_autocheckpoint = ${inlineCheckpointPages}`)
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`)
    migrateJournal(db, file, journalMigrations)
  } catch (error) {
    db.close()
    throw error
  }
  // An in-memory journal serves one run (a backtest, a trial): it prepares only the statements the run runs.
  const endLazyPreparation = file === ':memory:' ? prepareLazily(db) : undefined

  const spendTotals = createSpendTotalStatements(db)
  const intents = createIntentStatements(db, clock, spendTotals)
  const orders = createOrderStatements(db, clock)
  const events = createOrderEventStatements(db, clock)
  const refunds = createRefundStatements(db, clock)
  const approvals = createApprovalStatements(db, clock)
  const transactions = createTransactionStatements(db, clock, events.recordStatus)
  const strategyState = createStrategyStateStatements(db, clock)
  const modeChoices = createModeChoiceStatements(db, clock)
  const baselines = createBalanceBaselineStatements(db, clock)
  const deliveries = createDeliveryStatements(db, clock)
  const summary = createSummaryStatements(db)
  const firmQuotes = createFirmQuoteStatements(db, clock)
  const consoleEvents = createConsoleEventStatements(db, clock)
  const operatorActions = createOperatorActionStatements(db, clock)
  const notifications = createNotificationStatements(db, clock)
  const notificationSources = createNotificationSourceStatements(db)

  // Status changes and fills read their orders before writing: IMMEDIATE takes the write lock first, so no other
  // connection can commit in between and fail the write with SQLITE_BUSY_SNAPSHOT.
  const recordStatusInTransaction = db.transaction(events.recordStatus)
  const recordFillInTransaction = db.transaction(events.recordFill)
  const appendInTransaction = db.transaction(events.appendOrderEvents)
  const closeUnsentInTransaction = db.transaction((close: CloseUnsentOrderParameters) => {
    const order = orders.getOrder({ id: close.orderId })
    if (!order) throw new JournalRecordNotFoundError({ kind: 'order', id: close.orderId })
    intents.failIntent(order.intentId, close.reason, close.stage)
    return events.recordStatus({ orderId: close.orderId, status: close.status, reason: close.statusReason ?? close.reason })
  })
  const foreignKeysOff = db.prepare('PRAGMA foreign_keys = OFF')
  const foreignKeysOn = db.prepare('PRAGMA foreign_keys = ON')

  /**
   * The batch reads every order it names in one query and refuses an unknown one itself: SQLite's foreign-key lookup
   * at each history row and fill would only repeat that check, at a tenth of the batch's time. They are off for the
   * batch's transaction alone (the pragma cannot change inside a transaction, where they stay on).
   */
  function appendOrderEvents(batch: readonly OrderEvent[]): number {
    foreignKeysOff.run()
    try {
      return appendInTransaction.immediate(batch)
    } finally {
      foreignKeysOn.run()
    }
  }

  const background = checkpoints === 'background' && file !== ':memory:' ? startBackgroundCheckpoints({ db, file }) : undefined
  const journal = {
    file,
    schemaVersion: journalMigrations.length,
    recordIntent: db.transaction(({ modeChoice, ...intent }: RecordIntentParameters): JournalIntent => {
      const recorded = intents.recordIntent(intent)
      if (modeChoice !== undefined) modeChoices.insertModeChoice({ intentId: intent.id, ...modeChoice })
      return recorded
    }),
    refuseIntent: db.transaction(intents.refuseIntent),
    failIntent: db.transaction(intents.failIntent),
    completeIntent: db.transaction(intents.completeIntent),
    getIntent: intents.getIntent,
    intentsOf: intents.intentsOf,
    settledAcceptedIntents: intents.settledAcceptedIntents,
    recordModeChoice: db.transaction(modeChoices.recordModeChoice),
    getModeChoice: modeChoices.getModeChoice,
    riskUsage: createRiskUsageQuery(db, spendTotals),
    recordSignedOrder: db.transaction(orders.recordSignedOrder),
    markSubmitted: db.transaction(orders.markSubmitted),
    getOrder: orders.getOrder,
    listOrders: orders.listOrders,
    openOrders: orders.openOrders,
    /** What the open orders of a mode can still pull of a source token on a chain (source amount less fills' spend). */
    outstandingSourceAmount: createOutstandingSourceQuery(db),
    inFlightOrders: orders.inFlightOrders,
    recordStatus: (change: RecordStatusParameters): boolean => recordStatusInTransaction.immediate(change),
    /**
     * An order that never reached the venue (refused, or too late to send) gets its final status and its intent fails,
     * in one transaction: a crash between the two would leave a final order under an accepted intent, which a restart
     * completes as done instead of failed.
     */
    closeUnsentOrder: (close: CloseUnsentOrderParameters): boolean => closeUnsentInTransaction.immediate(close),
    orderHistory: events.orderHistory,
    latestStatusChange: events.latestStatusChange,
    recordFill: (fill: RecordFillParameters): boolean => recordFillInTransaction.immediate(fill),
    fillsOf: events.fillsOf,
    /** Every status change and fill of the batch, or none of them. Returns how many changed something. */
    appendOrderEvents,
    recordRefund: db.transaction(refunds.recordRefund),
    refundsOf: refunds.refundsOf,
    recordApproval: db.transaction(approvals.recordApproval),
    recordTransaction: db.transaction(transactions.recordTransaction),
    updateTransaction: db.transaction(transactions.updateTransaction),
    dropTransaction: db.transaction(transactions.dropTransaction),
    getTransaction: transactions.getTransaction,
    transactionsFrom: transactions.transactionsFrom,
    transactionsOf: transactions.transactionsOf,
    pendingTransactions: transactions.pendingTransactions,
    recordBalanceBaseline: db.transaction(baselines.recordBalanceBaseline),
    getBalanceBaseline: baselines.getBalanceBaseline,
    hasBalanceBaseline: baselines.hasBalanceBaseline,
    balanceBaselinesOf: baselines.balanceBaselinesOf,
    pendingDeliveries: deliveries.pendingDeliveries,
    deliveriesTouched: deliveries.deliveriesTouched,
    markDelivered: db.transaction(deliveries.markDelivered),
    getStrategyState: strategyState.getStrategyState,
    setStrategyState: db.transaction(strategyState.setStrategyState),
    deleteStrategyState: db.transaction(strategyState.deleteStrategyState),
    writeStrategyStates: db.transaction(strategyState.writeStrategyStates),
    orderCounts: summary.orderCounts,
    fillCount: summary.fillCount,
    refundCount: summary.refundCount,
    intentCounts: summary.intentCounts,
    tokenFlows: summary.tokenFlows,
    recentFills: summary.recentFills,
    /** Firm quotes of `deltaflow maker` (src/journal/firm-quotes.ts). */
    recordFirmQuote: db.transaction(firmQuotes.recordFirmQuote),
    recordFirmFill: db.transaction(firmQuotes.recordFirmFill),
    expireFirmQuotes: db.transaction(firmQuotes.expireFirmQuotes),
    getFirmQuote: firmQuotes.getFirmQuote,
    openFirmQuotes: firmQuotes.openFirmQuotes,
    firmQuotesSince: firmQuotes.firmQuotesSince,
    firmQuoteSummary: firmQuotes.firmQuoteSummary,
    /** The notification outbox (src/journal/notifications.ts) and the rows it is filled from. */
    enqueueNotifications: db.transaction(notifications.enqueueNotifications),
    notificationCursor: notifications.notificationCursor,
    dueNotifications: notifications.dueNotifications,
    listNotifications: notifications.listNotifications,
    markNotificationDelivered: notifications.markNotificationDelivered,
    markNotificationFailed: notifications.markNotificationFailed,
    markNotificationRejected: notifications.markNotificationRejected,
    ...notificationSources,
    /** The operator console's event sequence, pages and actions (src/runtime/console). */
    consoleEventsAfter: consoleEvents.consoleEventsAfter,
    lastConsoleEventId: consoleEvents.lastConsoleEventId,
    recordStrategyEvent: db.transaction(consoleEvents.recordStrategyEvent),
    ...createConsoleQueries(db),
    beginOperatorAction: db.transaction(operatorActions.beginOperatorAction),
    completeOperatorAction: db.transaction(operatorActions.completeOperatorAction),
    failInterruptedActions: db.transaction(operatorActions.failInterruptedActions),
    getOperatorAction: operatorActions.getOperatorAction,
    getOperatorActionById: operatorActions.getOperatorActionById,
    recentOperatorActions: operatorActions.recentOperatorActions,
    /** `PRAGMA integrity_check` → 'ok' or the problems SQLite found. */
    checkIntegrity: (): string => db.pragma('integrity_check', { simple: true }) as string,
    close: (): void => {
      background?.stop()
      if (db.open) db.close()
    },
  }
  endLazyPreparation?.()
  return journal
}

/** The bytes of an empty journal with every migration applied, made once per process (thread). */
let emptyImage: Buffer | undefined

/**
 * An in-memory journal (a backtest's, an optimiser trial's) starts from a copy of an empty migrated journal instead of
 * running every migration again: its schema and `user_version` are those the migrations give, so migrateJournal finds
 * nothing to do. Opening one drops from milliseconds to a copy of a few hundred kilobytes.
 */
function migratedEmptyImage(): Buffer {
  if (!emptyImage) {
    const db = new BetterSqlite3(':memory:')
    try {
      migrateJournal(db, ':memory:', journalMigrations)
      emptyImage = db.serialize()
    } finally {
      db.close()
    }
  }
  return emptyImage
}
