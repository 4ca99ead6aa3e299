import { TaskPushNotificationConfigSchema, type StreamResponse } from "../../../gen/a2a/v1/a2a_pb.js";
import type { PushDelivery, PushDeliveryState } from "../task-store.js";
import { decode } from "./row-codecs.js";

/** A due outbox row joined to its task and config, as both stores read it. */
export interface DueDeliveryRow {
  readonly id: number;
  readonly seq: number;
  readonly attempts: number;
  readonly tenant: string;
  readonly agent: string;
  readonly task_id: string;
  /** The TaskPushNotificationConfig, protobuf binary. */
  readonly config: Uint8Array;
  readonly version: string;
}

/** A delivery from its row and the payload it carries (a logged event, or the final Task). */
export function deliveryOf(r: DueDeliveryRow, payload: StreamResponse): PushDelivery {
  return {
    id: r.id,
    scope: { tenant: r.tenant, agentId: r.agent },
    taskId: r.task_id,
    config: decode(TaskPushNotificationConfigSchema, r.config),
    seq: r.seq,
    payload,
    attempts: r.attempts,
    version: r.version,
  };
}

/** The delivery counters and last attempt of one (task, config), as both stores read them. */
export interface DeliveryStateRow {
  readonly config_id: string;
  readonly pending: number;
  readonly dead: number;
  readonly delivered: number;
  readonly last_attempt_ms: number | null;
  readonly last_error: string | null;
}

/** A config's delivery state but for its URL; absent times and errors are left out, not undefined. */
export function deliveryStateOf(r: DeliveryStateRow, nextAt: number | null | undefined): Omit<PushDeliveryState, "url"> {
  return {
    configId: r.config_id,
    pending: r.pending,
    dead: r.dead,
    delivered: r.delivered,
    ...(r.last_attempt_ms !== null ? { lastAttemptMs: r.last_attempt_ms } : {}),
    ...(r.last_error !== null ? { lastError: r.last_error } : {}),
    ...(nextAt !== null && nextAt !== undefined ? { nextAttemptMs: nextAt } : {}),
  };
}
