import { IN_FLIGHT_SQL } from "../task-states.js";

/**
 * Schema version 2: `a2a_apply_unit`, the server side of a unit of work.
 * node-postgres sends one query at a time, so BEGIN, a dozen statements and
 * COMMIT would cost a round trip each; a unit is instead one call of this
 * function (one statement, hence one transaction): the write intents as a
 * jsonb array, the encoded protobuf rows beside them in a bytea array (ops
 * name them by 1-based index), applied in order. Every event write carries
 * the seq the store predicted for it and is fenced on it: the task's
 * last_seq must be that seq - 1, or the whole unit rolls back (SQLSTATE
 * A2F01), so no event is ever stored under a seq anyone was not told.
 *
 * Like the SQLite store's records, a task row is written once per run of
 * ops on it, not once per op: the task the ops are on is held in
 * variables (loaded FOR UPDATE, or new) and written when the ops move to
 * another task or end. A new task's row is inserted as it ends up (the
 * state counters never see a SUBMITTED that was left in the same unit);
 * its children are written first under the key drawn for it.
 *
 * For a fleet (several hubs on one database), the unit also writes who
 * runs each task it wrote (`tasks.owner`: the replica while the task is
 * SUBMITTED or WORKING, none once it settles, §3.2.2) with the task's row,
 * and sends one NOTIFY on `a2a_events` per run of ops on a task that
 * logged events: task, first and last seq, replica. NOTIFY is delivered at
 * commit, in commit order, never for a unit rolled back: readers on other
 * replicas then read those events from the log. A hub alone (no replica id)
 * writes no owner and notifies nobody.
 *
 * Ops (k = kind; t, a, id = tenant, agent, task id):
 *   create:   ctx, md (metadata JSON text or null), st (state), s (status), sm (status ms), h (history blobs), e (event)
 *   history:  m (message)
 *   status:   seq, st, s, sm, m (its message, or null), e, term (a terminal state: the final Task is owed too)
 *   artifact: seq, aid, ap (append), lc (lastChunk), hd (head), p (part blobs), e
 *   sent:     by ("messageId" | "idempotencyKey"), key, fp, tid, r
 *   pushcfg:  cid, c (config), v (version)
 * Returns whether push deliveries were queued (the worker is told after commit).
 */
export const UNIT_FUNCTION_SQL = `
  -- What replicas share (schema 2 carries the fleet with the unit function): each running hub's
  -- lease, judged by the database clock; the replica running each task in flight; claims on push
  -- deliveries, so that one replica posts each and another takes over a claim that ran out.
  CREATE TABLE replicas (
    id text PRIMARY KEY,
    started_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL
  );
  ALTER TABLE tasks ADD COLUMN owner text;
  CREATE INDEX tasks_in_flight ON tasks (owner) WHERE state IN (${IN_FLIGHT_SQL});
  ALTER TABLE push_outbox ADD COLUMN claimed_by text, ADD COLUMN claim_until_ms bigint;

  CREATE FUNCTION a2a_fence_failed(p_id text, p_seq integer, p_held integer) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION 'store: task % was written elsewhere: event % was predicted, the log holds % events', p_id, p_seq, p_held
      USING ERRCODE = 'A2F01';
  END $$;

  -- The history kept per task is bounded: the oldest messages make room for new ones.
  CREATE FUNCTION a2a_add_history(p_pk bigint, p_idx integer, p_message bytea, max_history integer) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO history (task_pk, idx, message) VALUES (p_pk, p_idx, p_message);
    IF max_history IS NOT NULL AND p_idx - max_history >= 0 THEN
      DELETE FROM history WHERE task_pk = p_pk AND idx <= p_idx - max_history;
    END IF;
  END $$;

  -- §3.5.3: one delivery per config in the event's transaction, and after a terminal state the final Task too.
  CREATE FUNCTION a2a_enqueue_push(p_pk bigint, p_seq integer, terminal boolean, now_ms bigint) RETURNS boolean LANGUAGE plpgsql AS $$
  DECLARE
    n integer;
  BEGIN
    INSERT INTO push_outbox (task_pk, config_id, seq, kind, next_at_ms) SELECT p_pk, id, p_seq, 0, now_ms FROM push_configs WHERE task_pk = p_pk ORDER BY created_ms, id;
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n = 0 THEN
      RETURN false;
    END IF;
    IF terminal THEN
      INSERT INTO push_outbox (task_pk, config_id, seq, kind, next_at_ms) SELECT p_pk, id, p_seq, 1, now_ms FROM push_configs WHERE task_pk = p_pk ORDER BY created_ms, id;
    END IF;
    RETURN true;
  END $$;

  -- Writes the held task's row: inserted when new, else only the columns that moved (the status
  -- columns carry three indexes and the state counters; touch orders ListTasks' ties).
  CREATE FUNCTION a2a_write_task(t tasks, is_new boolean, status_changed boolean) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    IF is_new THEN
      INSERT INTO tasks (pk, tenant, agent, id, context_id, state, status, status_ms, metadata, last_seq, history_count, artifact_count, created_ms, owner)
      OVERRIDING SYSTEM VALUE
      VALUES (t.pk, t.tenant, t.agent, t.id, t.context_id, t.state, t.status, t.status_ms, t.metadata, t.last_seq, t.history_count, t.artifact_count, t.created_ms, t.owner);
    ELSIF status_changed THEN
      UPDATE tasks SET state = t.state, status = t.status, status_ms = t.status_ms, touch = nextval('task_touch'),
                       last_seq = t.last_seq, history_count = t.history_count, artifact_count = t.artifact_count, owner = t.owner
        WHERE pk = t.pk;
    ELSE
      UPDATE tasks SET last_seq = t.last_seq, history_count = t.history_count, artifact_count = t.artifact_count WHERE pk = t.pk;
    END IF;
  END $$;

  -- Wakes the other replicas' readers of a task: the events this unit logged on it, first to last.
  CREATE FUNCTION a2a_notify_events(t tasks, first_seq integer, replica text) RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    IF replica IS NOT NULL AND first_seq IS NOT NULL THEN
      PERFORM pg_notify('a2a_events', json_build_object('t', t.tenant, 'a', t.agent, 'id', t.id, 'f', first_seq, 'l', t.last_seq, 'r', replica)::text);
    END IF;
  END $$;

  CREATE FUNCTION a2a_apply_unit(ops jsonb, blobs bytea[], now_ms bigint, max_history integer, replica text) RETURNS boolean LANGUAGE plpgsql AS $$
  DECLARE
    op jsonb;
    k text;
    -- The task the ops are on now, as it stands; written when they move on.
    held tasks;
    is_held boolean := false;
    is_new boolean := false;
    status_changed boolean := false;
    -- The first event the unit logged on the held task (NULL: none yet).
    first_seq integer;
    v_seq integer;
    v_first integer;
    v_created boolean;
    v_blob integer;
    pushed boolean := false;
  BEGIN
    -- The counter rows a unit moves (task_counts, by trigger) are shared by every replica: taken
    -- up front in one order, whatever order the ops come in, so two replicas' units never deadlock.
    PERFORM 1 FROM task_counts c
      WHERE (c.tenant, c.agent) IN (SELECT DISTINCT o->>'t', o->>'a' FROM jsonb_array_elements(ops) o WHERE o->>'k' IN ('create', 'status'))
      ORDER BY c.tenant, c.agent, c.state FOR UPDATE;
    FOR op IN SELECT value FROM jsonb_array_elements(ops) WITH ORDINALITY AS o(value, ord) ORDER BY ord LOOP
      k := op->>'k';
      -- A create always starts a task of its own: the same id twice must meet the table's unique key.
      IF k = 'create' OR k IN ('history', 'status', 'artifact', 'pushcfg')
         AND NOT (is_held AND held.id = op->>'id' AND held.tenant = op->>'t' AND held.agent = op->>'a') THEN
        IF is_held THEN
          PERFORM a2a_write_task(held, is_new, status_changed);
          PERFORM a2a_notify_events(held, first_seq, replica);
        END IF;
        is_held := true;
        is_new := false;
        status_changed := false;
        first_seq := NULL;
        IF k <> 'create' THEN
          SELECT * INTO held FROM tasks WHERE tenant = op->>'t' AND agent = op->>'a' AND id = op->>'id' FOR UPDATE;
          IF NOT FOUND THEN
            RAISE EXCEPTION 'store: task % not found in scope %/%', op->>'id', op->>'t', op->>'a' USING ERRCODE = 'A2F01';
          END IF;
        END IF;
      END IF;
      IF k = 'create' THEN
        held := NULL;
        held.pk := nextval(pg_get_serial_sequence('tasks', 'pk'));
        held.tenant := op->>'t';
        held.agent := op->>'a';
        held.id := op->>'id';
        held.context_id := op->>'ctx';
        held.metadata := op->>'md';
        held.state := (op->>'st')::integer;
        held.status := blobs[(op->>'s')::integer];
        held.status_ms := (op->>'sm')::bigint;
        held.last_seq := 1;
        held.history_count := 0;
        held.artifact_count := 0;
        held.created_ms := now_ms;
        held.owner := replica;
        first_seq := 1;
        is_new := true;
        FOR v_blob IN SELECT value::integer FROM jsonb_array_elements_text(op->'h') WITH ORDINALITY AS h(value, ord) ORDER BY ord LOOP
          held.history_count := held.history_count + 1;
          PERFORM a2a_add_history(held.pk, held.history_count - 1, blobs[v_blob], max_history);
        END LOOP;
        -- The creation event is the first of the log; no push config can hang off a task created just now.
        INSERT INTO events (task_pk, seq, event) VALUES (held.pk, 1, blobs[(op->>'e')::integer]);
      ELSIF k = 'history' THEN
        held.history_count := held.history_count + 1;
        PERFORM a2a_add_history(held.pk, held.history_count - 1, blobs[(op->>'m')::integer], max_history);
      ELSIF k = 'status' THEN
        v_seq := (op->>'seq')::integer;
        IF held.last_seq <> v_seq - 1 THEN
          PERFORM a2a_fence_failed(held.id, v_seq, held.last_seq);
        END IF;
        held.state := (op->>'st')::integer;
        held.status := blobs[(op->>'s')::integer];
        held.status_ms := (op->>'sm')::bigint;
        held.last_seq := v_seq;
        first_seq := COALESCE(first_seq, v_seq);
        -- §3.2.2: a run holds its task until the task settles (terminal, or interrupted for input or auth).
        held.owner := CASE WHEN held.state IN (${IN_FLIGHT_SQL}) THEN replica ELSE NULL END;
        status_changed := true;
        IF op->>'m' IS NOT NULL THEN
          held.history_count := held.history_count + 1;
          PERFORM a2a_add_history(held.pk, held.history_count - 1, blobs[(op->>'m')::integer], max_history);
        END IF;
        INSERT INTO events (task_pk, seq, event) VALUES (held.pk, v_seq, blobs[(op->>'e')::integer]);
        IF a2a_enqueue_push(held.pk, v_seq, (op->>'term')::boolean, now_ms) THEN
          pushed := true;
        END IF;
      ELSIF k = 'artifact' THEN
        v_seq := (op->>'seq')::integer;
        IF held.last_seq <> v_seq - 1 THEN
          PERFORM a2a_fence_failed(held.id, v_seq, held.last_seq);
        END IF;
        v_first := 0;
        IF NOT (op->>'ap')::boolean THEN
          -- A new artifact is the common case: one INSERT tells it from a replacement.
          INSERT INTO artifacts (task_pk, artifact_id, ord, head, part_count, sealed)
          VALUES (held.pk, op->>'aid', held.artifact_count + 1, blobs[(op->>'hd')::integer], jsonb_array_length(op->'p'), (op->>'lc')::boolean)
          ON CONFLICT (task_pk, artifact_id) DO NOTHING;
          v_created := FOUND;
          IF NOT v_created THEN
            -- §4.2.2: append false replaces the artifact.
            DELETE FROM artifact_parts WHERE task_pk = held.pk AND artifact_id = op->>'aid';
            UPDATE artifacts SET head = blobs[(op->>'hd')::integer], part_count = jsonb_array_length(op->'p'), sealed = (op->>'lc')::boolean
              WHERE task_pk = held.pk AND artifact_id = op->>'aid';
          END IF;
        ELSE
          UPDATE artifacts SET part_count = part_count + jsonb_array_length(op->'p'), sealed = sealed OR (op->>'lc')::boolean
            WHERE task_pk = held.pk AND artifact_id = op->>'aid'
            RETURNING part_count - jsonb_array_length(op->'p') INTO v_first;
          v_created := NOT FOUND;
          IF v_created THEN
            v_first := 0;
            INSERT INTO artifacts (task_pk, artifact_id, ord, head, part_count, sealed)
            VALUES (held.pk, op->>'aid', held.artifact_count + 1, blobs[(op->>'hd')::integer], jsonb_array_length(op->'p'), (op->>'lc')::boolean);
          END IF;
        END IF;
        INSERT INTO artifact_parts (task_pk, artifact_id, idx, part)
          SELECT held.pk, op->>'aid', v_first + (p.ord - 1)::integer, blobs[p.value::integer]
          FROM jsonb_array_elements_text(op->'p') WITH ORDINALITY AS p(value, ord);
        IF v_created THEN
          held.artifact_count := held.artifact_count + 1;
        END IF;
        held.last_seq := v_seq;
        first_seq := COALESCE(first_seq, v_seq);
        INSERT INTO events (task_pk, seq, event) VALUES (held.pk, v_seq, blobs[(op->>'e')::integer]);
        IF a2a_enqueue_push(held.pk, v_seq, false, now_ms) THEN
          pushed := true;
        END IF;
      ELSIF k = 'sent' THEN
        IF op->>'by' = 'idempotencyKey' THEN
          INSERT INTO idempotency_keys (tenant, agent, idem_key, fingerprint, task_id, reply, created_ms)
          VALUES (op->>'t', op->>'a', op->>'key', blobs[(op->>'fp')::integer], op->>'tid', blobs[(op->>'r')::integer], now_ms)
          ON CONFLICT (tenant, agent, idem_key) DO NOTHING;
        ELSE
          INSERT INTO sent_messages (tenant, agent, message_id, fingerprint, task_id, reply, created_ms)
          VALUES (op->>'t', op->>'a', op->>'key', blobs[(op->>'fp')::integer], op->>'tid', blobs[(op->>'r')::integer], now_ms)
          ON CONFLICT (tenant, agent, message_id) DO NOTHING;
        END IF;
      ELSIF k = 'pushcfg' THEN
        INSERT INTO push_configs (task_pk, id, config, created_ms, version)
        VALUES (held.pk, op->>'cid', blobs[(op->>'c')::integer], now_ms, op->>'v')
        ON CONFLICT (task_pk, id) DO UPDATE SET config = excluded.config, version = excluded.version;
      ELSE
        RAISE EXCEPTION 'store: unknown unit op %', k;
      END IF;
    END LOOP;
    IF is_held THEN
      PERFORM a2a_write_task(held, is_new, status_changed);
      PERFORM a2a_notify_events(held, first_seq, replica);
    END IF;
    RETURN pushed;
  END $$;
`;
