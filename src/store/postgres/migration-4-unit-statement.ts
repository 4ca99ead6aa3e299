/**
 * Schema version 4: units of work are applied by one prepared statement
 * (unit-statement.ts) instead of schema 2's PL/pgSQL function, which is
 * dropped with its helpers (a hub of an older version still running on
 * this database fails its units loudly). The state counters' trigger moves
 * both rows of a state change in one statement instead of two.
 *
 * What the statement cannot say in SQL, refusing a unit (the fence, a task
 * that is not there), is the one function left: raised only then.
 */
export const UNIT_STATEMENT_SQL = `
  DROP FUNCTION a2a_apply_unit(jsonb, bytea[], bigint, integer, text);
  DROP FUNCTION a2a_write_task(tasks, boolean, boolean);
  DROP FUNCTION a2a_notify_events(tasks, integer, text);
  DROP FUNCTION a2a_enqueue_push(bigint, integer, boolean, bigint);
  DROP FUNCTION a2a_add_history(bigint, integer, bytea, integer);
  DROP FUNCTION a2a_fence_failed(text, integer, integer);
  CREATE OR REPLACE FUNCTION task_counts_state() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO task_counts (tenant, agent, state, n) VALUES (OLD.tenant, OLD.agent, OLD.state, -1), (NEW.tenant, NEW.agent, NEW.state, 1)
      ON CONFLICT (tenant, agent, state) DO UPDATE SET n = task_counts.n + excluded.n;
    RETURN NULL;
  END $$;

  -- SQLSTATE A2F01: nothing of the unit is stored (the store tells a fence from other errors by it).
  CREATE FUNCTION a2a_unit_refused(message text) RETURNS boolean LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION '%', message USING ERRCODE = 'A2F01';
  END $$;
`;
