import { fromBinary } from "@bufbuild/protobuf";
import pg from "pg";
import { StreamResponseSchema, TaskState } from "../../gen/a2a/v1/a2a_pb.js";
import type { LoggedEvent } from "./event-log.js";

/** A task row as the fleet shares it: its state and the replica running it (null once settled). */
export interface TaskRow {
  readonly state: TaskState;
  readonly owner: string | null;
}

/**
 * A fleet's PostgreSQL database read from outside the hubs, to audit what
 * they left (table and column names of src/store/postgres/migrations.ts
 * and fleet-sql.ts). One connection, closed by `close()`.
 */
export interface FleetDb {
  /** Each task id with its state and owner. */
  tasks(): Promise<Map<string, TaskRow>>;
  /** The stored events of a task (by id, in any tenant or agent), in seq order. */
  events(taskId: string): Promise<LoggedEvent[]>;
  /** Every task whose log is not exactly seqs 1..last_seq beginning with the Task. */
  logProblems(): Promise<string[]>;
  /** Push deliveries not yet made: live outbox rows, and dead ones. */
  outbox(): Promise<{ live: number; dead: number }>;
  /** Replicas holding a live lease now (database clock). */
  liveReplicas(): Promise<string[]>;
  /** How long the replica's lease has to run, in ms by the database clock (negative once it ran out); undefined without one. */
  leaseLeftMs(replica: string): Promise<number | undefined>;
  close(): Promise<void>;
}

export async function openFleetDb(url: string): Promise<FleetDb> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const rows = async <R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> => (await client.query<R>(text, values)).rows;
  return {
    tasks: async () => new Map((await rows<{ id: string; state: number; owner: string | null }>(`SELECT id, state, owner FROM tasks`)).map((r) => [r.id, { state: r.state, owner: r.owner }])),
    events: async (taskId) =>
      (await rows<{ seq: number; event: Buffer }>(`SELECT e.seq, e.event FROM events e JOIN tasks t ON t.pk = e.task_pk WHERE t.id = $1 ORDER BY e.seq`, [taskId])).map((r) => ({
        seq: r.seq,
        event: fromBinary(StreamResponseSchema, r.event),
      })),
    logProblems: async () => {
      const found = await rows<{ id: string; last_seq: number; n: number; lo: number | null; hi: number | null; first: Buffer | null }>(
        `SELECT t.id, t.last_seq, COUNT(e.seq)::integer AS n, MIN(e.seq) AS lo, MAX(e.seq) AS hi,
                (SELECT f.event FROM events f WHERE f.task_pk = t.pk AND f.seq = 1) AS first
         FROM tasks t LEFT JOIN events e ON e.task_pk = t.pk GROUP BY t.pk`,
      );
      const problems: string[] = [];
      for (const r of found) {
        // (task_pk, seq) is the primary key: n rows from 1 to n = last_seq leave no gap.
        if (r.n !== r.last_seq || r.lo !== 1 || r.hi !== r.last_seq) problems.push(`task ${r.id}: last_seq ${r.last_seq}, ${r.n} events, seqs ${r.lo}..${r.hi}`);
        else if (fromBinary(StreamResponseSchema, r.first!).payload.case !== "task") problems.push(`task ${r.id}: its log does not begin with the Task`);
      }
      return problems;
    },
    outbox: async () => {
      const [r] = await rows<{ live: number; dead: number }>(`SELECT COUNT(*) FILTER (WHERE NOT dead)::integer AS live, COUNT(*) FILTER (WHERE dead)::integer AS dead FROM push_outbox`);
      return r!;
    },
    leaseLeftMs: async (replica) => {
      const [r] = await rows<{ ms: number }>(`SELECT (EXTRACT(EPOCH FROM (expires_at - clock_timestamp())) * 1000)::float8 AS ms FROM replicas WHERE id = $1`, [replica]);
      return r?.ms;
    },
    liveReplicas: async () => (await rows<{ id: string }>(`SELECT id FROM replicas WHERE expires_at > now() ORDER BY id`)).map((r) => r.id),
    close: () => client.end(),
  };
}

/** Whether a stored state is in flight: a run must hold the task. */
export const IN_FLIGHT = new Set([TaskState.SUBMITTED, TaskState.WORKING]);
