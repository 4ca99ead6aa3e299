/**
 * Schema version 6: ListTasks' total for a context (§3.1.4 totalSize with a
 * contextId filter) from a counter per (tenant, agent, context), as the
 * scope's total comes from `task_counts`, instead of counting the
 * context's rows on every page: at a million tasks, 10,000 of them in one
 * context, that count was most of the database's time for the page.
 *
 * The counter moves in the transaction of the change it counts: the
 * insert trigger of `task_counts` adds to it, and a statement-level delete
 * trigger (retention's deletes) takes away, dropping a context's row once
 * it counts nothing. A task never changes context, so state changes leave
 * it alone. Retention takes every shard of the scope's `task_counts` rows
 * first, so it and a unit never meet here in opposite orders. Two units on
 * connections of different shards that both create tasks in the same two
 * contexts, in opposite orders, can deadlock on these rows: the server
 * rolls one back and the store sends it again (driver-errors.ts,
 * conflictRolledBack); new tasks keep their write order, which ListTasks'
 * touch order follows. The insert trigger counts states in the
 * connection's shard, as schema 5's does.
 *
 * The tasks table is locked against writes while the counters are filled,
 * so that a hub still writing with the old trigger loses no count.
 */
export const CONTEXT_COUNTS_SQL = `
  LOCK TABLE tasks IN SHARE MODE;
  CREATE TABLE task_context_counts (
    tenant text NOT NULL,
    agent text NOT NULL,
    context_id text NOT NULL,
    n bigint NOT NULL,
    PRIMARY KEY (tenant, agent, context_id)
  );
  INSERT INTO task_context_counts (tenant, agent, context_id, n)
    SELECT tenant, agent, context_id, COUNT(*) FROM tasks GROUP BY tenant, agent, context_id;

  CREATE OR REPLACE FUNCTION task_counts_insert() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO task_counts (tenant, agent, state, shard, n) VALUES (NEW.tenant, NEW.agent, NEW.state, a2a_counter_shard(), 1)
      ON CONFLICT (tenant, agent, state, shard) DO UPDATE SET n = task_counts.n + 1;
    INSERT INTO task_context_counts (tenant, agent, context_id, n) VALUES (NEW.tenant, NEW.agent, NEW.context_id, 1)
      ON CONFLICT (tenant, agent, context_id) DO UPDATE SET n = task_context_counts.n + 1;
    RETURN NULL;
  END $$;

  CREATE FUNCTION task_context_counts_delete() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    WITH g AS (SELECT tenant, agent, context_id, COUNT(*) AS n FROM gone GROUP BY tenant, agent, context_id),
    emptied AS (
      DELETE FROM task_context_counts x USING g
      WHERE x.tenant = g.tenant AND x.agent = g.agent AND x.context_id = g.context_id AND x.n <= g.n)
    UPDATE task_context_counts x SET n = x.n - g.n FROM g
    WHERE x.tenant = g.tenant AND x.agent = g.agent AND x.context_id = g.context_id AND x.n > g.n;
    RETURN NULL;
  END $$;
  CREATE TRIGGER task_context_counts_delete AFTER DELETE ON tasks
    REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION task_context_counts_delete();
`;
