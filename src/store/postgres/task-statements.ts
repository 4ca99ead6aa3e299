import { IN_FLIGHT_SQL } from "../task-states.js";
import { taskColumns } from "./task-loader.js";

/** The store's reads and its few writes outside units, one statement each (the unit's own: unit-statement.ts). */

export const TASK_BY_KEY = (withArtifacts: boolean) => `SELECT ${taskColumns("t", "$4", withArtifacts)} FROM tasks t WHERE t.tenant = $1 AND t.agent = $2 AND t.id = $3`;
// With whether another replica, holding a live lease, runs the task now ($4: this replica, or NULL alone).
export const HEAD_BY_KEY = `SELECT ${taskColumns("t", "0", false)},
    (t.owner IS DISTINCT FROM $4::text AND EXISTS (SELECT 1 FROM replicas r WHERE r.id = t.owner AND r.expires_at > now())) AS elsewhere
  FROM tasks t WHERE t.tenant = $1 AND t.agent = $2 AND t.id = $3`;
export const IN_FLIGHT = `SELECT ${taskColumns("t", "0", false)} FROM tasks t WHERE t.state IN (${IN_FLIGHT_SQL})`;
export const EVENTS_AFTER = `SELECT e.seq, e.event FROM events e JOIN tasks t ON t.pk = e.task_pk
  WHERE t.tenant = $1 AND t.agent = $2 AND t.id = $3 AND e.seq > $4 ORDER BY e.seq LIMIT $5::integer`;
export const FIND_SENT = {
  messageId: `SELECT fingerprint, task_id, reply FROM sent_messages WHERE tenant = $1 AND agent = $2 AND message_id = $3`,
  idempotencyKey: `SELECT fingerprint, task_id, reply FROM idempotency_keys WHERE tenant = $1 AND agent = $2 AND idem_key = $3`,
};
export const CONFIGS_OF = `SELECT c.config FROM push_configs c JOIN tasks t ON t.pk = c.task_pk WHERE t.tenant = $1 AND t.agent = $2 AND t.id = $3`;
export const GET_CONFIG = `${CONFIGS_OF} AND c.id = $4`;
export const LIST_CONFIGS = `${CONFIGS_OF} ORDER BY c.created_ms, c.id`;
export const COUNT_CONFIGS = `SELECT COUNT(*) AS n FROM push_configs c JOIN tasks t ON t.pk = c.task_pk WHERE t.tenant = $1 AND t.agent = $2 AND t.id = $3`;
// Deleting a config stops its future deliveries and leaves no rows behind: one statement, one transaction.
export const DELETE_CONFIG = `WITH task AS (SELECT pk FROM tasks WHERE tenant = $1 AND agent = $2 AND id = $3),
    owed AS (DELETE FROM push_outbox WHERE task_pk IN (SELECT pk FROM task) AND config_id = $4),
    logged AS (DELETE FROM push_delivery_log WHERE task_pk IN (SELECT pk FROM task) AND config_id = $4)
  DELETE FROM push_configs WHERE task_pk IN (SELECT pk FROM task) AND id = $4 RETURNING 1 AS gone`;
// Tasks in flight whose owner holds no live lease, claimed by one sweeper each (SKIP LOCKED) and
// held under its lease until it has failed them (if that write does not commit, the sweeper's lost
// writes are settled as any run's: core reads the task again and fails it).
export const SWEEP = `WITH orphans AS (
    SELECT t.pk FROM tasks t
    WHERE t.state IN (${IN_FLIGHT_SQL})
      AND NOT EXISTS (SELECT 1 FROM replicas r WHERE r.id = t.owner AND r.expires_at > now())
    ORDER BY t.pk LIMIT $2::integer FOR UPDATE SKIP LOCKED)
  UPDATE tasks t SET owner = $1 FROM orphans o WHERE t.pk = o.pk
  RETURNING ${taskColumns("t", "0", false)}`;
