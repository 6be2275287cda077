import type { Database } from 'better-sqlite3'
import { JournalVersionError } from './journal-errors.js'

/**
 * Schema migrations, in order: migration i brings the database from `user_version` i to i + 1. Append only; never
 * edit a migration that has shipped. Amounts are TEXT decimal strings of raw units, times INTEGER unix ms, addresses lowercase.
 */
/** The final statuses of migration 3, frozen: a shipped migration must not change with the code. */
const finalStatusesAtVersion3 = `(mode = 'delta' AND status IN ('COMPLETED', 'FAILED', 'EXPIRED', 'CANCELLED', 'REFUNDED'))
  OR (mode = 'otc' AND status IN ('FULFILLED', 'CANCELLED', 'EXPIRED'))
  OR (mode = 'market' AND status IN ('mined', 'reverted', 'dropped'))`

/** SQL, or a function for a migration that must compute in JavaScript (e.g. sums of amounts beyond 64 bits). */
export type JournalMigration = string | ((db: Database) => void)

export const journalMigrations: readonly JournalMigration[] = [
  `
  CREATE TABLE intents (
    id TEXT PRIMARY KEY,
    strategy TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('swap', 'limit', 'twap-sell', 'twap-buy', 'crosschain', 'otc', 'cancel')),
    intent_json TEXT NOT NULL,
    -- accepted: passed the risk limits and is being (or was) executed; refused: stopped before signing (risk limit,
    -- no mode); failed: the venue or the chain refused what was signed; done: every order reached a final status.
    status TEXT NOT NULL CHECK (status IN ('accepted', 'refused', 'failed', 'done')),
    -- the risk limit or stage that refused or failed it (maxSlippage, dailyBudget, mode, venue, ...)
    refusal_limit TEXT,
    refusal_reason TEXT,
    -- what an accepted intent commits of its source token (risk budgets): tokenKey and raw units
    spend_token TEXT,
    spend_amount TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    CHECK ((status IN ('refused', 'failed')) = (refusal_reason IS NOT NULL))
  ) STRICT;
  CREATE INDEX intents_by_strategy ON intents (strategy);
  CREATE INDEX intents_by_spend ON intents (spend_token, created_at) WHERE spend_token IS NOT NULL;

  -- The executor's choice between Delta and Market for a swap, with the numbers it compared.
  CREATE TABLE mode_choices (
    intent_id TEXT PRIMARY KEY REFERENCES intents (id),
    mode TEXT CHECK (mode IN ('delta', 'market')),
    reason TEXT NOT NULL,
    explanation TEXT NOT NULL,
    figures_json TEXT NOT NULL,
    decided_at INTEGER NOT NULL
  ) STRICT;

  CREATE TABLE orders (
    id TEXT PRIMARY KEY,
    intent_id TEXT NOT NULL REFERENCES intents (id),
    mode TEXT NOT NULL CHECK (mode IN ('delta', 'market', 'otc')),
    -- the signer (Delta owner, Market sender, OTC maker) and who receives the output
    account TEXT NOT NULL,
    beneficiary TEXT NOT NULL,
    chain_id INTEGER NOT NULL,
    dest_chain_id INTEGER NOT NULL,
    venue_id TEXT UNIQUE,
    order_hash TEXT UNIQUE,
    nonce TEXT,
    deadline INTEGER,
    src_token TEXT NOT NULL,
    dest_token TEXT NOT NULL,
    src_amount TEXT NOT NULL,
    dest_amount TEXT NOT NULL,
    side TEXT NOT NULL CHECK (side IN ('SELL', 'BUY')),
    status TEXT NOT NULL,
    -- sequence number of the latest order_status_history row of this order
    status_seq INTEGER NOT NULL DEFAULT 0,
    signed_payload TEXT NOT NULL,
    submitted INTEGER NOT NULL DEFAULT 0 CHECK (submitted IN (0, 1)),
    submitted_at INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX orders_by_intent ON orders (intent_id);
  CREATE INDEX orders_by_account ON orders (account, chain_id);

  -- Clustered by order: one B-tree insert per status change, and an order's history is contiguous.
  CREATE TABLE order_status_history (
    order_id TEXT NOT NULL REFERENCES orders (id),
    seq INTEGER NOT NULL,
    status TEXT NOT NULL,
    reason TEXT,
    at INTEGER NOT NULL,
    PRIMARY KEY (order_id, seq)
  ) STRICT, WITHOUT ROWID;

  CREATE TABLE fills (
    id INTEGER PRIMARY KEY,
    order_id TEXT NOT NULL REFERENCES orders (id),
    chain_id INTEGER NOT NULL,
    tx_hash TEXT NOT NULL,
    log_index INTEGER,
    -- crosschain: where the output landed (NULL until the bridge delivered, and on same-chain fills)
    destination_chain_id INTEGER,
    destination_tx_hash TEXT,
    spent_amount TEXT NOT NULL,
    received_amount TEXT NOT NULL,
    source TEXT NOT NULL CHECK (source IN ('venue', 'chain', 'both')),
    block_number INTEGER,
    recorded_at INTEGER NOT NULL,
    UNIQUE (tx_hash, log_index)
  ) STRICT;
  -- NULLs are distinct in UNIQUE: a venue fill without a log index is unique by its transaction alone.
  CREATE UNIQUE INDEX fills_by_tx_without_log ON fills (tx_hash) WHERE log_index IS NULL;
  CREATE INDEX fills_by_order ON fills (order_id);

  CREATE TABLE refunds (
    id INTEGER PRIMARY KEY,
    order_id TEXT NOT NULL REFERENCES orders (id),
    tx_hash TEXT NOT NULL UNIQUE,
    chain_id INTEGER NOT NULL,
    token TEXT NOT NULL,
    amount TEXT NOT NULL,
    recorded_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX refunds_by_order ON refunds (order_id);

  CREATE TABLE approvals (
    id INTEGER PRIMARY KEY,
    chain_id INTEGER NOT NULL,
    owner TEXT NOT NULL,
    token TEXT NOT NULL,
    spender TEXT NOT NULL,
    mode TEXT NOT NULL CHECK (mode IN ('approve', 'permit')),
    amount TEXT NOT NULL,
    tx_hash TEXT UNIQUE,
    permit_kind TEXT,
    permit_hash TEXT UNIQUE,
    order_id TEXT REFERENCES orders (id),
    recorded_at INTEGER NOT NULL,
    CHECK ((mode = 'approve' AND tx_hash IS NOT NULL) OR (mode = 'permit' AND permit_kind IS NOT NULL AND permit_hash IS NOT NULL))
  ) STRICT;

  -- Every transaction the account sent: Market swaps, approvals, cancellations, wraps. Gas of each counts in the
  -- conservation check.
  CREATE TABLE transactions (
    tx_hash TEXT PRIMARY KEY,
    order_id TEXT REFERENCES orders (id),
    purpose TEXT NOT NULL CHECK (purpose IN ('swap', 'approve', 'cancel', 'wrap', 'other')),
    chain_id INTEGER NOT NULL,
    nonce INTEGER NOT NULL,
    from_address TEXT NOT NULL,
    to_address TEXT NOT NULL,
    value TEXT NOT NULL,
    data_hash TEXT NOT NULL,
    -- dropped: never mined, its nonce taken by another transaction
    status TEXT NOT NULL CHECK (status IN ('sent', 'mined', 'reverted', 'dropped')),
    revert_reason TEXT,
    gas_used TEXT,
    effective_gas_price TEXT,
    block_number INTEGER,
    sent_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX transactions_by_order ON transactions (order_id);
  CREATE INDEX transactions_by_sender ON transactions (from_address, chain_id);

  -- An account's balance of a token before deltaflow first traded it: the start of the conservation check.
  CREATE TABLE balance_baselines (
    chain_id INTEGER NOT NULL,
    account TEXT NOT NULL,
    token TEXT NOT NULL,
    amount TEXT NOT NULL,
    block_number INTEGER NOT NULL,
    recorded_at INTEGER NOT NULL,
    PRIMARY KEY (chain_id, account, token)
  ) STRICT;

  CREATE TABLE strategy_state (
    strategy TEXT NOT NULL,
    key TEXT NOT NULL,
    value_json TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (strategy, key)
  ) STRICT;
  `,
  // Cheaper batches of status changes and fills: each page a transaction dirties is a WAL frame at commit and a copy at
  // checkpoint. An order's changes and fills become chains from its row (history_head, fills_head, then previous_id) in
  // tables that grow at their end, instead of one page per order and structure in the history clustered by order and
  // in the fills' index by order. Fills are unique by the 32 bytes of their transaction hash, not its 66 characters:
  // the index each new fill lands at a random place in is half the size. fills.source's CHECK becomes comparisons: an
  // IN list of three constants builds a temporary index at every insert.
  `
  ALTER TABLE orders ADD COLUMN history_head INTEGER;
  ALTER TABLE orders ADD COLUMN fills_head INTEGER;

  ALTER TABLE order_status_history RENAME TO order_status_history_v1;
  CREATE TABLE order_status_history (
    id INTEGER PRIMARY KEY,
    order_id TEXT NOT NULL REFERENCES orders (id),
    seq INTEGER NOT NULL,
    status TEXT NOT NULL,
    reason TEXT,
    at INTEGER NOT NULL,
    -- the order's change before this one (seq - 1); NULL for its first
    previous_id INTEGER
  ) STRICT;
  INSERT INTO order_status_history (id, order_id, seq, status, reason, at, previous_id)
  SELECT n, order_id, seq, status, reason, at, lag(n) OVER (PARTITION BY order_id ORDER BY seq)
  FROM (SELECT row_number() OVER (ORDER BY order_id, seq) AS n, * FROM order_status_history_v1);
  DROP TABLE order_status_history_v1;

  ALTER TABLE fills RENAME TO fills_v1;
  CREATE TABLE fills (
    id INTEGER PRIMARY KEY,
    order_id TEXT NOT NULL REFERENCES orders (id),
    chain_id INTEGER NOT NULL,
    tx_hash TEXT NOT NULL,
    log_index INTEGER,
    destination_chain_id INTEGER,
    destination_tx_hash TEXT,
    spent_amount TEXT NOT NULL,
    received_amount TEXT NOT NULL,
    source TEXT NOT NULL CHECK (source = 'venue' OR source = 'chain' OR source = 'both'),
    block_number INTEGER,
    recorded_at INTEGER NOT NULL,
    -- the order's fill recorded before this one; NULL for its first
    previous_id INTEGER
  ) STRICT;
  INSERT INTO fills (id, order_id, chain_id, tx_hash, log_index, destination_chain_id, destination_tx_hash, spent_amount,
    received_amount, source, block_number, recorded_at, previous_id)
  SELECT id, order_id, chain_id, tx_hash, log_index, destination_chain_id, destination_tx_hash, spent_amount,
    received_amount, source, block_number, recorded_at, lag(id) OVER (PARTITION BY order_id ORDER BY id) FROM fills_v1;
  DROP TABLE fills_v1;
  -- Unique by the transaction's 32 bytes and the log index: half the index of the 66-character text.
  CREATE UNIQUE INDEX fills_by_log ON fills (unhex(substr(tx_hash, 3)), log_index);
  CREATE UNIQUE INDEX fills_by_tx_without_log ON fills (unhex(substr(tx_hash, 3))) WHERE log_index IS NULL;

  UPDATE orders SET history_head = heads.id
  FROM (SELECT order_id, max(id) AS id FROM order_status_history GROUP BY order_id) AS heads WHERE heads.order_id = orders.id;
  UPDATE orders SET fills_head = heads.id
  FROM (SELECT order_id, max(id) AS id FROM fills GROUP BY order_id) AS heads WHERE heads.order_id = orders.id;
  `,
  // What accepted intents commit per source token, per UTC day and in total (day '*'), kept by the writes that accept,
  // refuse and fail intents: a risk check reads a few rows instead of every intent ever journaled. Open orders get a
  // partial index by strategy, so counting one strategy's open orders reads only those.
  (db) => {
    db.exec(`
      CREATE TABLE spend_totals (
        token TEXT NOT NULL,
        day TEXT NOT NULL,
        amount TEXT NOT NULL,
        PRIMARY KEY (token, day)
      ) STRICT, WITHOUT ROWID;
      -- the strategy of the order's intent, copied so open orders can be counted per strategy from one index
      ALTER TABLE orders ADD COLUMN strategy TEXT;
      UPDATE orders SET strategy = (SELECT strategy FROM intents WHERE intents.id = orders.intent_id);
      -- 1 until the order reaches a final status of its mode; set once, so status changes leave the index alone
      ALTER TABLE orders ADD COLUMN open INTEGER NOT NULL DEFAULT 1 CHECK (open IN (0, 1));
      UPDATE orders SET open = 0 WHERE ${finalStatusesAtVersion3};
      CREATE INDEX orders_open ON orders (strategy) WHERE open = 1;
    `)
    const totals = new Map<string, bigint>()
    const rows = db
      .prepare<[], { token: string; day: string; amount: string }>(
        `SELECT spend_token AS token, date(created_at / 1000, 'unixepoch') AS day, spend_amount AS amount FROM intents
         WHERE spend_token IS NOT NULL AND status IN ('accepted', 'done')`,
      )
      .all()
    for (const { token, day, amount } of rows) {
      for (const key of [`${token}\n${day}`, `${token}\n*`]) totals.set(key, (totals.get(key) ?? 0n) + BigInt(amount))
    }
    const insert = db.prepare('INSERT INTO spend_totals (token, day, amount) VALUES (?, ?, ?)')
    for (const [key, amount] of totals) {
      const [token, day] = key.split('\n')
      insert.run(token, day, amount.toString())
    }
  },
  // What the bot has told each strategy about its orders: the last status, fill and refund delivered. A restart delivers
  // what the previous run journaled but did not hand over, and nothing twice.
  `
  CREATE TABLE order_deliveries (
    order_id TEXT PRIMARY KEY REFERENCES orders (id),
    -- the last status delivered (NULL until one is)
    status TEXT,
    -- the highest fills.id delivered (fills of an order are inserted in order)
    last_fill_id INTEGER NOT NULL DEFAULT 0,
    -- how many of the order's refunds were delivered, in refundsOf order
    refunds INTEGER NOT NULL DEFAULT 0,
    updated_at INTEGER NOT NULL
  ) STRICT, WITHOUT ROWID;
  `,
  // Firm quotes of `deltaflow maker`: one row per signed RFQ order sent to the service, followed on-chain through the
  // RFQ contract's OrderFilled events (one firm_quote_fills row per event, so a replayed log changes nothing).
  `
  CREATE TABLE firm_quotes (
    order_hash TEXT PRIMARY KEY,
    chain_id INTEGER NOT NULL,
    maker TEXT NOT NULL,
    maker_asset TEXT NOT NULL,
    taker_asset TEXT NOT NULL,
    maker_amount TEXT NOT NULL,
    taker_amount TEXT NOT NULL,
    -- the end user (low 160 bits of nonce_and_meta) and the contract allowed to fill
    user_address TEXT NOT NULL,
    taker TEXT NOT NULL,
    nonce_and_meta TEXT NOT NULL,
    -- unix seconds, chain time
    expiry INTEGER NOT NULL,
    quoted_at INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('open', 'filled', 'partially-filled', 'expired')),
    -- 1 once nothing more can happen to it: fully filled, or past its expiry on the chain
    closed INTEGER NOT NULL DEFAULT 0 CHECK (closed IN (0, 1)),
    filled_maker_amount TEXT NOT NULL DEFAULT '0',
    filled_taker_amount TEXT NOT NULL DEFAULT '0',
    -- the transaction of the latest fill
    tx_hash TEXT,
    updated_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX firm_quotes_open ON firm_quotes (chain_id) WHERE closed = 0;
  CREATE INDEX firm_quotes_by_time ON firm_quotes (quoted_at);

  CREATE TABLE firm_quote_fills (
    tx_hash TEXT NOT NULL,
    log_index INTEGER NOT NULL,
    order_hash TEXT NOT NULL REFERENCES firm_quotes (order_hash),
    block_number INTEGER NOT NULL,
    maker_amount TEXT NOT NULL,
    taker_amount TEXT NOT NULL,
    recorded_at INTEGER NOT NULL,
    PRIMARY KEY (tx_hash, log_index)
  ) STRICT, WITHOUT ROWID;
  `,
  // The notification outbox: one row per (target, event key), so an event is never queued twice for a target, with
  // its delivery state kept across restarts; and the cursors of the journal rows already turned into notifications.
  `
  CREATE TABLE notifications (
    id INTEGER PRIMARY KEY,
    target TEXT NOT NULL,
    -- deterministic per event: fill:<fills.id>, intent-failed:<intents.id>, daily-summary:<YYYY-MM-DD>, ...
    event_key TEXT NOT NULL,
    event TEXT NOT NULL,
    message_json TEXT NOT NULL,
    -- rejected: the receiver refused it for good (a 4xx other than 408 and 429); never tried again
    status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'rejected')),
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    -- the last failure, without the target's URL or token
    last_error TEXT,
    created_at INTEGER NOT NULL,
    delivered_at INTEGER,
    UNIQUE (target, event_key)
  ) STRICT;
  CREATE INDEX notifications_due ON notifications (next_attempt_at) WHERE status = 'pending';
  -- the notifier reads intents refused or failed since its cursor (updated_at, id) at each pass
  CREATE INDEX intents_refused_or_failed ON intents (updated_at, id) WHERE status IN ('refused', 'failed');

  CREATE TABLE notification_cursors (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT, WITHOUT ROWID;
  `,
  // The operator console (src/runtime/console): one sequence over what a running bot journals, so that a client of its
  // live stream resumes from an id with nothing lost or repeated. Triggers append to console_events whatever writes the
  // journal (the bot, `deltaflow cancel`, a reconcile), in the writer's transaction; rows are never deleted, so the
  // rowid only grows. Operator actions are journaled with who asked, when, and their outcome under an idempotency key.
  `
  CREATE TABLE console_events (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('order-status', 'fill', 'refund', 'intent', 'strategy', 'action')),
    -- order_status_history.id, fills.id, refunds.id or operator_actions.id
    ref INTEGER,
    -- intents.id or the strategy's name
    subject TEXT,
    -- the intent's status at that moment, or a strategy event as JSON
    detail TEXT,
    at INTEGER NOT NULL
  ) STRICT;
  CREATE TRIGGER console_events_of_status AFTER INSERT ON order_status_history BEGIN
    INSERT INTO console_events (kind, ref, at) VALUES ('order-status', new.id, new.at);
  END;
  CREATE TRIGGER console_events_of_fill AFTER INSERT ON fills BEGIN
    INSERT INTO console_events (kind, ref, at) VALUES ('fill', new.id, new.recorded_at);
  END;
  CREATE TRIGGER console_events_of_refund AFTER INSERT ON refunds BEGIN
    INSERT INTO console_events (kind, ref, at) VALUES ('refund', new.id, new.recorded_at);
  END;
  CREATE TRIGGER console_events_of_new_intent AFTER INSERT ON intents BEGIN
    INSERT INTO console_events (kind, subject, detail, at) VALUES ('intent', new.id, new.status, new.updated_at);
  END;
  CREATE TRIGGER console_events_of_intent AFTER UPDATE OF status ON intents WHEN new.status IS NOT old.status BEGIN
    INSERT INTO console_events (kind, subject, detail, at) VALUES ('intent', new.id, new.status, new.updated_at);
  END;

  CREATE TABLE operator_actions (
    id INTEGER PRIMARY KEY,
    -- the client's Idempotency-Key (or action id): the same key answers the first outcome without acting again
    key TEXT NOT NULL UNIQUE,
    action TEXT NOT NULL,
    target TEXT,
    request_json TEXT NOT NULL,
    -- the token's name (the setting that holds it), never the token
    requested_by TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed')),
    outcome_json TEXT,
    requested_at INTEGER NOT NULL,
    completed_at INTEGER
  ) STRICT;
  `,
  // The orders a reconciliation tick reads for a strategy's news: its open orders and the closed ones whose final status
  // it has not been told yet. `untold` is 1 from an order's close (or a status change after it) until its status is
  // delivered; the partial index holds only those, so a tick no longer scans every order ever journaled.
  `
  ALTER TABLE orders ADD COLUMN untold INTEGER NOT NULL DEFAULT 0 CHECK (untold IN (0, 1));
  UPDATE orders SET untold = 1 WHERE open = 0
    AND NOT EXISTS (SELECT 1 FROM order_deliveries AS d WHERE d.order_id = orders.id AND d.status IS orders.status);
  CREATE INDEX orders_untold ON orders (strategy) WHERE untold = 1;
  `,
  // The Market transactions still waiting for a receipt, which every reconciliation pass reads: only those are indexed,
  // in the order the pass reads them, so the pass no longer scans every transaction ever sent.
  `
  CREATE INDEX transactions_sent ON transactions (chain_id, nonce) WHERE status = 'sent';
  `,
  // console_events.kind's CHECK becomes comparisons: an IN list of six constants built a temporary index at every insert,
  // and a row is inserted with every status change, fill, refund and intent status (a quarter of the append rate of
  // order events). The table is made again with its rows and ids. With legacy_alter_table the rename leaves the
  // triggers' text alone (they name console_events, which is then the new table) instead of checking them while the
  // table they name is gone.
  `
  PRAGMA legacy_alter_table = ON;
  -- The columns as the operator console's migration made them (what each holds is said there).
  CREATE TABLE console_events_v2 (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (
      kind = 'order-status' OR kind = 'fill' OR kind = 'refund' OR kind = 'intent' OR kind = 'strategy' OR kind = 'action'
    ),
    ref INTEGER,
    subject TEXT,
    detail TEXT,
    at INTEGER NOT NULL
  ) STRICT;
  INSERT INTO console_events_v2 (id, kind, ref, subject, detail, at) SELECT id, kind, ref, subject, detail, at FROM console_events;
  DROP TABLE console_events;
  ALTER TABLE console_events_v2 RENAME TO console_events;
  PRAGMA legacy_alter_table = OFF;
  `,
  // A fill or a refund journaled after its order closed (a chain log found after the venue's final status, a refund
  // recorded after REFUNDED) is news for the order's strategy: the journal now marks the order untold again when it
  // writes one, as after a status change following its close, until the strategy is told all of it (deliveries.ts).
  // Closed orders told of before such a fill or refund came are marked now, so that it is delivered.
  `
  UPDATE orders SET untold = 1 WHERE open = 0 AND untold = 0 AND EXISTS (
    SELECT 1 FROM order_deliveries AS d
    WHERE d.order_id = orders.id AND (
      d.last_fill_id < coalesce(orders.fills_head, 0)
      OR d.refunds < (SELECT count(*) FROM refunds WHERE refunds.order_id = orders.id)
    )
  );
  `,
]

/** Applies every migration the database lacks, one transaction each; refuses a database newer than this code. */
export function migrateJournal(db: Database, file: string, migrations: readonly JournalMigration[] = journalMigrations): void {
  const databaseVersion = db.pragma('user_version', { simple: true }) as number
  if (databaseVersion > migrations.length) {
    throw new JournalVersionError({ file, databaseVersion, codeVersion: migrations.length })
  }
  for (let version = databaseVersion; version < migrations.length; version++) {
    const migration = migrations[version] ?? ''
    db.transaction(() => {
      if (typeof migration === 'string') db.exec(migration)
      else migration(db)
      // user_version cannot take a bound parameter; `version` is our own integer.
      db.pragma(`user_version = ${version + 1}`)
    }).immediate()
  }
}
