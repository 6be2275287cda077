import type { Database } from 'better-sqlite3'
import { JournalVersionError } from './journal-errors.js'

/**
 * Schema migrations, in order: migration i brings the database from `user_version` i to i + 1. Append only; never
 * edit a migration that has shipped. Amounts are TEXT decimal strings of raw units, times INTEGER unix ms, addresses lowercase.
 */
export const journalMigrations: readonly string[] = [
  `
  CREATE TABLE intents (
    id TEXT PRIMARY KEY,
    strategy TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('swap', 'limit', 'twap', 'twapBuy', 'crosschain', 'otcP2p', 'cancel')),
    intent_json TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('accepted', 'refused', 'done')),
    refusal_reason TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    CHECK ((status = 'refused') = (refusal_reason IS NOT NULL))
  ) STRICT;
  CREATE INDEX intents_by_strategy ON intents (strategy);

  CREATE TABLE orders (
    id TEXT PRIMARY KEY,
    intent_id TEXT NOT NULL REFERENCES intents (id),
    mode TEXT NOT NULL CHECK (mode IN ('delta', 'market', 'otc')),
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

  CREATE TABLE market_transactions (
    tx_hash TEXT PRIMARY KEY,
    order_id TEXT REFERENCES orders (id),
    chain_id INTEGER NOT NULL,
    nonce INTEGER NOT NULL,
    from_address TEXT NOT NULL,
    to_address TEXT NOT NULL,
    value TEXT NOT NULL,
    data_hash TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('sent', 'mined', 'reverted')),
    revert_reason TEXT,
    gas_used TEXT,
    effective_gas_price TEXT,
    block_number INTEGER,
    sent_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT;
  CREATE INDEX market_transactions_by_order ON market_transactions (order_id);

  CREATE TABLE strategy_state (
    strategy TEXT NOT NULL,
    key TEXT NOT NULL,
    value_json TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (strategy, key)
  ) STRICT;
  `,
]

/** Applies every migration the database lacks, one transaction each; refuses a database newer than this code. */
export function migrateJournal(db: Database, file: string, migrations: readonly string[] = journalMigrations): void {
  const databaseVersion = db.pragma('user_version', { simple: true }) as number
  if (databaseVersion > migrations.length) {
    throw new JournalVersionError({ file, databaseVersion, codeVersion: migrations.length })
  }
  for (let version = databaseVersion; version < migrations.length; version++) {
    const migration = migrations[version] ?? ''
    db.transaction(() => {
      db.exec(migration)
      // user_version cannot take a bound parameter; `version` is our own integer.
      db.pragma(`user_version = ${version + 1}`)
    }).immediate()
  }
}
