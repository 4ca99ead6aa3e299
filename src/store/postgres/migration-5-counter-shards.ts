import { deleteExpiredFunction } from "./migration-3-retention.js";

/**
 * Schema version 5: ListTasks' state counters split in shards. Every unit
 * that creates a task or moves its state updates its agent's counter
 * rows, and holds them until it commits: one row per (tenant, agent,
 * state) made the units of every replica of a fleet wait for each other
 * there, one after the other (docs/postgres-throughput.md). A unit now
 * counts in the shard of the connection it runs on (its backend's pid),
 * so units on different connections meet on a row only when their pids
 * fall in the same shard; the totals are the sums over the shards, which
 * ListTasks already reads with SUM (task-list.ts).
 *
 * Counting is unchanged otherwise: a shard's row may go below zero (a
 * task created on one connection and finished on another), never their
 * sum. Retention, which locks the scope's rows before it deletes, locks
 * every shard's in the same order units lock theirs (state, then shard),
 * and takes what it deletes off its own shard.
 */

export const COUNTER_SHARDS = 8;

export const COUNTER_SHARDS_SQL = `
  ALTER TABLE task_counts ADD COLUMN shard smallint NOT NULL DEFAULT 0;
  ALTER TABLE task_counts DROP CONSTRAINT task_counts_pkey;
  ALTER TABLE task_counts ADD PRIMARY KEY (tenant, agent, state, shard);

  CREATE FUNCTION a2a_counter_shard() RETURNS smallint LANGUAGE sql STABLE PARALLEL SAFE AS
    'SELECT (pg_backend_pid() % ${COUNTER_SHARDS})::smallint';

  CREATE OR REPLACE FUNCTION task_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO task_counts (tenant, agent, state, shard, n) VALUES (NEW.tenant, NEW.agent, NEW.state, a2a_counter_shard(), 1)
      ON CONFLICT (tenant, agent, state, shard) DO UPDATE SET n = task_counts.n + 1;
    RETURN NULL;
  END $$;

  CREATE OR REPLACE FUNCTION task_counts_state() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO task_counts (tenant, agent, state, shard, n)
      VALUES (OLD.tenant, OLD.agent, OLD.state, a2a_counter_shard(), -1), (NEW.tenant, NEW.agent, NEW.state, a2a_counter_shard(), 1)
      ON CONFLICT (tenant, agent, state, shard) DO UPDATE SET n = task_counts.n + excluded.n;
    RETURN NULL;
  END $$;

${deleteExpiredFunction(
  "CREATE OR REPLACE FUNCTION",
  "c.tenant, c.agent, c.state, c.shard",
  `INSERT INTO task_counts (tenant, agent, state, shard, n)
          SELECT p_tenant, p_agent, state, a2a_counter_shard(), -COUNT(*) FROM doomed GROUP BY state
          ON CONFLICT (tenant, agent, state, shard) DO UPDATE SET n = task_counts.n + excluded.n`,
)}`;
