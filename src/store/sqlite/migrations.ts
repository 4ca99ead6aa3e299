import type Database from "better-sqlite3";

/**
 * Forward-only schema migrations; index i takes `PRAGMA user_version` from i
 * to i + 1. Never edit a released entry: append a new one.
 *
 * Messages, statuses, artifacts and events are stored as protobuf binary:
 * compact, and decoded only when read. Children hang off the task's rowid
 * (`task_pk`), which is found through (tenant, agent, id), so no query can
 * cross a tenant boundary.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE tasks (
    pk INTEGER PRIMARY KEY,
    tenant TEXT NOT NULL,
    agent TEXT NOT NULL,
    id TEXT NOT NULL,
    context_id TEXT NOT NULL,
    state INTEGER NOT NULL,
    status BLOB NOT NULL,
    status_ms INTEGER NOT NULL,
    touch INTEGER NOT NULL,
    metadata TEXT,
    last_seq INTEGER NOT NULL,
    history_count INTEGER NOT NULL,
    artifact_count INTEGER NOT NULL,
    created_ms INTEGER NOT NULL,
    UNIQUE (tenant, agent, id)
  );
  CREATE INDEX tasks_by_update ON tasks (tenant, agent, status_ms DESC, touch DESC);
  CREATE INDEX tasks_by_context ON tasks (tenant, agent, context_id, status_ms DESC, touch DESC);
  CREATE INDEX tasks_by_state ON tasks (tenant, agent, state, status_ms DESC, touch DESC);
  CREATE INDEX tasks_by_bare_state ON tasks (state);

  CREATE TABLE history (
    task_pk INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    message BLOB NOT NULL,
    PRIMARY KEY (task_pk, idx)
  ) WITHOUT ROWID;

  CREATE TABLE artifacts (
    task_pk INTEGER NOT NULL,
    artifact_id TEXT NOT NULL,
    ord INTEGER NOT NULL,
    head BLOB NOT NULL,
    part_count INTEGER NOT NULL,
    sealed INTEGER NOT NULL,
    PRIMARY KEY (task_pk, artifact_id)
  ) WITHOUT ROWID;

  CREATE TABLE artifact_parts (
    task_pk INTEGER NOT NULL,
    artifact_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    part BLOB NOT NULL,
    PRIMARY KEY (task_pk, artifact_id, idx)
  ) WITHOUT ROWID;

  CREATE TABLE events (
    task_pk INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    event BLOB NOT NULL,
    PRIMARY KEY (task_pk, seq)
  ) WITHOUT ROWID;

  CREATE TABLE push_configs (
    task_pk INTEGER NOT NULL,
    id TEXT NOT NULL,
    config BLOB NOT NULL,
    created_ms INTEGER NOT NULL,
    PRIMARY KEY (task_pk, id)
  ) WITHOUT ROWID;
  `,
  // 2: the push outbox (§3.5.3). One row per (event, config) written in the
  // event's transaction; the event body stays in \`events\`. kind 0 = a logged
  // event, kind 1 = the final Task snapshot after a terminal state.
  `
  CREATE TABLE push_outbox (
    id INTEGER PRIMARY KEY,
    task_pk INTEGER NOT NULL,
    config_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    kind INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_at_ms INTEGER NOT NULL,
    dead INTEGER NOT NULL DEFAULT 0,
    last_error TEXT
  );
  CREATE INDEX push_outbox_due ON push_outbox (dead, next_at_ms);
  CREATE INDEX push_outbox_order ON push_outbox (task_pk, config_id, id);
  `,
  // 3: the A2A version a push config was created under, which picks the
  // shape of its webhook payloads (v0.3 clients get v0.3 events).
  `
  ALTER TABLE push_configs ADD COLUMN version TEXT NOT NULL DEFAULT '1.0';
  `,
  // 4: every status change paid for this index; only the start-up recovery
  // read it, and one scan at start is cheaper than an index write per event.
  `
  DROP INDEX tasks_by_bare_state;
  `,
  // 5: ListTasks' totalSize without counting a million rows: per (tenant,
  // agent, state) counters kept by triggers in the same transaction as the
  // change they count (tasks are never deleted).
  `
  CREATE TABLE task_counts (
    tenant TEXT NOT NULL,
    agent TEXT NOT NULL,
    state INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (tenant, agent, state)
  ) WITHOUT ROWID;
  INSERT INTO task_counts (tenant, agent, state, n) SELECT tenant, agent, state, COUNT(*) FROM tasks GROUP BY tenant, agent, state;
  CREATE TRIGGER task_counts_insert AFTER INSERT ON tasks BEGIN
    INSERT INTO task_counts (tenant, agent, state, n) VALUES (NEW.tenant, NEW.agent, NEW.state, 1)
      ON CONFLICT (tenant, agent, state) DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER task_counts_state AFTER UPDATE OF state ON tasks WHEN OLD.state <> NEW.state BEGIN
    UPDATE task_counts SET n = n - 1 WHERE tenant = OLD.tenant AND agent = OLD.agent AND state = OLD.state;
    INSERT INTO task_counts (tenant, agent, state, n) VALUES (NEW.tenant, NEW.agent, NEW.state, 1)
      ON CONFLICT (tenant, agent, state) DO UPDATE SET n = n + 1;
  END;
  `,
  // 6: idempotent sends (§3.3.1): the outcome of every client messageId per
  // (tenant, agent), written in the transaction that stored that outcome, so
  // a retry after a crash still finds the task it created. `fingerprint`
  // tells a retry from a different message that reuses the id.
  `
  CREATE TABLE sent_messages (
    tenant TEXT NOT NULL,
    agent TEXT NOT NULL,
    message_id TEXT NOT NULL,
    fingerprint BLOB NOT NULL,
    task_id TEXT,
    reply BLOB,
    created_ms INTEGER NOT NULL,
    PRIMARY KEY (tenant, agent, message_id)
  ) WITHOUT ROWID;
  `,
  // 7: Idempotency-Key request headers (IETF httpapi draft): the outcome of
  // every key per (tenant, agent), apart from messageIds so that a key and
  // a messageId with the same text never meet.
  `
  CREATE TABLE idempotency_keys (
    tenant TEXT NOT NULL,
    agent TEXT NOT NULL,
    idem_key TEXT NOT NULL,
    fingerprint BLOB NOT NULL,
    task_id TEXT,
    reply BLOB,
    created_ms INTEGER NOT NULL,
    PRIMARY KEY (tenant, agent, idem_key)
  ) WITHOUT ROWID;
  `,
  // 8: push delivery state per (task, config), for the hub's push-delivery-state
  // extension: delivered outbox rows are deleted, so their count lives here,
  // with the last attempt and its last error, settled in the same transaction.
  `
  CREATE TABLE push_delivery_log (
    task_pk INTEGER NOT NULL,
    config_id TEXT NOT NULL,
    delivered INTEGER NOT NULL DEFAULT 0,
    last_attempt_ms INTEGER,
    last_error TEXT,
    PRIMARY KEY (task_pk, config_id)
  ) WITHOUT ROWID;
  `,
  // 9: packed rows (encoding/packed-rows.ts): an events row holds the n events
  // from its seq on, an artifact_parts row the n parts from its idx on, as one
  // unit of work wrote them. n = 1 is a row as every row was before.
  `
  ALTER TABLE events ADD COLUMN n INTEGER NOT NULL DEFAULT 1;
  ALTER TABLE artifact_parts ADD COLUMN n INTEGER NOT NULL DEFAULT 1;
  `,
  // 10: the store keeps task_counts itself (task-counts.ts), one write per
  // counter per transaction, rather than a trigger's upsert per task row.
  // The counters stay as the triggers left them, which is right: they ran
  // up to this migration, in the same transactions as the rows they count.
  `
  DROP TRIGGER task_counts_insert;
  DROP TRIGGER task_counts_state;
  `,
  // 11: retention deletes a task's send-ledger entries with it, found by the
  // task they name; only entries that name a task are indexed.
  `
  CREATE INDEX sent_messages_by_task ON sent_messages (tenant, agent, task_id) WHERE task_id IS NOT NULL;
  CREATE INDEX idempotency_keys_by_task ON idempotency_keys (tenant, agent, task_id) WHERE task_id IS NOT NULL;
  `,
];

/** Runs the migrations the database has not seen yet, each in its own transaction. */
export function migrate(db: Database.Database): number {
  const current = db.pragma("user_version", { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new Error(
      `database schema version ${current} is newer than this a2a-hub knows (${MIGRATIONS.length}); refusing to open it`,
    );
  }
  for (let v = current; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    }).immediate();
  }
  return MIGRATIONS.length;
}
