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

  CREATE OR REPLACE FUNCTION a2a_delete_expired(p_tenant text, p_agent text, p_ids text[],
                                     terminal integer[], terminal_before bigint,
                                     interrupted integer[], interrupted_before bigint) RETURNS SETOF text LANGUAGE plpgsql AS $$
  BEGIN
    IF NOT pg_try_advisory_xact_lock(27358465695970659) THEN
      RETURN;
    END IF;
    PERFORM 1 FROM task_counts c WHERE c.tenant = p_tenant AND c.agent = p_agent ORDER BY c.tenant, c.agent, c.state, c.shard FOR UPDATE;
    RETURN QUERY
    WITH doomed AS (
      SELECT t.pk, t.id, t.state FROM tasks t
      WHERE t.tenant = p_tenant AND t.agent = p_agent AND t.id = ANY (p_ids)
        AND ((t.state = ANY (terminal) AND t.status_ms < terminal_before) OR (t.state = ANY (interrupted) AND t.status_ms < interrupted_before))
        AND NOT EXISTS (SELECT 1 FROM push_outbox o WHERE o.task_pk = t.pk AND NOT o.dead)
      FOR UPDATE OF t SKIP LOCKED
    ),
    h AS (DELETE FROM history x USING doomed d WHERE x.task_pk = d.pk),
    a AS (DELETE FROM artifacts x USING doomed d WHERE x.task_pk = d.pk),
    p AS (DELETE FROM artifact_parts x USING doomed d WHERE x.task_pk = d.pk),
    e AS (DELETE FROM events x USING doomed d WHERE x.task_pk = d.pk),
    c AS (DELETE FROM push_configs x USING doomed d WHERE x.task_pk = d.pk),
    o AS (DELETE FROM push_outbox x USING doomed d WHERE x.task_pk = d.pk),
    l AS (DELETE FROM push_delivery_log x USING doomed d WHERE x.task_pk = d.pk),
    s AS (DELETE FROM sent_messages x USING doomed d WHERE x.tenant = p_tenant AND x.agent = p_agent AND x.task_id = d.id),
    i AS (DELETE FROM idempotency_keys x USING doomed d WHERE x.tenant = p_tenant AND x.agent = p_agent AND x.task_id = d.id),
    k AS (INSERT INTO task_counts (tenant, agent, state, shard, n)
          SELECT p_tenant, p_agent, state, a2a_counter_shard(), -COUNT(*) FROM doomed GROUP BY state
          ON CONFLICT (tenant, agent, state, shard) DO UPDATE SET n = task_counts.n + excluded.n),
    gone AS (DELETE FROM tasks x USING doomed d WHERE x.pk = d.pk RETURNING x.id)
    SELECT gone.id FROM gone;
  END $$;
`;
