import { randomUUID } from "node:crypto";
import Database from "better-sqlite3";
import { create, toBinary } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import {
  ArtifactSchema,
  MessageSchema,
  PartSchema,
  Role,
  StreamResponseSchema,
  TaskState,
  TaskStatusSchema,
  type Message,
  type TaskStatus,
} from "a2a-hub";

/** How a seeded store is laid out, so measures can find positions and filters in it. */
export interface SeededStore {
  readonly tasks: number;
  readonly tenant: string;
  readonly agent: string;
  /** Every seeded task belongs to one of these contexts, round robin. */
  readonly contextIds: readonly string[];
  readonly seconds: number;
}

/** Contexts the seeded tasks are spread over: 1,000,000 tasks gives 10,000 per context. */
export const CONTEXTS = 100;
const BATCH = 20_000;

/** The columns the seeder writes, per table; the schema must have them (migration 1). */
const NEEDED: Record<string, readonly string[]> = {
  tasks: ["pk", "tenant", "agent", "id", "context_id", "state", "status", "status_ms", "touch", "metadata", "last_seq", "history_count", "artifact_count", "created_ms"],
  history: ["task_pk", "idx", "message"],
  artifacts: ["task_pk", "artifact_id", "ord", "head", "part_count", "sealed"],
  artifact_parts: ["task_pk", "artifact_id", "idx", "part"],
  events: ["task_pk", "seq", "event"],
  task_counts: ["tenant", "agent", "state", "n"],
};

function checkSchema(db: Database.Database): void {
  for (const [table, cols] of Object.entries(NEEDED)) {
    const have = new Set((db.pragma(`table_info(${table})`) as Array<{ name: string }>).map((c) => c.name));
    const missing = cols.filter((c) => !have.has(c));
    if (missing.length) throw new Error(`store seeder: table ${table} lacks ${missing.join(", ")}; bench/harness/store-seeder.ts needs updating for the new schema`);
  }
}

/**
 * Writes `count` completed echo tasks straight into a2a-hub's SQLite file,
 * row for row what the hub itself writes for one (task, history message,
 * artifact head and part, four logged events), in big transactions. The
 * database must already exist with one task the hub wrote: its tenant and
 * agent are reused, and every seeded task is older than it.
 */
export function seedTasks(file: string, count: number, log: (line: string) => void): SeededStore {
  const started = Date.now();
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = OFF"); // a bulk load: a crash here just means seeding again
  db.pragma("cache_size = -1048576"); // 1 GiB: the random task ids otherwise thrash the unique index
  checkSchema(db);
  const template = db.prepare(`SELECT tenant, agent, MIN(status_ms) AS ms, MAX(touch) AS touch FROM tasks`).get() as { tenant: string; agent: string; ms: number; touch: number } | undefined;
  if (!template?.tenant) throw new Error("store seeder: the database has no task to take the tenant and agent from");
  const contextIds = Array.from({ length: CONTEXTS }, () => randomUUID());
  const insertTask = db.prepare(`INSERT INTO tasks (tenant, agent, id, context_id, state, status, status_ms, touch, metadata, last_seq, history_count, artifact_count, created_ms)
                                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, 4, 1, 1, ?)`);
  const insertHistory = db.prepare(`INSERT INTO history (task_pk, idx, message) VALUES (?, 0, ?)`);
  const insertArtifact = db.prepare(`INSERT INTO artifacts (task_pk, artifact_id, ord, head, part_count, sealed) VALUES (?, 'echo', 1, ?, 1, 0)`);
  const insertPart = db.prepare(`INSERT INTO artifact_parts (task_pk, artifact_id, idx, part) VALUES (?, 'echo', 0, ?)`);
  const insertEvent = db.prepare(`INSERT INTO events (task_pk, seq, event) VALUES (?, ?, ?)`);
  // ListTasks' totalSize reads these counters; the hub keeps them in the transaction that writes the rows (schema 10), and so does the seeder.
  const countTasks = db.prepare(`INSERT INTO task_counts (tenant, agent, state, n) VALUES (?, ?, ?, ?) ON CONFLICT (tenant, agent, state) DO UPDATE SET n = n + excluded.n`);
  const artifactHead = toBinary(ArtifactSchema, create(ArtifactSchema, { artifactId: "echo", name: "echo" }));
  // Oldest first, one millisecond apart, all before the template task.
  const firstMs = template.ms - count - 1_000;
  const status = (state: TaskState, ms: number): TaskStatus => create(TaskStatusSchema, { state, timestamp: timestampFromMs(ms) });

  const writeOne = (i: number) => {
    const id = randomUUID();
    const contextId = contextIds[i % CONTEXTS]!;
    const ms = firstMs + i;
    const text = `seed ${i}`;
    const part = { content: { case: "text" as const, value: text } };
    const message: Message = create(MessageSchema, { messageId: `seed-${i}`, contextId, taskId: id, role: Role.USER, parts: [part] });
    const done = status(TaskState.COMPLETED, ms);
    const pk = Number(insertTask.run(template.tenant, template.agent, id, contextId, TaskState.COMPLETED, toBinary(TaskStatusSchema, done), ms, template.touch + 1 + i, ms - 2).lastInsertRowid);
    insertHistory.run(pk, toBinary(MessageSchema, message));
    insertArtifact.run(pk, artifactHead);
    insertPart.run(pk, toBinary(PartSchema, create(PartSchema, part)));
    const events = [
      { case: "task" as const, value: { id, contextId, status: status(TaskState.SUBMITTED, ms - 2), history: [message] } },
      { case: "statusUpdate" as const, value: { taskId: id, contextId, status: status(TaskState.WORKING, ms - 1) } },
      { case: "artifactUpdate" as const, value: { taskId: id, contextId, artifact: { artifactId: "echo", name: "echo", parts: [part] } } },
      { case: "statusUpdate" as const, value: { taskId: id, contextId, status: done } },
    ];
    events.forEach((payload, k) => insertEvent.run(pk, k + 1, toBinary(StreamResponseSchema, create(StreamResponseSchema, { payload }))));
  };
  const batch = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) writeOne(i);
    countTasks.run(template.tenant, template.agent, TaskState.COMPLETED, to - from);
  });
  let lastLog = Date.now();
  for (let from = 0; from < count; from += BATCH) {
    batch(from, Math.min(count, from + BATCH));
    if (Date.now() - lastLog > 10_000) {
      lastLog = Date.now();
      log(`store: seeded ${Math.min(count, from + BATCH).toLocaleString("en")} of ${count.toLocaleString("en")} tasks`);
    }
  }
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  return { tasks: count, tenant: template.tenant, agent: template.agent, contextIds, seconds: (Date.now() - started) / 1000 };
}
