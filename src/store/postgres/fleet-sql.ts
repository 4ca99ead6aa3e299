/**
 * Schema version 3: what a fleet of hubs on one database shares.
 *
 * - `replicas`: one row per running hub, its lease renewed by a heartbeat.
 *   Every comparison uses the database clock, so clock skew between the
 *   replicas' machines does not matter.
 * - `tasks.owner`: the replica running the task's agent; NULL when no run
 *   holds it (a settled task: terminal or interrupted, §3.2.2). A task in
 *   flight whose owner has no live lease is an orphan, failed by a sweep.
 * - `push_outbox.claimed_by / claim_until_ms`: a delivery taken by one
 *   replica for a while, so that each event is posted by one replica only;
 *   a claim that runs out (its replica died) is taken again.
 * - `a2a_commit_unit`: a unit of work as one call (the unit function of
 *   version 2), then the owner of each task it wrote, then one NOTIFY per
 *   task touched with the unit's first and last seq, which is how readers
 *   on other replicas learn of events (NOTIFY is sent at commit, in commit
 *   order, and never for a unit rolled back).
 */
export const FLEET_SQL = `
  CREATE TABLE replicas (
    id text PRIMARY KEY,
    started_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL
  );
  ALTER TABLE tasks ADD COLUMN owner text;
  CREATE INDEX tasks_in_flight ON tasks (owner) WHERE state IN (1, 2);
  ALTER TABLE push_outbox ADD COLUMN claimed_by text, ADD COLUMN claim_until_ms bigint;

  CREATE FUNCTION a2a_commit_unit(ops jsonb, blobs bytea[], now_ms bigint, max_history integer, replica text) RETURNS boolean LANGUAGE plpgsql AS $$
  DECLARE
    pushed boolean;
    op jsonb;
    k text;
    v_seq integer;
    touched jsonb := '{}'::jsonb;
    v_key text;
    v_state integer;
    entry jsonb;
  BEGIN
    pushed := a2a_apply_unit(ops, blobs, now_ms, max_history);
    FOR op IN SELECT value FROM jsonb_array_elements(ops) WITH ORDINALITY AS o(value, ord) ORDER BY ord LOOP
      k := op->>'k';
      CONTINUE WHEN k NOT IN ('create', 'status', 'artifact');
      v_seq := CASE WHEN k = 'create' THEN 1 ELSE (op->>'seq')::integer END;
      IF k <> 'artifact' THEN
        -- §3.2.2: a run holds its task until the task settles (terminal, or interrupted for input or auth).
        v_state := (op->>'st')::integer;
        UPDATE tasks SET owner = CASE WHEN v_state IN (1, 2) THEN replica ELSE NULL END
          WHERE tenant = op->>'t' AND agent = op->>'a' AND id = op->>'id';
      END IF;
      v_key := jsonb_build_array(op->>'t', op->>'a', op->>'id')::text;
      entry := touched->v_key;
      IF entry IS NULL THEN
        touched := touched || jsonb_build_object(v_key, jsonb_build_object('t', op->>'t', 'a', op->>'a', 'id', op->>'id', 'f', v_seq, 'l', v_seq));
      ELSE
        touched := jsonb_set(touched, ARRAY[v_key, 'l'], to_jsonb(v_seq));
      END IF;
    END LOOP;
    -- A store of one hub (no replica id) has nobody to wake.
    IF replica IS NOT NULL THEN
      FOR entry IN SELECT value FROM jsonb_each(touched) LOOP
        PERFORM pg_notify('a2a_events', (entry || jsonb_build_object('r', replica))::text);
      END LOOP;
    END IF;
    RETURN pushed;
  END $$;
`;
