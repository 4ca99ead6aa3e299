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
 * Ops (k = kind; t, a, id = tenant, agent, task id):
 *   create:   ctx, md (metadata JSON text or null), st (state), s (status), sm (status ms), h (history blobs), e (event)
 *   history:  m (message)
 *   status:   seq, st, s, sm, m (its message, or null), e, term (a terminal state: the final Task is owed too)
 *   artifact: seq, aid, ap (append), lc (lastChunk), hd (head), p (part blobs), e
 *   sent:     by ("messageId" | "idempotencyKey"), key, fp, tid, r
 *   pushcfg:  cid, c (config), v (version)
 * Returns whether push deliveries were queued (the worker is told after commit).
 */
export const APPLY_UNIT_SQL = `
  CREATE FUNCTION a2a_fence_failed(p_tenant text, p_agent text, p_id text, p_seq integer) RETURNS void LANGUAGE plpgsql AS $$
  DECLARE
    stored integer;
  BEGIN
    SELECT last_seq INTO stored FROM tasks WHERE tenant = p_tenant AND agent = p_agent AND id = p_id;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'store: task % not found in scope %/%', p_id, p_tenant, p_agent USING ERRCODE = 'A2F01';
    END IF;
    RAISE EXCEPTION 'store: task % was written elsewhere: event % was predicted, the log holds % events', p_id, p_seq, stored
      USING ERRCODE = 'A2F01';
  END $$;

  CREATE FUNCTION a2a_task_pk(p_tenant text, p_agent text, p_id text) RETURNS bigint LANGUAGE plpgsql AS $$
  DECLARE
    found_pk bigint;
  BEGIN
    SELECT pk INTO found_pk FROM tasks WHERE tenant = p_tenant AND agent = p_agent AND id = p_id;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'store: task % not found in scope %/%', p_id, p_tenant, p_agent USING ERRCODE = 'A2F01';
    END IF;
    RETURN found_pk;
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

  CREATE FUNCTION a2a_apply_unit(ops jsonb, blobs bytea[], now_ms bigint, max_history integer) RETURNS boolean LANGUAGE plpgsql AS $$
  DECLARE
    op jsonb;
    k text;
    v_pk bigint;
    v_seq integer;
    v_n integer;
    v_first integer;
    v_created boolean;
    v_blob integer;
    v_i integer;
    pushed boolean := false;
  BEGIN
    FOR op IN SELECT value FROM jsonb_array_elements(ops) WITH ORDINALITY AS o(value, ord) ORDER BY ord LOOP
      k := op->>'k';
      IF k = 'create' THEN
        INSERT INTO tasks (tenant, agent, id, context_id, state, status, status_ms, metadata, last_seq, history_count, artifact_count, created_ms)
        VALUES (op->>'t', op->>'a', op->>'id', op->>'ctx', (op->>'st')::integer, blobs[(op->>'s')::integer], (op->>'sm')::bigint, op->>'md',
                1, jsonb_array_length(op->'h'), 0, now_ms)
        RETURNING pk INTO v_pk;
        v_i := 0;
        FOR v_blob IN SELECT value::integer FROM jsonb_array_elements_text(op->'h') WITH ORDINALITY AS h(value, ord) ORDER BY ord LOOP
          PERFORM a2a_add_history(v_pk, v_i, blobs[v_blob], max_history);
          v_i := v_i + 1;
        END LOOP;
        -- The creation event is the first of the log; no push config can hang off a task created just now.
        INSERT INTO events (task_pk, seq, event) VALUES (v_pk, 1, blobs[(op->>'e')::integer]);
      ELSIF k = 'history' THEN
        UPDATE tasks SET history_count = history_count + 1 WHERE tenant = op->>'t' AND agent = op->>'a' AND id = op->>'id'
          RETURNING pk, history_count - 1 INTO v_pk, v_n;
        IF NOT FOUND THEN
          PERFORM a2a_task_pk(op->>'t', op->>'a', op->>'id');
        END IF;
        PERFORM a2a_add_history(v_pk, v_n, blobs[(op->>'m')::integer], max_history);
      ELSIF k = 'status' THEN
        v_seq := (op->>'seq')::integer;
        UPDATE tasks SET state = (op->>'st')::integer, status = blobs[(op->>'s')::integer], status_ms = (op->>'sm')::bigint,
                         touch = nextval('task_touch'), last_seq = v_seq,
                         history_count = history_count + (CASE WHEN op->>'m' IS NULL THEN 0 ELSE 1 END)
          WHERE tenant = op->>'t' AND agent = op->>'a' AND id = op->>'id' AND last_seq = v_seq - 1
          RETURNING pk, history_count INTO v_pk, v_n;
        IF NOT FOUND THEN
          PERFORM a2a_fence_failed(op->>'t', op->>'a', op->>'id', v_seq);
        END IF;
        IF op->>'m' IS NOT NULL THEN
          PERFORM a2a_add_history(v_pk, v_n - 1, blobs[(op->>'m')::integer], max_history);
        END IF;
        INSERT INTO events (task_pk, seq, event) VALUES (v_pk, v_seq, blobs[(op->>'e')::integer]);
        IF a2a_enqueue_push(v_pk, v_seq, (op->>'term')::boolean, now_ms) THEN
          pushed := true;
        END IF;
      ELSIF k = 'artifact' THEN
        v_seq := (op->>'seq')::integer;
        SELECT pk, artifact_count INTO v_pk, v_n FROM tasks
          WHERE tenant = op->>'t' AND agent = op->>'a' AND id = op->>'id' AND last_seq = v_seq - 1 FOR UPDATE;
        IF NOT FOUND THEN
          PERFORM a2a_fence_failed(op->>'t', op->>'a', op->>'id', v_seq);
        END IF;
        v_first := 0;
        IF NOT (op->>'ap')::boolean THEN
          -- A new artifact is the common case: one INSERT tells it from a replacement.
          INSERT INTO artifacts (task_pk, artifact_id, ord, head, part_count, sealed)
          VALUES (v_pk, op->>'aid', v_n + 1, blobs[(op->>'hd')::integer], jsonb_array_length(op->'p'), (op->>'lc')::boolean)
          ON CONFLICT (task_pk, artifact_id) DO NOTHING;
          v_created := FOUND;
          IF NOT v_created THEN
            -- §4.2.2: append false replaces the artifact.
            DELETE FROM artifact_parts WHERE task_pk = v_pk AND artifact_id = op->>'aid';
            UPDATE artifacts SET head = blobs[(op->>'hd')::integer], part_count = jsonb_array_length(op->'p'), sealed = (op->>'lc')::boolean
              WHERE task_pk = v_pk AND artifact_id = op->>'aid';
          END IF;
        ELSE
          UPDATE artifacts SET part_count = part_count + jsonb_array_length(op->'p'), sealed = sealed OR (op->>'lc')::boolean
            WHERE task_pk = v_pk AND artifact_id = op->>'aid'
            RETURNING part_count - jsonb_array_length(op->'p') INTO v_first;
          v_created := NOT FOUND;
          IF v_created THEN
            v_first := 0;
            INSERT INTO artifacts (task_pk, artifact_id, ord, head, part_count, sealed)
            VALUES (v_pk, op->>'aid', v_n + 1, blobs[(op->>'hd')::integer], jsonb_array_length(op->'p'), (op->>'lc')::boolean);
          END IF;
        END IF;
        INSERT INTO artifact_parts (task_pk, artifact_id, idx, part)
          SELECT v_pk, op->>'aid', v_first + (p.ord - 1)::integer, blobs[p.value::integer]
          FROM jsonb_array_elements_text(op->'p') WITH ORDINALITY AS p(value, ord);
        UPDATE tasks SET last_seq = v_seq, artifact_count = v_n + (CASE WHEN v_created THEN 1 ELSE 0 END) WHERE pk = v_pk;
        INSERT INTO events (task_pk, seq, event) VALUES (v_pk, v_seq, blobs[(op->>'e')::integer]);
        IF a2a_enqueue_push(v_pk, v_seq, false, now_ms) THEN
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
        v_pk := a2a_task_pk(op->>'t', op->>'a', op->>'id');
        INSERT INTO push_configs (task_pk, id, config, created_ms, version)
        VALUES (v_pk, op->>'cid', blobs[(op->>'c')::integer], now_ms, op->>'v')
        ON CONFLICT (task_pk, id) DO UPDATE SET config = excluded.config, version = excluded.version;
      ELSE
        RAISE EXCEPTION 'store: unknown unit op %', k;
      END IF;
    END LOOP;
    RETURN pushed;
  END $$;
`;
