import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import pg from "pg";
import { afterEach, beforeAll } from "vitest";
import { ArtifactSchema, MessageSchema, Role, StreamResponseSchema, TaskPushNotificationConfigSchema, TaskSchema, TaskState, TaskStatusSchema, type Message, type Task } from "../../gen/a2a/v1/a2a_pb.js";
import { createPool, PostgresTaskStore, type StoreScope, type TaskStore } from "../../src/store/index.js";
import type { PostgresCluster } from "./postgres-cluster.js";

/**
 * Writing to a TaskStore as core does, for the store tests: units of work
 * opened, written and committed, tasks created and moved with the events
 * core would log, and a pool that counts the round trips it makes.
 */

export const scope: StoreScope = { tenant: "t", agentId: "echo" };
export const T0 = 1_700_000_000_000;

export function message(taskId: string, text: string, role = Role.USER): Message {
  return create(MessageSchema, { messageId: `${taskId}-${text}`, role, taskId, contextId: "ctx", parts: [{ content: { case: "text", value: text } }] });
}

export function texts(messages: readonly Message[] | undefined): string[] {
  return (messages ?? []).map((m) => String(m.parts[0]?.content.value));
}

/** Runs writes as one unit of work and waits until it is durable. */
export async function unit(store: TaskStore, writes: () => void): Promise<void> {
  store.beginBatch();
  try {
    writes();
  } catch (e) {
    store.rollbackBatch();
    throw e;
  }
  await store.commitBatch();
}

/** A commit that fails is rolled back, as core's UnitOfWork does; resolves to the error. */
export async function failedUnit(store: TaskStore, writes: () => void): Promise<unknown> {
  store.beginBatch();
  writes();
  try {
    await store.commitBatch();
  } catch (e) {
    store.rollbackBatch();
    return e;
  }
  throw new Error("the unit committed");
}

export function writer(store: TaskStore, s: StoreScope = scope) {
  return {
    create(id: string, opts: { contextId?: string; ms?: number; history?: Message[]; metadata?: Task["metadata"] } = {}): number {
      const contextId = opts.contextId ?? "ctx";
      const status = create(TaskStatusSchema, { state: TaskState.SUBMITTED, timestamp: timestampFromMs(opts.ms ?? T0) });
      const history = opts.history ?? [message(id, "hello")];
      const task = create(TaskSchema, { id, contextId, status, history, metadata: opts.metadata });
      return store.createTask(s, { id, contextId, status, history, metadata: opts.metadata }, create(StreamResponseSchema, { payload: { case: "task", value: task } }));
    },
    status(id: string, state: TaskState, opts: { text?: string; ms?: number } = {}): number {
      const status = create(TaskStatusSchema, { state, timestamp: timestampFromMs(opts.ms ?? T0), message: opts.text ? message(id, opts.text, Role.AGENT) : undefined });
      return store.setStatus(s, id, status, create(StreamResponseSchema, { payload: { case: "statusUpdate", value: { taskId: id, contextId: "ctx", status } } }));
    },
    artifact(id: string, artifactId: string, parts: string[], opts: { append?: boolean; lastChunk?: boolean } = {}): number {
      const artifact = create(ArtifactSchema, { artifactId, name: artifactId.toUpperCase(), parts: parts.map((p) => ({ content: { case: "text" as const, value: p } })) });
      const append = opts.append ?? false;
      const lastChunk = opts.lastChunk ?? false;
      return store.changeArtifact(s, id, { artifact, append, lastChunk }, create(StreamResponseSchema, { payload: { case: "artifactUpdate", value: { taskId: id, contextId: "ctx", artifact, append, lastChunk } } }));
    },
    history(id: string, text: string): void {
      store.appendHistory(s, id, message(id, text));
    },
    pushConfig(id: string, configId: string, url = `https://hooks.example.com/${configId}`, version?: string): void {
      store.putPushConfig(s, create(TaskPushNotificationConfigSchema, { taskId: id, id: configId, url, token: `tok-${configId}` }), version);
    },
  };
}

export function artifactsOf(task: Task | undefined): string[][] {
  return (task?.artifacts ?? []).map((a) => [a.artifactId, ...a.parts.map((p) => String(p.content.value))]);
}

/** A pool that counts the statements sent through it: each is one round trip on a connection already open. */
export function countingPool(url: string): { pool: pg.Pool; sent: () => number } {
  const pool = createPool({ url, poolSize: 1 });
  let sent = 0;
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    sent++;
    return query(...args);
  };
  return { pool, sent: () => sent };
}

/** Empties every table of the store's schema, for the next test on the same database. */
export async function emptyTables(url: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(`TRUNCATE tasks, history, artifacts, artifact_parts, events, push_configs, push_outbox, task_counts, task_context_counts, sent_messages, idempotency_keys, push_delivery_log RESTART IDENTITY`);
  } finally {
    await c.end();
  }
}

/** For a describe block: a database of `cluster`, migrated once (told to `got`), its tables emptied after each test. */
export function useStoreDatabase(cluster: () => PostgresCluster, got: (url: string) => void): void {
  let url = "";
  beforeAll(async () => {
    url = await cluster().createDatabase();
    got(url);
    await (await PostgresTaskStore.open({ url, poolSize: 1 })).close();
  }, 60_000);
  afterEach(() => emptyTables(url));
}
