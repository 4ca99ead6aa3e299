/**
 * Schema version 4: units of work are applied by one prepared statement
 * (unit-statement.ts) instead of schema 2's PL/pgSQL function, and that
 * statement moves ListTasks' state counters itself, once per unit, instead
 * of a trigger per row. Schema 2's function and its helpers are dropped: a
 * hub of an older version still running on this database fails its units
 * loudly rather than write tasks whose counters nobody moves.
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
  DROP TRIGGER task_counts_insert ON tasks;
  DROP TRIGGER task_counts_state ON tasks;
  DROP FUNCTION task_counts_insert();
  DROP FUNCTION task_counts_state();

  -- SQLSTATE A2F01: nothing of the unit is stored (the store tells a fence from other errors by it).
  CREATE FUNCTION a2a_unit_refused(message text) RETURNS boolean LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION '%', message USING ERRCODE = 'A2F01';
  END $$;
`;
