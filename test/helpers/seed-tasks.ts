import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import {
  ArtifactSchema,
  MessageSchema,
  Role,
  StreamResponseSchema,
  TaskPushNotificationConfigSchema,
  TaskSchema,
  TaskState,
  TaskStatusSchema,
  type Message,
  type TaskStatus,
} from "../../gen/a2a/v1/a2a_pb.js";
import type { StoreScope, TaskStore } from "../../src/store/index.js";

/** A task to write straight through a store, its last status `ageMs` before now. */
export interface SeedTask {
  readonly scope: StoreScope;
  readonly id: string;
  readonly state: TaskState;
  readonly ageMs: number;
  /** Artifacts written (each of two parts, the second appended). */
  readonly artifacts?: number;
  /** A push config (to this URL, or SEED_WEBHOOK), written before the last status: that status owes it deliveries. */
  readonly push?: boolean | string;
  /** A send-ledger entry naming the task, by messageId (and by Idempotency-Key with "both"). */
  readonly sent?: boolean | "both";
}

const text = (role: Role, t: string, taskId: string, contextId: string): Message =>
  create(MessageSchema, { messageId: `${taskId}-${t}`, role, parts: [{ content: { case: "text", value: t } }], taskId, contextId });

const statusAt = (state: TaskState, ms: number, message?: Message): TaskStatus => create(TaskStatusSchema, { state, timestamp: timestampFromMs(ms), message });

/** The URL seeded push configs name (nothing listens there). */
export const SEED_WEBHOOK = "http://127.0.0.1:9/hook";

/**
 * Writes tasks through the store API, `batch` to a unit of work, with
 * their history, artifacts, event log, push configs and ledger entries, as
 * a hub would have written them at those (past) times. Fast enough for tens
 * of thousands of tasks, and the same for every store.
 */
export async function seedTasks(store: TaskStore, tasks: readonly SeedTask[], nowMs = Date.now(), batch = 250): Promise<void> {
  for (let i = 0; i < tasks.length; i += batch) {
    store.beginBatch();
    for (const t of tasks.slice(i, i + batch)) writeTask(store, t, nowMs);
    await store.commitBatch();
  }
}

function writeTask(store: TaskStore, t: SeedTask, nowMs: number): void {
  const at = nowMs - t.ageMs;
  const contextId = `ctx-${t.id}`;
  const user = text(Role.USER, "hello", t.id, contextId);
  const submitted = statusAt(TaskState.SUBMITTED, at - 2_000);
  const task = create(TaskSchema, { id: t.id, contextId, status: submitted, history: [user] });
  store.createTask(t.scope, { id: t.id, contextId, status: submitted, history: [user], metadata: undefined }, create(StreamResponseSchema, { payload: { case: "task", value: task } }));
  const status = (s: TaskStatus): void => {
    store.setStatus(t.scope, t.id, s, create(StreamResponseSchema, { payload: { case: "statusUpdate", value: { taskId: t.id, contextId, status: s } } }));
  };
  if (t.state !== TaskState.SUBMITTED) status(statusAt(TaskState.WORKING, at - 1_000));
  for (let a = 0; a < (t.artifacts ?? 0); a++) {
    for (const [n, append] of [[0, false], [1, true]] as const) {
      const artifact = create(ArtifactSchema, { artifactId: `a${a}`, name: `artifact ${a}`, parts: [{ content: { case: "text", value: `part ${n} of ${a}` } }] });
      store.changeArtifact(
        t.scope,
        t.id,
        { artifact, append, lastChunk: append },
        create(StreamResponseSchema, { payload: { case: "artifactUpdate", value: { taskId: t.id, contextId, artifact, append, lastChunk: append } } }),
      );
    }
  }
  if (t.push) store.putPushConfig(t.scope, create(TaskPushNotificationConfigSchema, { id: "hook", taskId: t.id, url: typeof t.push === "string" ? t.push : SEED_WEBHOOK }));
  if (t.state !== TaskState.SUBMITTED && t.state !== TaskState.WORKING) status(statusAt(t.state, at, text(Role.AGENT, `now ${TaskState[t.state]}`, t.id, contextId)));
  if (t.sent) store.rememberSent(t.scope, { key: { by: "messageId", value: user.messageId }, fingerprint: new Uint8Array([1, 2, 3]), taskId: t.id });
  if (t.sent === "both") store.rememberSent(t.scope, { key: { by: "idempotencyKey", value: `key-${t.id}` }, fingerprint: new Uint8Array([4, 5, 6]), taskId: t.id });
}

/** Settles every delivery the outbox owes now: dead, except those of `pending` tasks, put off by an hour. */
export async function settleSeededDeliveries(store: TaskStore, pending: ReadonlySet<string>): Promise<void> {
  for (;;) {
    const due = await store.dueDeliveries(Date.now(), 500);
    if (due.length === 0) return;
    for (const d of due) await store.deliveryFailed(d.id, pending.has(d.taskId) ? Date.now() + 3_600_000 : undefined, "seeded: no webhook listens");
  }
}
