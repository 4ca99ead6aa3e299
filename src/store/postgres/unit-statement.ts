import { IN_FLIGHT_SQL } from "../task-states.js";

/**
 * A unit of work as one prepared statement: the unit's rows go in as typed
 * arrays, one per column (pending-unit.ts), and every table is written by
 * one data-modifying CTE over them, so a unit costs one round trip, one
 * plan (prepared once per connection) and no procedural code. Why not the
 * PL/pgSQL function of schema 2: it parsed jsonb ops and ran a statement
 * per op and row, which cost the database five times a whole pgbench
 * transaction per SendMessage (docs/postgres-throughput.md).
 *
 * Parameters: $1 now (ms), $2 history kept per task (NULL: all), $3 this
 * replica (NULL: a hub alone), then the arrays, by table:
 *   tasks    $4-$16: tenant, agent, id, new, context, metadata, prev (the
 *            fence: the last seq the store predicted the log holds, NULL
 *            when the unit logs no event on it), last (its last seq after
 *            the unit), moved (a status was written), state, status,
 *            status ms, the wake-up payload (NULL: none)
 *   history  $17-$19: task (1-based), ordinal within the task's new messages, message
 *   events   $20-$24: task, seq, event, terminal, position (NULL: no delivery owed)
 *   artifacts $25-$31: task, id, replace, ord, head, part count, sealed
 *   parts    $32-$34: artifact (1-based), ordinal, part
 *   sent     $35-$41: by idempotency key, tenant, agent, key, fingerprint, task id, reply
 *   configs  $42-$46: task, id, config, version, position
 *
 * The fence: every task the unit logs events on is locked (FOR UPDATE, in
 * pk order) and its last_seq must be `prev`, and in a fleet a task in
 * flight must be this replica's (a sweep claims a dead replica's tasks
 * before it fails them, so a statement the dead one sent, still running
 * in the database, cannot land after the claim), or a2a_unit_refused raises
 * A2F01 and nothing of the unit is stored; each child row joins the
 * checked row of its task, so no child is written before its task passed.
 * ListTasks' state counters move by trigger (schema 1, one statement each
 * since schema 4, in the connection's shard since schema 5); NOTIFY wakes
 * other replicas' readers at commit.
 */
export const UNIT_SQL = `WITH
i AS MATERIALIZED (
  SELECT * FROM unnest($4::text[], $5::text[], $6::text[], $7::boolean[], $8::text[], $9::text[], $10::integer[], $11::integer[],
                       $12::boolean[], $13::integer[], $14::bytea[], $15::bigint[], $16::text[])
    WITH ORDINALITY AS i(tenant, agent, id, is_new, ctx, md, prev, last, moved, state, status, status_ms, notify, n)),
h AS MATERIALIZED (SELECT * FROM unnest($17::integer[], $18::integer[], $19::bytea[]) AS h(n, ord, message)),
e AS MATERIALIZED (SELECT * FROM unnest($20::integer[], $21::integer[], $22::bytea[], $23::boolean[], $24::integer[]) AS e(n, seq, event, term, pos)),
a AS MATERIALIZED (
  SELECT * FROM unnest($25::integer[], $26::text[], $27::boolean[], $28::integer[], $29::bytea[], $30::integer[], $31::boolean[])
    WITH ORDINALITY AS a(n, id, replace, ord, head, nparts, sealed, j)),
c AS MATERIALIZED (SELECT * FROM unnest($42::integer[], $43::text[], $44::bytea[], $45::text[], $46::integer[]) AS c(n, id, config, version, pos)),
old AS (
  SELECT i.n, t.pk, t.last_seq, t.state, t.owner, t.history_count FROM i JOIN tasks t ON t.tenant = i.tenant AND t.agent = i.agent AND t.id = i.id
  WHERE NOT i.is_new ORDER BY t.pk FOR UPDATE OF t),
fresh AS MATERIALIZED (SELECT i.n, nextval(pg_get_serial_sequence('tasks', 'pk')) AS pk FROM i WHERE i.is_new),
added AS (SELECT n, count(*)::integer AS added FROM h GROUP BY n),
-- The counter rows the unit's tasks move (by trigger), those of its connection's shard (schema 5), are shared with
-- any unit on a connection of the same shard: taken in one order, after the unit's tasks and before any of its
-- writes, so that two such units queue on them rather than deadlock.
counters AS (
  SELECT 1 FROM task_counts c JOIN (SELECT DISTINCT tenant, agent FROM i WHERE i.is_new OR i.moved) s ON c.tenant = s.tenant AND c.agent = s.agent
  WHERE c.shard = a2a_counter_shard() ORDER BY c.tenant, c.agent, c.state FOR UPDATE OF c),
k AS MATERIALIZED (
  SELECT i.*, COALESCE(o.pk, f.pk) AS pk, (SELECT count(*) FROM counters) AS counters, COALESCE(o.history_count, 0) AS hc, COALESCE(d.added, 0) AS added,
    CASE
      WHEN NOT i.is_new AND o.pk IS NULL THEN a2a_unit_refused(format('store: task %s not found in scope %s/%s', i.id, i.tenant, i.agent))
      WHEN i.prev IS NOT NULL AND o.last_seq <> i.prev
        THEN a2a_unit_refused(format('store: task %s was written elsewhere: event %s was predicted, the log holds %s events', i.id, i.prev + 1, o.last_seq))
      WHEN i.prev IS NOT NULL AND $3::text IS NOT NULL AND o.owner <> $3::text AND o.state IN (${IN_FLIGHT_SQL})
        THEN a2a_unit_refused(format('store: task %s is run by replica %s since this one''s lease ran out', i.id, o.owner))
    END AS refused
  FROM i LEFT JOIN old o ON o.n = i.n LEFT JOIN fresh f ON f.n = i.n LEFT JOIN added d ON d.n = i.n),
hist AS (
  INSERT INTO history (task_pk, idx, message)
  SELECT k.pk, k.hc + h.ord - 1, h.message FROM h JOIN k ON k.n = h.n
  WHERE $2::integer IS NULL OR h.ord > k.added - $2::integer),
trimmed AS (
  DELETE FROM history x USING k
  WHERE $2::integer IS NOT NULL AND k.added > 0 AND NOT k.is_new AND x.task_pk = k.pk AND x.idx < k.hc + k.added - $2::integer),
logged AS (INSERT INTO events (task_pk, seq, event) SELECT k.pk, e.seq, e.event FROM e JOIN k ON k.n = e.n),
configs AS (
  INSERT INTO push_configs (task_pk, id, config, created_ms, version) SELECT k.pk, c.id, c.config, $1, c.version FROM c JOIN k ON k.n = c.n
  ON CONFLICT (task_pk, id) DO UPDATE SET config = excluded.config, version = excluded.version),
owed AS (
  INSERT INTO push_outbox (task_pk, config_id, seq, kind, next_at_ms)
  SELECT x.pk, x.id, x.seq, x.kind, $1 FROM (
    SELECT k.pk, g.id, g.created_ms, e.seq, kind
    FROM e JOIN k ON k.n = e.n
    CROSS JOIN LATERAL (
      SELECT p.id, p.created_ms FROM push_configs p WHERE p.task_pk = k.pk
      UNION ALL
      SELECT c.id, $1 FROM c WHERE c.n = e.n AND c.pos < e.pos AND NOT EXISTS (SELECT 1 FROM push_configs p WHERE p.task_pk = k.pk AND p.id = c.id)) g
    CROSS JOIN LATERAL (VALUES (0), (1)) v(kind)
    WHERE e.pos IS NOT NULL AND (v.kind = 0 OR e.term)) x
  ORDER BY x.seq, x.kind, x.created_ms, x.id
  RETURNING 1),
replaced AS (
  INSERT INTO artifacts AS x (task_pk, artifact_id, ord, head, part_count, sealed)
  SELECT k.pk, a.id, a.ord, a.head, a.nparts, a.sealed FROM a JOIN k ON k.n = a.n WHERE a.replace
  ON CONFLICT (task_pk, artifact_id) DO UPDATE SET head = excluded.head, part_count = excluded.part_count, sealed = excluded.sealed
  RETURNING x.task_pk, x.artifact_id, 0 AS first, x.xmax = 0 AS created),
appended AS (
  INSERT INTO artifacts AS x (task_pk, artifact_id, ord, head, part_count, sealed)
  SELECT k.pk, a.id, a.ord, a.head, a.nparts, a.sealed FROM a JOIN k ON k.n = a.n WHERE NOT a.replace
  ON CONFLICT (task_pk, artifact_id) DO UPDATE SET part_count = x.part_count + excluded.part_count, sealed = x.sealed OR excluded.sealed
  RETURNING x.task_pk, x.artifact_id, x.part_count, x.xmax = 0 AS created),
arts AS (
  SELECT a.j, r.task_pk, a.id, r.first, r.created FROM replaced r JOIN k ON k.pk = r.task_pk JOIN a ON a.n = k.n AND a.id = r.artifact_id
  UNION ALL
  SELECT a.j, r.task_pk, a.id, r.part_count - a.nparts, r.created FROM appended r JOIN k ON k.pk = r.task_pk JOIN a ON a.n = k.n AND a.id = r.artifact_id),
cut AS (
  DELETE FROM artifact_parts x USING a JOIN k ON k.n = a.n
  WHERE a.replace AND x.task_pk = k.pk AND x.artifact_id = a.id AND x.idx >= a.nparts),
parts AS (
  INSERT INTO artifact_parts (task_pk, artifact_id, idx, part)
  SELECT r.task_pk, r.id, r.first + p.ord - 1, p.part FROM unnest($32::integer[], $33::integer[], $34::bytea[]) AS p(j, ord, part) JOIN arts r ON r.j = p.j
  ON CONFLICT (task_pk, artifact_id, idx) DO UPDATE SET part = excluded.part),
new_arts AS (SELECT task_pk, count(*) FILTER (WHERE created)::integer AS n FROM arts GROUP BY task_pk),
inserted AS (
  INSERT INTO tasks (pk, tenant, agent, id, context_id, state, status, status_ms, metadata, last_seq, history_count, artifact_count, created_ms, owner)
  OVERRIDING SYSTEM VALUE
  SELECT k.pk, k.tenant, k.agent, k.id, k.ctx, k.state, k.status, k.status_ms, k.md, k.last, k.added, COALESCE(na.n, 0), $1,
    CASE WHEN NOT k.moved OR k.state IN (${IN_FLIGHT_SQL}) THEN $3::text END
  FROM k LEFT JOIN new_arts na ON na.task_pk = k.pk WHERE k.is_new),
updated AS (
  UPDATE tasks t SET
    state = CASE WHEN k.moved THEN k.state ELSE t.state END,
    status = CASE WHEN k.moved THEN k.status ELSE t.status END,
    status_ms = CASE WHEN k.moved THEN k.status_ms ELSE t.status_ms END,
    touch = CASE WHEN k.moved THEN nextval('task_touch') ELSE t.touch END,
    -- §3.2.2: a run holds its task until the task settles (terminal, or interrupted for input or auth).
    owner = CASE WHEN NOT k.moved THEN t.owner WHEN k.state IN (${IN_FLIGHT_SQL}) THEN $3::text END,
    last_seq = COALESCE(k.last, t.last_seq),
    history_count = t.history_count + k.added,
    artifact_count = t.artifact_count + COALESCE(na.n, 0)
  FROM k LEFT JOIN new_arts na ON na.task_pk = k.pk
  WHERE t.pk = k.pk AND NOT k.is_new AND (k.moved OR k.last IS NOT NULL OR k.added > 0 OR na.n > 0)),
sent AS (
  SELECT * FROM unnest($35::boolean[], $36::text[], $37::text[], $38::text[], $39::bytea[], $40::text[], $41::bytea[])
    AS s(idem, tenant, agent, key, fingerprint, task_id, reply)),
ledger AS (
  INSERT INTO sent_messages (tenant, agent, message_id, fingerprint, task_id, reply, created_ms)
  SELECT s.tenant, s.agent, s.key, s.fingerprint, s.task_id, s.reply, $1 FROM sent s WHERE NOT s.idem
  ON CONFLICT (tenant, agent, message_id) DO NOTHING),
keys AS (
  INSERT INTO idempotency_keys (tenant, agent, idem_key, fingerprint, task_id, reply, created_ms)
  SELECT s.tenant, s.agent, s.key, s.fingerprint, s.task_id, s.reply, $1 FROM sent s WHERE s.idem
  ON CONFLICT (tenant, agent, idem_key) DO NOTHING),
woken AS MATERIALIZED (SELECT pg_notify('a2a_events', k.notify) FROM k WHERE k.notify IS NOT NULL)
SELECT (SELECT count(*) FROM k WHERE k.refused) AS refused, (SELECT count(*) FROM woken) AS woken, EXISTS (SELECT 1 FROM owed) AS pushed`;
