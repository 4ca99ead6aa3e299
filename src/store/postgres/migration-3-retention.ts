/**
 * The function retention calls: `create` how it is made (CREATE, or
 * CREATE OR REPLACE in a later schema), `lockOrder` the order the scope's
 * counter rows are locked in (the units' order), `uncount` the statement
 * taking the deleted tasks off the counters (over `doomed`).
 */
export function deleteExpiredFunction(create: string, lockOrder: string, uncount: string): string {
  return `
  ${create} a2a_delete_expired(p_tenant text, p_agent text, p_ids text[],
                                     terminal integer[], terminal_before bigint,
                                     interrupted integer[], interrupted_before bigint) RETURNS SETOF text LANGUAGE plpgsql AS $$
  BEGIN
    IF NOT pg_try_advisory_xact_lock(27358465695970659) THEN
      RETURN;
    END IF;
    PERFORM 1 FROM task_counts c WHERE c.tenant = p_tenant AND c.agent = p_agent ORDER BY ${lockOrder} FOR UPDATE;
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
    k AS (${uncount}),
    gone AS (DELETE FROM tasks x USING doomed d WHERE x.pk = d.pk RETURNING x.id)
    SELECT gone.id FROM gone;
  END $$;
`;
}

/**
 * Schema version 3: what retention needs. Ledger entries are found by the
 * task they name; `a2a_delete_expired` deletes a batch of one scope's
 * expired tasks with every row of theirs in one statement.
 *
 * One replica deletes at a time: the function takes a transaction-level
 * advisory lock with pg_try (another replica's call meanwhile deletes
 * nothing and returns at once). The scope's state counters are locked
 * first, in the order units lock them (by state), then the tasks with SKIP
 * LOCKED: a task a unit is writing now is left for the next batch, and the
 * two never wait on each other in opposite orders. The conditions are read
 * again under those locks: a task touched since it was found, or that owes
 * a webhook (an outbox row neither delivered nor dead), stays.
 */
export const RETENTION_SQL = `
  CREATE INDEX sent_messages_by_task ON sent_messages (tenant, agent, task_id) WHERE task_id IS NOT NULL;
  CREATE INDEX idempotency_keys_by_task ON idempotency_keys (tenant, agent, task_id) WHERE task_id IS NOT NULL;
${deleteExpiredFunction(
  "CREATE FUNCTION",
  "c.tenant, c.agent, c.state",
  `UPDATE task_counts x SET n = x.n - g.n FROM (SELECT state, COUNT(*) AS n FROM doomed GROUP BY state) g
          WHERE x.tenant = p_tenant AND x.agent = p_agent AND x.state = g.state`,
)}`;
