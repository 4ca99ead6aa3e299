import { UNIT_FUNCTION_SQL } from "./migration-2-unit-function.js";
import { RETENTION_SQL } from "./migration-3-retention.js";
import { UNIT_STATEMENT_SQL } from "./migration-4-unit-statement.js";
import { COUNTER_SHARDS_SQL } from "./migration-5-counter-shards.js";
import { CONTEXT_COUNTS_SQL } from "./migration-6-context-counts.js";

/**
 * Forward-only schema migrations of the PostgreSQL store; entry i takes the
 * schema from version i to i + 1 (recorded in `schema_migrations`). Never
 * edit a released entry: append a new one.
 *
 * Version 1 is the schema SQLite's eight migrations leave (see
 * ../sqlite/migrations.ts), in PostgreSQL's types: protobuf binary in
 * bytea, epoch milliseconds and row keys in bigint, flags in boolean.
 * Children hang off the task's `pk`, found through (tenant, agent, id), so
 * no query can cross a tenant boundary.
 *
 * Version 2 adds the function a unit of work was applied by, in one round
 * trip (migration-2-unit-function.ts), and what a fleet shares.
 *
 * Version 3 adds what retention deletes by (migration-3-retention.ts).
 *
 * Version 4 replaces version 2's function and the counters' triggers by
 * one prepared statement per unit (migration-4-unit-statement.ts).
 *
 * Version 5 splits the state counters in shards, so that units on
 * different connections do not queue on one row (migration-5-counter-shards.ts).
 *
 * Version 6 adds a task counter per context, for ListTasks' totals with a
 * contextId filter (migration-6-context-counts.ts).
 */
export const MIGRATIONS: readonly string[] = [
  `
  -- ListTasks orders ties of status_ms by touch; with several replicas writing,
  -- only the database can hand out a touch that grows across all of them.
  CREATE SEQUENCE task_touch AS bigint;

  CREATE TABLE tasks (
    pk bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tenant text NOT NULL,
    agent text NOT NULL,
    id text NOT NULL,
    context_id text NOT NULL,
    state integer NOT NULL,
    status bytea NOT NULL,
    status_ms bigint NOT NULL,
    touch bigint NOT NULL DEFAULT nextval('task_touch'),
    metadata text,
    last_seq integer NOT NULL,
    history_count integer NOT NULL,
    artifact_count integer NOT NULL,
    created_ms bigint NOT NULL,
    UNIQUE (tenant, agent, id)
  );
  CREATE INDEX tasks_by_update ON tasks (tenant, agent, status_ms DESC, touch DESC);
  CREATE INDEX tasks_by_context ON tasks (tenant, agent, context_id, status_ms DESC, touch DESC);
  CREATE INDEX tasks_by_state ON tasks (tenant, agent, state, status_ms DESC, touch DESC);

  CREATE TABLE history (
    task_pk bigint NOT NULL,
    idx integer NOT NULL,
    message bytea NOT NULL,
    PRIMARY KEY (task_pk, idx)
  );

  CREATE TABLE artifacts (
    task_pk bigint NOT NULL,
    artifact_id text NOT NULL,
    ord integer NOT NULL,
    head bytea NOT NULL,
    part_count integer NOT NULL,
    sealed boolean NOT NULL,
    PRIMARY KEY (task_pk, artifact_id)
  );

  CREATE TABLE artifact_parts (
    task_pk bigint NOT NULL,
    artifact_id text NOT NULL,
    idx integer NOT NULL,
    part bytea NOT NULL,
    PRIMARY KEY (task_pk, artifact_id, idx)
  );

  CREATE TABLE events (
    task_pk bigint NOT NULL,
    seq integer NOT NULL,
    event bytea NOT NULL,
    PRIMARY KEY (task_pk, seq)
  );

  -- version: the A2A version the config was created under, which picks the
  -- shape of its webhook payloads (v0.3 clients get v0.3 events).
  CREATE TABLE push_configs (
    task_pk bigint NOT NULL,
    id text NOT NULL,
    config bytea NOT NULL,
    created_ms bigint NOT NULL,
    version text NOT NULL DEFAULT '1.0',
    PRIMARY KEY (task_pk, id)
  );

  -- The push outbox (§3.5.3): one row per (event, config) written in the
  -- event's transaction; the event body stays in events. kind 0 = a logged
  -- event, kind 1 = the final Task snapshot after a terminal state.
  CREATE TABLE push_outbox (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    task_pk bigint NOT NULL,
    config_id text NOT NULL,
    seq integer NOT NULL,
    kind smallint NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    next_at_ms bigint NOT NULL,
    dead boolean NOT NULL DEFAULT false,
    last_error text
  );
  -- Only live rows are ever looked for by due time: dead ones stay out of the index.
  CREATE INDEX push_outbox_due ON push_outbox (next_at_ms) WHERE NOT dead;
  CREATE INDEX push_outbox_order ON push_outbox (task_pk, config_id, id);

  -- ListTasks' totalSize without counting a million rows: per (tenant, agent,
  -- state) counters kept by triggers in the transaction of the change they
  -- count (tasks are never deleted).
  CREATE TABLE task_counts (
    tenant text NOT NULL,
    agent text NOT NULL,
    state integer NOT NULL,
    n bigint NOT NULL,
    PRIMARY KEY (tenant, agent, state)
  );
  CREATE FUNCTION task_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO task_counts (tenant, agent, state, n) VALUES (NEW.tenant, NEW.agent, NEW.state, 1)
      ON CONFLICT (tenant, agent, state) DO UPDATE SET n = task_counts.n + 1;
    RETURN NULL;
  END $$;
  CREATE FUNCTION task_counts_state() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE task_counts SET n = n - 1 WHERE tenant = OLD.tenant AND agent = OLD.agent AND state = OLD.state;
    INSERT INTO task_counts (tenant, agent, state, n) VALUES (NEW.tenant, NEW.agent, NEW.state, 1)
      ON CONFLICT (tenant, agent, state) DO UPDATE SET n = task_counts.n + 1;
    RETURN NULL;
  END $$;
  CREATE TRIGGER task_counts_insert AFTER INSERT ON tasks
    FOR EACH ROW EXECUTE FUNCTION task_counts_insert();
  CREATE TRIGGER task_counts_state AFTER UPDATE OF state ON tasks
    FOR EACH ROW WHEN (OLD.state <> NEW.state) EXECUTE FUNCTION task_counts_state();

  -- Idempotent sends (§3.3.1): the outcome of every client messageId per
  -- (tenant, agent), written in the transaction that stored that outcome;
  -- fingerprint tells a retry from a different message reusing the id.
  CREATE TABLE sent_messages (
    tenant text NOT NULL,
    agent text NOT NULL,
    message_id text NOT NULL,
    fingerprint bytea NOT NULL,
    task_id text,
    reply bytea,
    created_ms bigint NOT NULL,
    PRIMARY KEY (tenant, agent, message_id)
  );

  -- Idempotency-Key request headers (IETF httpapi draft), apart from
  -- messageIds so that a key and a messageId with the same text never meet.
  CREATE TABLE idempotency_keys (
    tenant text NOT NULL,
    agent text NOT NULL,
    idem_key text NOT NULL,
    fingerprint bytea NOT NULL,
    task_id text,
    reply bytea,
    created_ms bigint NOT NULL,
    PRIMARY KEY (tenant, agent, idem_key)
  );

  -- Push delivery state per (task, config): delivered outbox rows are
  -- deleted, so their count lives here, settled in the same transaction.
  CREATE TABLE push_delivery_log (
    task_pk bigint NOT NULL,
    config_id text NOT NULL,
    delivered bigint NOT NULL DEFAULT 0,
    last_attempt_ms bigint,
    last_error text,
    PRIMARY KEY (task_pk, config_id)
  );
  `,
  UNIT_FUNCTION_SQL,
  RETENTION_SQL,
  UNIT_STATEMENT_SQL,
  COUNTER_SHARDS_SQL,
  CONTEXT_COUNTS_SQL,
];
