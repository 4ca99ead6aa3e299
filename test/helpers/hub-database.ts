import Database from "better-sqlite3";
import { fromBinary } from "@bufbuild/protobuf";
import { join } from "node:path";
import { StreamResponseSchema, type TaskState } from "../../gen/a2a/v1/a2a_pb.js";
import type { LoggedEvent } from "./event-log.js";

/** The SQLite file a hub keeps in its data directory. */
export function hubDbFile(dataDir: string): string {
  return join(dataDir, "a2a-hub.db");
}

/**
 * A hub's database opened read-only from outside the server, to audit what
 * a crash left on disk. Table and column names are those of
 * src/store/sqlite/migrations.ts.
 */
export interface HubDb {
  /** `PRAGMA integrity_check`: "ok" when the file is sound. */
  integrity(): string;
  /** Every task whose event log is not exactly seqs 1..last_seq, its first entry a Task; and every event of no task. */
  logProblems(): string[];
  /** Each task id with its stored state. */
  states(): Map<string, TaskState>;
  /** The stored events of a task (by id, in any tenant or agent), in seq order. */
  events(taskId: string): LoggedEvent[];
  /** Number of tasks and of logged events. */
  counts(): { tasks: number; events: number };
  /** Where ListTasks' state counters (task_counts) disagree with the task rows they count. */
  stateCountProblems(): string[];
}

/** Opens the hub database of `dataDir` read-only, hands it to `read`, and closes it. */
export function readHubDb<T>(dataDir: string, read: (db: HubDb) => T): T {
  const db = new Database(hubDbFile(dataDir), { readonly: true, fileMustExist: true });
  try {
    return read({
      integrity: () => db.pragma("integrity_check", { simple: true }) as string,
      logProblems: () => {
        const rows = db
          .prepare(
            `SELECT t.pk, t.id, t.last_seq, COALESCE(SUM(e.n), 0) AS n, MIN(e.seq) AS lo, MAX(e.seq + e.n - 1) AS hi
             FROM tasks t LEFT JOIN events e ON e.task_pk = t.pk
             GROUP BY t.pk`,
          )
          .all() as { pk: number; id: string; last_seq: number; n: number; lo: number | null; hi: number | null }[];
        const first = db.prepare(`SELECT n, event FROM events WHERE task_pk = ? AND seq = 1`);
        const problems: string[] = [];
        for (const r of rows) {
          // (task_pk, seq) is the primary key and a row holds the n events from its seq on:
          // rows holding n = last_seq events from 1 to last_seq leave no gap and no overlap.
          if (r.n !== r.last_seq || r.lo !== 1 || r.hi !== r.last_seq) {
            problems.push(`task ${r.id}: last_seq ${r.last_seq}, ${r.n} events, seqs ${r.lo}..${r.hi}`);
            continue;
          }
          const e = first.get(r.pk) as PackedRow;
          const kind = fromBinary(StreamResponseSchema, unpack(e)[0]!).payload.case;
          if (kind !== "task") problems.push(`task ${r.id}: its log begins with ${kind}, not the Task`);
        }
        const orphans = (db.prepare(`SELECT COALESCE(SUM(n), 0) AS n FROM events WHERE task_pk NOT IN (SELECT pk FROM tasks)`).get() as { n: number }).n;
        if (orphans > 0) problems.push(`${orphans} events belong to no task`);
        return problems;
      },
      states: () => new Map((db.prepare(`SELECT id, state FROM tasks`).all() as { id: string; state: TaskState }[]).map((r) => [r.id, r.state])),
      events: (taskId) =>
        (db.prepare(`SELECT e.seq, e.n, e.event FROM events e JOIN tasks t ON t.pk = e.task_pk WHERE t.id = ? ORDER BY e.seq`).all(taskId) as (PackedRow & { seq: number })[]).flatMap(
          (r) => unpack(r).map((bytes, i) => ({ seq: r.seq + i, event: fromBinary(StreamResponseSchema, bytes) })),
        ),
      counts: () => ({
        tasks: (db.prepare(`SELECT COUNT(*) AS n FROM tasks`).get() as { n: number }).n,
        events: (db.prepare(`SELECT COALESCE(SUM(n), 0) AS n FROM events`).get() as { n: number }).n,
      }),
      stateCountProblems: () =>
        (
          db
            .prepare(
              `SELECT k.tenant, k.agent, k.state, k.counted, COALESCE(c.n, 0) AS kept FROM
                 (SELECT tenant, agent, state, COUNT(*) AS counted FROM tasks GROUP BY tenant, agent, state) k
                 LEFT JOIN task_counts c USING (tenant, agent, state)
               UNION ALL
               SELECT c.tenant, c.agent, c.state, 0, c.n FROM task_counts c
                 WHERE c.n <> 0 AND NOT EXISTS (SELECT 1 FROM tasks t WHERE t.tenant = c.tenant AND t.agent = c.agent AND t.state = c.state)`,
            )
            .all() as { tenant: string; agent: string; state: number; counted: number; kept: number }[]
        )
          .filter((r) => r.counted !== r.kept)
          .map((r) => `${r.tenant}/${r.agent} state ${r.state}: ${r.counted} task rows, counter ${r.kept}`),
    });
  } finally {
    db.close();
  }
}

/** An events row: `n` events, one as it is, several each after its length as a varint (the schema's packed rows). */
interface PackedRow {
  readonly n: number;
  readonly event: Buffer;
}

/** The events of a row, read here rather than with the store's own code: this is an audit of what it wrote. */
function unpack(row: PackedRow): Buffer[] {
  if (row.n === 1) return [row.event];
  const out: Buffer[] = [];
  let pos = 0;
  while (pos < row.event.length) {
    let length = 0;
    let shift = 0;
    let b: number;
    do {
      b = row.event[pos++]!;
      length |= (b & 0x7f) << shift;
      shift += 7;
    } while (b & 0x80);
    out.push(row.event.subarray(pos, pos + length));
    pos += length;
  }
  if (out.length !== row.n) throw new Error(`events row: ${out.length} events packed where n says ${row.n}`);
  return out;
}
