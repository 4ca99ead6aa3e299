import { randomBytes, randomUUID } from "node:crypto";
import pg from "pg";
import { create, toBinary } from "@bufbuild/protobuf";
import { TimestampSchema } from "@bufbuild/protobuf/wkt";
import { ArtifactSchema, MessageSchema, PartSchema, Role, StreamResponseSchema, TaskState, TaskStatusSchema } from "a2a-hub";
import { sqlTemplate, VARINT5_SQL, varint5, type TemplateSlot } from "./bytes-template.js";
import { CONTEXTS, type SeededStore } from "./store-seeder.js";

/**
 * What varies between two seeded tasks' stored bytes, all fixed-width
 * (bytes-template.ts): the task id and context id (UUIDs), the task's
 * number (seven digits, in its messageId and text), and the three status
 * timestamps (submitted, working, completed), which share their second.
 */
interface SeedValues {
  readonly id: string;
  readonly contextId: string;
  readonly n: string;
  readonly seconds: bigint;
  readonly nanos: readonly [number, number, number];
}

/** The bytes the hub stores for one completed echo task (history message, part, status, four logged events). */
interface SeedBytes {
  readonly status: Uint8Array;
  readonly message: Uint8Array;
  readonly part: Uint8Array;
  readonly events: readonly Uint8Array[];
}

/** The columns the seeder writes, per table; the schema must have them (migrations 1, 2, 5 and 6). */
const NEEDED: Record<string, readonly string[]> = {
  tasks: ["pk", "tenant", "agent", "id", "context_id", "state", "status", "status_ms", "touch", "metadata", "last_seq", "history_count", "artifact_count", "created_ms", "owner"],
  history: ["task_pk", "idx", "message"],
  artifacts: ["task_pk", "artifact_id", "ord", "head", "part_count", "sealed"],
  artifact_parts: ["task_pk", "artifact_id", "idx", "part"],
  events: ["task_pk", "seq", "event"],
  task_counts: ["tenant", "agent", "state", "shard", "n"],
  task_context_counts: ["tenant", "agent", "context_id", "n"],
};

const TABLES = Object.keys(NEEDED);
/** Seeded statuses fall in the last 731 ms of a second, so every timestamp's nanos is a five-byte varint (≥ 2^28 ns). */
const FIRST_MS_IN_SECOND = 271;
const PER_SECOND = 1000 - FIRST_MS_IN_SECOND;
const MAX_TASKS = 10_000_000;

/** The artifact head the echo agent writes (its parts are stored apart). */
const ARTIFACT_HEAD = toBinary(ArtifactSchema, create(ArtifactSchema, { artifactId: "echo", name: "echo" }));

/** The stored bytes of one seeded task, built as the hub builds them (the seeder's templates and its self-check both use this). */
function seedBytes(v: SeedValues): SeedBytes {
  const ts = (k: number) => create(TimestampSchema, { seconds: v.seconds, nanos: v.nanos[k]! });
  const status = (state: TaskState, k: number) => create(TaskStatusSchema, { state, timestamp: ts(k) });
  const part = { content: { case: "text" as const, value: `seed ${v.n}` } };
  const message = create(MessageSchema, { messageId: `seed-${v.n}`, contextId: v.contextId, taskId: v.id, role: Role.USER, parts: [part] });
  const ids = { taskId: v.id, contextId: v.contextId };
  const payloads = [
    { case: "task" as const, value: { id: v.id, contextId: v.contextId, status: status(TaskState.SUBMITTED, 0), history: [message] } },
    { case: "statusUpdate" as const, value: { ...ids, status: status(TaskState.WORKING, 1) } },
    { case: "artifactUpdate" as const, value: { ...ids, artifact: { artifactId: "echo", name: "echo", parts: [part] } } },
    { case: "statusUpdate" as const, value: { ...ids, status: status(TaskState.COMPLETED, 2) } },
  ];
  return {
    status: toBinary(TaskStatusSchema, status(TaskState.COMPLETED, 2)),
    message: toBinary(MessageSchema, message),
    part: toBinary(PartSchema, create(PartSchema, part)),
    events: payloads.map((payload) => toBinary(StreamResponseSchema, create(StreamResponseSchema, { payload }))),
  };
}

/** The values the templates are encoded with: each stands out in the bytes and has the width of the real ones. */
const MARKERS: SeedValues = { id: "{".repeat(36), contextId: "}".repeat(36), n: "|".repeat(7), seconds: 2n ** 34n + 5n, nanos: [2 ** 28 + 1, 2 ** 28 + 2, 2 ** 28 + 3] };

/** Each seeded task's values as SQL over the row source `s` (columns id, ctx, n, ms), with the markers that stand for them in the templates. */
function slots(marker: SeedValues): TemplateSlot[] {
  const text = (s: string) => new TextEncoder().encode(s);
  return [
    { marker: text(marker.id), sql: "convert_to(s.id, 'UTF8')" },
    { marker: text(marker.contextId), sql: "convert_to(s.ctx, 'UTF8')" },
    { marker: text(marker.n), sql: "convert_to(s.n, 'UTF8')" },
    // The field's tag goes with its marker: no other bytes of a message look like a tag followed by a five-byte varint.
    { marker: Uint8Array.of(0x08, ...varint5(marker.seconds)), sql: "'\\x08'::bytea || pg_temp.varint5(s.ms / 1000)" },
    ...marker.nanos.map((nanos, k) => ({ marker: Uint8Array.of(0x10, ...varint5(BigInt(nanos))), sql: `'\\x10'::bytea || pg_temp.varint5(((s.ms - ${2 - k}) % 1000) * 1000000)` })),
  ];
}

/** The values of seeded task `i` in JavaScript, as the row source computes them in SQL. */
function valuesOf(i: number, id: string, contextId: string, firstSecond: number): SeedValues & { ms: number } {
  const ms = (firstSecond + Math.floor(i / PER_SECOND)) * 1000 + FIRST_MS_IN_SECOND + (i % PER_SECOND);
  const seconds = BigInt(Math.floor(ms / 1000));
  const nanos = [0, 1, 2].map((k) => ((ms - 2 + k) % 1000) * 1_000_000) as [number, number, number];
  return { id, contextId, n: String(i).padStart(7, "0"), seconds, nanos, ms };
}

async function checkSchema(db: pg.Client): Promise<void> {
  const { rows } = await db.query<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ANY ($1)`,
    [TABLES],
  );
  for (const [table, cols] of Object.entries(NEEDED)) {
    const have = new Set(rows.filter((r) => r.table_name === table).map((r) => r.column_name));
    const missing = cols.filter((c) => !have.has(c));
    if (missing.length) throw new Error(`store seeder: table ${table} lacks ${missing.join(", ")}; bench/harness/store-seeder-postgres.ts needs updating for the new schema`);
  }
}

/**
 * Writes `count` completed echo tasks into a2a-hub's PostgreSQL database,
 * row for row what the hub writes for one (task, history message, artifact
 * and part, four logged events, the counters ListTasks' totals read),
 * each table by one INSERT ... SELECT over generate_series in one
 * transaction, then VACUUM ANALYZE (what autovacuum would do after such a
 * load) and a CHECKPOINT. The database must hold one task the hub wrote:
 * its tenant and agent are reused, and every seeded task is older than
 * it. Reads two seeded tasks back and throws unless their bytes are the
 * ones the hub's encoding gives.
 */
export async function seedPostgresTasks(url: string, count: number, log: (line: string) => void): Promise<SeededStore> {
  if (count < 1 || count > MAX_TASKS) throw new Error(`store seeder: ${count} tasks; from 1 to ${MAX_TASKS} (seven-digit task numbers)`);
  const started = Date.now();
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    await checkSchema(db);
    const { rows: [template] } = await db.query<{ tenant: string; agent: string; ms: string; touch: string; pk: string }>(
      `SELECT tenant, agent, MIN(status_ms) AS ms, MAX(touch) AS touch, MAX(pk) AS pk FROM tasks GROUP BY tenant, agent`,
    );
    if (!template) throw new Error("store seeder: the database has no task to take the tenant and agent from");
    const contextIds = Array.from({ length: CONTEXTS }, () => randomUUID());
    // Oldest first, all before the template task.
    const firstSecond = Math.floor(Number(template.ms) / 1000) - Math.ceil(count / PER_SECOND) - 2;
    const salt = randomBytes(8).toString("hex");
    const scope = `${db.escapeLiteral(template.tenant)}, ${db.escapeLiteral(template.agent)}`;
    // Task i: the i-th oldest, its values computed as valuesOf computes them ($1: the context ids).
    const source = `(SELECT i, ${Number(template.pk) + 1}::bigint + i AS pk, md5('${salt}' || i)::uuid::text AS id, ($1::text[])[i % ${CONTEXTS} + 1] AS ctx,
        lpad(i::text, 7, '0') AS n, (${firstSecond}::bigint + i / ${PER_SECOND}) * 1000 + ${FIRST_MS_IN_SECOND} + i % ${PER_SECOND} AS ms
      FROM generate_series(0, ${count - 1}) i) s`;
    const bytes = seedBytes(MARKERS);
    const all = slots(MARKERS);
    const sql = (b: Uint8Array) => sqlTemplate(b, all);
    const completed = TaskState.COMPLETED;
    const steps: Array<[string, string]> = [
      // The counters are written once below, for all the tasks, rather than by the insert trigger row by row.
      ["tasks", `ALTER TABLE tasks DISABLE TRIGGER task_counts_insert;
        INSERT INTO tasks (pk, tenant, agent, id, context_id, state, status, status_ms, touch, metadata, last_seq, history_count, artifact_count, created_ms, owner)
        OVERRIDING SYSTEM VALUE
        SELECT s.pk, ${scope}, s.id, s.ctx, ${completed}, ${sql(bytes.status)}, s.ms, ${Number(template.touch) + 1} + s.i, NULL, 4, 1, 1, s.ms - 2, NULL FROM ${source};
        ALTER TABLE tasks ENABLE TRIGGER task_counts_insert`],
      // In one shard: totals are the sums over the shards (schema 5).
      ["task_counts", `INSERT INTO task_counts (tenant, agent, state, shard, n) VALUES (${scope}, ${completed}, 0, ${count})
        ON CONFLICT (tenant, agent, state, shard) DO UPDATE SET n = task_counts.n + excluded.n;
        INSERT INTO task_context_counts (tenant, agent, context_id, n)
        SELECT ${scope}, ($1::text[])[c + 1], (${count} - 1 - c) / ${CONTEXTS} + 1 FROM generate_series(0, ${Math.min(count, CONTEXTS) - 1}) c
        ON CONFLICT (tenant, agent, context_id) DO UPDATE SET n = task_context_counts.n + excluded.n`],
      ["history", `INSERT INTO history (task_pk, idx, message) SELECT s.pk, 0, ${sql(bytes.message)} FROM ${source}`],
      // ord: the seq of the event that created the artifact, as the hub numbers them.
      ["artifacts", `INSERT INTO artifacts (task_pk, artifact_id, ord, head, part_count, sealed) SELECT s.pk, 'echo', 3, '\\x${Buffer.from(ARTIFACT_HEAD).toString("hex")}'::bytea, 1, false FROM ${source}`],
      ["artifact_parts", `INSERT INTO artifact_parts (task_pk, artifact_id, idx, part) SELECT s.pk, 'echo', 0, ${sql(bytes.part)} FROM ${source}`],
      ["events", `INSERT INTO events (task_pk, seq, event) SELECT s.pk, e.seq, CASE e.seq ${bytes.events.map((b, k) => `WHEN ${k + 1} THEN ${sql(b)}`).join(" ")} END
        FROM ${source} CROSS JOIN generate_series(1, 4) e(seq)`],
      ["sequences", `SELECT setval(pg_get_serial_sequence('tasks', 'pk'), (SELECT MAX(pk) FROM tasks)), setval('task_touch', (SELECT MAX(touch) FROM tasks))`],
    ];
    await db.query("BEGIN");
    await db.query(VARINT5_SQL);
    for (const [what, text] of steps) {
      const t0 = Date.now();
      // Several statements in one text cannot take parameters: those run one by one.
      for (const statement of text.split(/;\n/)) await db.query(statement, statement.includes("$1") ? [contextIds] : []);
      log(`store: seeded ${what} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    }
    await db.query("COMMIT");
    const t0 = Date.now();
    await db.query(`VACUUM (ANALYZE) ${TABLES.join(", ")}`);
    // The load's dirty pages written now, not by the checkpointer while the hub is timed.
    await db.query("CHECKPOINT");
    log(`store: vacuumed, analyzed and checkpointed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    await checkSeeded(db, [0, count - 1], Number(template.pk) + 1, contextIds, firstSecond);
    return { tasks: count, tenant: template.tenant, agent: template.agent, contextIds, seconds: (Date.now() - started) / 1000 };
  } catch (e) {
    await db.query("ROLLBACK").catch(() => undefined);
    throw e;
  } finally {
    await db.end();
  }
}

/** Throws unless seeded tasks `which` hold exactly the bytes `seedBytes` gives for their values. */
async function checkSeeded(db: pg.Client, which: readonly number[], firstPk: number, contextIds: readonly string[], firstSecond: number): Promise<void> {
  for (const i of which) {
    const { rows: [row] } = await db.query<{ id: string; status: Buffer; status_ms: string; message: Buffer; part: Buffer; events: Buffer[] }>(
      `SELECT t.id, t.status, t.status_ms, h.message, p.part, (SELECT array_agg(event ORDER BY seq) FROM events WHERE task_pk = t.pk) AS events
       FROM tasks t JOIN history h ON h.task_pk = t.pk JOIN artifact_parts p ON p.task_pk = t.pk WHERE t.pk = $1`,
      [firstPk + i],
    );
    if (!row) throw new Error(`store seeder: seeded task ${i} is missing`);
    const v = valuesOf(i, row.id, contextIds[i % CONTEXTS]!, firstSecond);
    const want = seedBytes(v);
    const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));
    const bad = [
      Number(row.status_ms) !== v.ms && "status_ms",
      !same(row.status, want.status) && "status",
      !same(row.message, want.message) && "history message",
      !same(row.part, want.part) && "artifact part",
      (row.events.length !== 4 || row.events.some((e, k) => !same(e, want.events[k]!))) && "events",
    ].filter(Boolean);
    if (bad.length) throw new Error(`store seeder: seeded task ${i} differs from the hub's encoding in ${bad.join(", ")}`);
  }
}
