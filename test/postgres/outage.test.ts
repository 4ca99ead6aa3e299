import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { Code, ConnectError } from "@connectrpc/connect";
import { TaskState, type StreamResponse, type Task } from "../../gen/a2a/v1/a2a_pb.js";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { userMessage } from "../helpers/json-messages.js";
import { openRpcStream, post, rpc } from "../helpers/jsonrpc-requests.js";
import { textOf } from "../helpers/message-text.js";
import { textRequest } from "../helpers/messages.js";
import { canKillPostgres, clusterForTests, hasPostgres, noticePostgresSkip } from "../helpers/postgres-cluster.js";
import { openStream, rest } from "../helpers/rest.js";
import { killAllServers, removeDir, sleep, spawnServer, tempDataDir, type ServerProcess } from "../helpers/server-process.js";
import type { SseStream } from "../helpers/sse.js";

/**
 * PostgreSQL itself killed mid-load (`pg_ctl stop -m immediate`, every
 * connection cut, no checkpoint) and started again a few seconds later,
 * under a hub serving a mixed load on JSON-RPC, REST, gRPC and Connect.
 * While it is down every call is answered UNAVAILABLE (the change did not
 * happen; retry) within the pool's connect timeout, never hangs, and the
 * process lives; once it is back the hub serves again by itself, every
 * task a client was told of is as it was told, and the tasks caught in
 * flight end in a state a client can act on.
 */

noticePostgresSkip("postgres/outage.test.ts");

const BINDINGS = ["jsonrpc", "rest", "grpc", "connect"] as const;
type Binding = (typeof BINDINGS)[number];
type Phase = "up" | "down" | "back";

/** The bound on any one answer while the database is down: the pool's connect timeout (5 s) and a margin. */
const DOWN_ANSWER_MS = 8_000;
/** A call that has not answered after this long is a hang. */
const HANG_MS = 30_000;
/** How long the tasks caught in flight run: they finish while the database is down. */
const IN_FLIGHT_MS = 3_000;
/** How long the database stays down. */
const OUTAGE_MS = 4_000;

/** How one call ended, as the client saw it; a stream also says the last state it carried. */
type Outcome = ({ kind: "ok"; task?: Task; events?: number } | { kind: "unavailable" } | { kind: "error"; detail: string }) & { last?: TaskState };

interface CallRecord {
  readonly binding: Binding;
  readonly op: string;
  /** Where the database was when the call began. */
  readonly phase: Phase;
  readonly ms: number;
  readonly outcome: Outcome;
}

/** What a client was told of a task: completed (with the text it echoes), or accepted and still running. */
interface Acked {
  readonly id: string;
  readonly binding: Binding;
  readonly text?: string;
  readonly state: TaskState;
}

const STATE_NAMES: Record<string, TaskState> = {
  TASK_STATE_SUBMITTED: TaskState.SUBMITTED,
  TASK_STATE_WORKING: TaskState.WORKING,
  TASK_STATE_COMPLETED: TaskState.COMPLETED,
  TASK_STATE_FAILED: TaskState.FAILED,
  TASK_STATE_CANCELED: TaskState.CANCELED,
};

/** A task in JSON (JSON-RPC, REST) as the few fields compared here. */
function jsonTask(t: any): Task {
  return {
    id: t.id,
    status: { state: STATE_NAMES[t.status?.state] ?? TaskState.UNSPECIFIED },
    artifacts: (t.artifacts ?? []).map((a: any) => ({ parts: a.parts.map((p: any) => ({ content: { case: "text", value: p.text } })) })),
  } as unknown as Task;
}

/** Whether error details (JSON) hold an ErrorInfo saying UNAVAILABLE (§9.5, §11.6). */
function saysUnavailable(details: unknown): boolean {
  return Array.isArray(details) && details.some((d) => d?.["@type"] === "type.googleapis.com/google.rpc.ErrorInfo" && d.reason === "UNAVAILABLE");
}

/** JSON-RPC: the server-defined -32000, with the ErrorInfo in data. */
function jsonRpcUnavailable(error: any): boolean {
  return error?.code === -32000 && saysUnavailable(error.data);
}

/** REST: 503 with Retry-After and a google.rpc.Status body saying UNAVAILABLE (§11.6). */
function restUnavailable(r: { status: number; headers: Headers; json?: any }): boolean {
  return r.status === 503 && Number(r.headers.get("retry-after")) >= 1 && r.json?.error?.code === 503 && r.json?.error?.status === "UNAVAILABLE" && saysUnavailable(r.json.error.details);
}

function describeError(e: unknown): Outcome {
  if (e instanceof ConnectError && e.code === Code.Unavailable && e.findDetails(ErrorInfoSchema).some((i) => i.reason === "UNAVAILABLE")) return { kind: "unavailable" };
  if (e instanceof ConnectError) return { kind: "error", detail: `${Code[e.code]}: ${e.rawMessage}` };
  return { kind: "error", detail: String(e) };
}

/** One client of each binding, with the same few calls on each. */
class LoadClient {
  private readonly base: string;
  constructor(
    private readonly hub: ServerProcess,
    readonly binding: Binding,
  ) {
    this.base = hub.url.replace(/\/$/, "");
  }

  /** A blocking send (or returnImmediately): the task, or how it failed. */
  async send(text: string, returnImmediately: boolean, signal: AbortSignal): Promise<Outcome> {
    const configuration = returnImmediately ? { returnImmediately: true } : undefined;
    switch (this.binding) {
      case "jsonrpc": {
        const r = await post(this.hub.url, rpc("SendMessage", { message: userMessage(text), configuration }));
        if (r.json?.result?.task) return { kind: "ok", task: jsonTask(r.json.result.task) };
        return jsonRpcUnavailable(r.json?.error) ? { kind: "unavailable" } : { kind: "error", detail: r.text };
      }
      case "rest": {
        const r = await rest(this.base, "POST", "/message:send", { body: { message: userMessage(text), configuration } });
        if (r.status === 200 && r.json?.task) return { kind: "ok", task: jsonTask(r.json.task) };
        return restUnavailable(r) ? { kind: "unavailable" } : { kind: "error", detail: `${r.status} ${r.headers.get("retry-after")} ${r.text}` };
      }
      default: {
        try {
          const res = await this.hub.client(this.binding).sendMessage(textRequest(text, { configuration }), { signal });
          if (res.payload.case === "task") return { kind: "ok", task: res.payload.value };
          return { kind: "error", detail: `answered ${res.payload.case}` };
        } catch (e) {
          return describeError(e);
        }
      }
    }
  }

  /** A streaming send, read to its end: the task it began with and how many events came, or how it failed. */
  async stream(text: string, signal: AbortSignal): Promise<Outcome> {
    if (this.binding === "jsonrpc" || this.binding === "rest") {
      const body = { message: userMessage(text) };
      let s: SseStream;
      if (this.binding === "jsonrpc") s = await openRpcStream(this.hub.url, "SendStreamingMessage", body);
      else s = await openStream(this.base, "POST", "/message:stream", { body });
      signal.addEventListener("abort", () => s.abort.abort(), { once: true });
      if (!s.events) {
        if (this.binding === "jsonrpc") return jsonRpcUnavailable(s.json?.error) ? { kind: "unavailable" } : { kind: "error", detail: JSON.stringify(s.json) };
        return restUnavailable({ status: s.status, headers: s.headers, json: s.json }) ? { kind: "unavailable" } : { kind: "error", detail: `${s.status} ${JSON.stringify(s.json)}` };
      }
      let task: Task | undefined;
      let events = 0;
      let last: TaskState | undefined;
      for await (const e of s.events) {
        if (e.data === undefined) continue;
        const result = this.binding === "jsonrpc" ? e.data.result : e.data;
        if (this.binding === "jsonrpc" && e.data.error) {
          return jsonRpcUnavailable(e.data.error) ? { kind: "unavailable", last } : { kind: "error", detail: JSON.stringify(e.data.error) };
        }
        if (this.binding === "rest" && e.data.error) {
          return e.data.error.status === "UNAVAILABLE" && saysUnavailable(e.data.error.details) ? { kind: "unavailable", last } : { kind: "error", detail: JSON.stringify(e.data.error) };
        }
        events++;
        if (result?.task) task ??= jsonTask(result.task);
        if (result?.statusUpdate) last = STATE_NAMES[result.statusUpdate.status.state];
      }
      return { kind: "ok", task, events, last };
    }
    let task: Task | undefined;
    let events = 0;
    let last: TaskState | undefined;
    try {
      for await (const e of this.hub.client(this.binding).sendStreamingMessage(textRequest(text), { signal }) as AsyncIterable<StreamResponse>) {
        events++;
        if (e.payload.case === "task") task ??= e.payload.value;
        if (e.payload.case === "statusUpdate") last = e.payload.value.status?.state;
      }
      return { kind: "ok", task, events, last };
    } catch (e) {
      return { ...describeError(e), last };
    }
  }

  /** GetTask: the task, or how it failed. */
  async get(id: string, signal: AbortSignal): Promise<Outcome> {
    switch (this.binding) {
      case "jsonrpc": {
        const r = await post(this.hub.url, rpc("GetTask", { id }));
        if (r.json?.result) return { kind: "ok", task: jsonTask(r.json.result) };
        return jsonRpcUnavailable(r.json?.error) ? { kind: "unavailable" } : { kind: "error", detail: r.text };
      }
      case "rest": {
        const r = await rest(this.base, "GET", `/tasks/${id}`);
        if (r.status === 200) return { kind: "ok", task: jsonTask(r.json) };
        return restUnavailable(r) ? { kind: "unavailable" } : { kind: "error", detail: `${r.status} ${r.text}` };
      }
      default:
        try {
          return { kind: "ok", task: await this.hub.client(this.binding).getTask({ id }, { signal }) };
        } catch (e) {
          return describeError(e);
        }
    }
  }
}

async function rows<R>(url: string, sql: string): Promise<R[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(sql)).rows as R[];
  } finally {
    await c.end();
  }
}

let dataDir: string | undefined;
afterEach(async () => {
  await killAllServers();
  removeDir(dataDir);
  dataDir = undefined;
});

/** The log lines a hub wrote at warn or error level, counted by message. */
function troubles(stderr: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of stderr.split("\n")) {
    if (!line.startsWith("{")) continue;
    const l = JSON.parse(line) as { level?: string; message?: string };
    if (l.level === "warn" || l.level === "error") counts[`${l.level}: ${l.message}`] = (counts[`${l.level}: ${l.message}`] ?? 0) + 1;
  }
  return counts;
}

describe.skipIf(!hasPostgres)("PostgreSQL killed under a hub's load", () => {
  const cluster = clusterForTests();

  // The third: the database is down longer than the replicas' leases, so when it is back each replica's sweep may fail the other's tasks caught in flight.
  it.skipIf(!canKillPostgres).each([
    { replicas: 1, leaseMs: undefined },
    { replicas: 2, leaseMs: undefined },
    { replicas: 2, leaseMs: 1_000 },
  ])(
    "$replicas replica(s), lease $leaseMs ms: UNAVAILABLE on JSON-RPC, REST, gRPC and Connect while it is down (bounded, /readyz 503, /healthz 200, alive), recovers by itself, keeps every acknowledged task, settles the tasks caught in flight",
    async ({ replicas, leaseMs }) => {
      const url = await cluster().createDatabase();
      dataDir = tempDataDir();
      const hubs: ServerProcess[] = [];
      for (let i = 0; i < replicas; i++) hubs.push(await spawnServer(dataDir, { env: { A2A_HUB_STORE: url, ...(leaseMs ? { A2A_HUB_STORE_LEASE_MS: String(leaseMs) } : {}) } }));
      // Per binding, a client of each replica: the load spreads over them call by call.
      const clients = BINDINGS.map((b) => hubs.map((h) => new LoadClient(h, b)));
      const alive = (): void => {
        for (const h of hubs) expect(h.child.exitCode, h.stderr()).toBeNull();
      };

      let phase: Phase = "up";
      let stopping = false;
      let downAt = Number.POSITIVE_INFINITY;
      const calls: Array<CallRecord & { endedAt: number }> = [];
      const acked: Acked[] = [];
      /** Every task id a client heard of, acknowledged or not (a stream's first event, say). */
      const seen = new Set<string>();

      const record = async (binding: Binding, op: string, run: (signal: AbortSignal) => Promise<Outcome>): Promise<Outcome> => {
        const began = phase;
        const start = Date.now();
        const signal = AbortSignal.timeout(HANG_MS);
        let outcome: Outcome;
        try {
          outcome = await run(signal);
        } catch (e) {
          outcome = { kind: "error", detail: signal.aborted ? `no answer within ${HANG_MS} ms` : String(e) };
        }
        calls.push({ binding, op, phase: began, ms: Date.now() - start, endedAt: Date.now(), outcome });
        if (outcome.kind === "ok" && outcome.task?.id) seen.add(outcome.task.id);
        return outcome;
      };

      /** One worker per binding and kind of call, each calling in a loop until told to stop. */
      const worker = async (of: LoadClient[], kind: number): Promise<void> => {
        for (let n = 0; !stopping; n++) {
          const client = of[n % of.length]!;
          const b = client.binding;
          if (kind === 0) {
            const text = `acked ${b} ${n} ✓`;
            const o = await record(b, "send", (s) => client.send(text, false, s));
            if (o.kind === "ok" && o.task?.status?.state === TaskState.COMPLETED) acked.push({ id: o.task.id, binding: b, text, state: TaskState.COMPLETED });
          } else if (kind === 1) {
            const o = await record(b, "send returnImmediately", (s) => client.send("slow 300", true, s));
            if (o.kind === "ok" && o.task) acked.push({ id: o.task.id, binding: b, state: o.task.status!.state });
          } else if (kind === 2) {
            await record(b, "stream", (s) => client.stream("stream 4", s));
          } else {
            const prior = acked[Math.floor(Math.random() * acked.length)];
            if (prior) await record(b, "get", (s) => client.get(prior.id, s));
          }
          // A call that failed at once must not spin: the load stays a load, not a flood.
          await sleep(phase === "down" ? 100 : 10);
        }
      };
      const workers = clients.flatMap((c) => [0, 1, 2, 3].map((k) => worker(c, k)));

      await sleep(1_500);
      for (const h of hubs) expect((await fetch(`${h.url}readyz`)).status).toBe(200);

      // Caught in flight: on every binding and replica, tasks WORKING when the database dies, which finish while it is down.
      const caught: Array<Promise<Outcome>> = [];
      const accepted: Array<Promise<Outcome>> = [];
      for (const client of clients.flat()) {
        caught.push(record(client.binding, "caught blocking send", (s) => client.send(`slow ${IN_FLIGHT_MS}`, false, s)));
        caught.push(record(client.binding, "caught stream", (s) => client.stream(`slow ${IN_FLIGHT_MS}`, s)));
        accepted.push(record(client.binding, "caught send returnImmediately", (s) => client.send(`slow ${IN_FLIGHT_MS}`, true, s)));
      }
      const caughtIds = (await Promise.all(accepted)).map((o) => (o.kind === "ok" ? o.task!.id : `not accepted: ${JSON.stringify(o)}`));
      await cluster().kill();
      phase = "down";
      downAt = Date.now();
      await sleep(1_000);
      alive();
      for (const h of hubs) {
        expect((await fetch(`${h.url}healthz`)).status).toBe(200);
        const readyStart = Date.now();
        expect((await fetch(`${h.url}readyz`)).status).toBe(503);
        expect(Date.now() - readyStart).toBeLessThan(DOWN_ANSWER_MS);
      }
      await sleep(OUTAGE_MS - (Date.now() - downAt));
      alive();

      await cluster().restart();
      const upAt = Date.now();
      phase = "back";
      const outageMs = upAt - downAt;
      let readyMs = -1;
      for (const h of hubs) {
        while ((await fetch(`${h.url}readyz`)).status !== 200) {
          expect(Date.now() - upAt, "the hub is not ready again").toBeLessThan(15_000);
          await sleep(100);
        }
        readyMs = Math.max(readyMs, Date.now() - upAt);
      }
      await sleep(2_000);
      stopping = true;
      await Promise.all(workers);
      const caughtOutcomes = await Promise.all(caught);
      alive();

      // What the clients saw, per binding and phase.
      const summary: Record<string, unknown> = { replicas, leaseMs, outageMs, readyAfterRestartMs: readyMs };
      for (const b of BINDINGS) {
        const of = calls.filter((c) => c.binding === b);
        const caught = of.filter((c) => c.phase === "up" && c.endedAt > downAt);
        summary[b] = {
          calls: of.length,
          unavailable: of.filter((c) => c.outcome.kind === "unavailable").length,
          begunWhileDown: of.filter((c) => c.phase === "down").length,
          longestBegunWhileDownMs: Math.max(0, ...of.filter((c) => c.phase === "down").map((c) => c.ms)),
          caughtInFlight: caught.length,
          caughtUnavailable: caught.filter((c) => c.outcome.kind === "unavailable").length,
          longestMs: Math.max(0, ...of.map((c) => c.ms)),
        };
      }

      const errors = calls.filter((c) => c.outcome.kind === "error");
      expect(errors.map((c) => `${c.binding} ${c.op} (${c.phase}, ${c.ms} ms): ${(c.outcome as { detail: string }).detail.slice(0, 300)}`)).toEqual([]);
      for (const b of BINDINGS) {
        const down = calls.filter((c) => c.binding === b && c.phase === "down");
        // Every binding was refused while the database was down, each call within the bound.
        expect(down.filter((c) => c.outcome.kind === "unavailable").length, b).toBeGreaterThan(0);
        for (const c of down) expect(c.ms, `${b} ${c.op} began while the database was down`).toBeLessThan(DOWN_ANSWER_MS);
        // And served again once it was back.
        const back = calls.filter((c) => c.binding === b && c.phase === "back");
        expect(back.filter((c) => c.outcome.kind === "ok").length, b).toBeGreaterThan(0);
      }

      // Every task a client was told was COMPLETED is still, with what it echoed.
      const grpc = hubs[0]!.client("grpc");
      for (const a of acked.filter((x) => x.text !== undefined)) {
        const task = await grpc.getTask({ id: a.id });
        expect(task.status?.state, a.text).toBe(TaskState.COMPLETED);
        expect(textOf({ parts: task.artifacts[0]?.parts ?? [] } as never), a.text).toBe(a.text);
      }
      // Nothing is left in flight with nothing running it; every task accepted, or heard of, exists and ends COMPLETED or FAILED.
      const start = Date.now();
      let stuck: Array<{ id: string; state: number }> = [];
      do {
        await sleep(200);
        stuck = await rows(url, `SELECT id, state FROM tasks WHERE state IN (${TaskState.SUBMITTED}, ${TaskState.WORKING})`);
      } while (stuck.length > 0 && Date.now() - start < 10_000);
      expect(stuck, "tasks left in flight with nothing running them").toEqual([]);
      // Failed by the replica that lost its writes, or (a lease shorter than the outage) by a sweep that took it for dead.
      const failedBecause = leaseMs ? /task store could not be reached|server that ran this task stopped/ : /task store could not be reached/;
      let failed = 0;
      for (const id of new Set([...seen, ...acked.map((a) => a.id)])) {
        const task = await grpc.getTask({ id });
        expect([TaskState.COMPLETED, TaskState.FAILED], id).toContain(task.status?.state);
        if (task.status?.state === TaskState.FAILED) {
          failed++;
          expect(textOf(task.status.message), id).toMatch(failedBecause);
        }
      }
      summary.failedInFlight = failed;
      // The tasks caught in flight finished while their commits could not be stored: each ends FAILED, saying why.
      for (const id of caughtIds) {
        const task = await grpc.getTask({ id });
        expect(task.status?.state, id).toBe(TaskState.FAILED);
        expect(textOf(task.status?.message), id).toMatch(failedBecause);
      }
      // Their blocking sends and streams were answered: UNAVAILABLE, or the task FAILED.
      const stateOf = (o: Outcome): string => (o.kind !== "ok" ? o.kind : `${o.events === undefined ? "task" : "stream"} ${TaskState[(o.events === undefined ? o.task?.status?.state : o.last) ?? 0]}`);
      summary.caught = caughtOutcomes.map(stateOf);
      for (const o of caughtOutcomes) expect(["unavailable", "task FAILED", "stream FAILED"]).toContain(stateOf(o));
      // And at once, not when the database came back: what waits for a task whose writes were lost is told so.
      for (const c of calls.filter((x) => x.op.startsWith("caught "))) expect(c.endedAt, `${c.binding} ${c.op}`).toBeLessThan(upAt);
      summary.tasks = (await rows<{ n: number }>(url, "SELECT COUNT(*)::integer AS n FROM tasks"))[0]!.n;

      // The fleet is whole again: every replica's lease is live, and (two replicas) each hears the other's events.
      const [leases] = await rows<{ n: number }>(url, "SELECT COUNT(*)::integer AS n FROM replicas WHERE expires_at > now()");
      expect(leases!.n).toBe(replicas);
      if (replicas > 1) {
        const slow = (await hubs[0]!.client("grpc").sendMessage(textRequest("slow 500", { configuration: { returnImmediately: true } }))).payload.value as Task;
        const watched: StreamResponse[] = [];
        for await (const e of hubs[1]!.client("grpc").subscribeToTask({ id: slow.id }, { signal: AbortSignal.timeout(10_000) })) watched.push(e);
        const last = watched.at(-1)?.payload;
        expect(last?.case === "statusUpdate" && last.value.status?.state).toBe(TaskState.COMPLETED);
      }
      summary.troubles = hubs.map((h) => troubles(h.stderr()));
      // The tasks caught in flight wait on one probe of the store per outage, not one warning and one query loop each.
      // Every unit of the outage failed: the first is logged, the rest counted in one line once units commit again.
      for (const t of summary.troubles as Array<Record<string, number>>) {
        expect(t["warn: the task store cannot be reached; tasks whose writes were lost are settled once it answers"] ?? 0).toBeLessThanOrEqual(2);
        expect(t["error: committing task events failed; they were not stored"] ?? 0).toBeLessThanOrEqual(2);
      }
      // Units the server rolled back to break a deadlock between replicas, sent again by the store (none of them answered Internal above).
      summary.deadlocksInServerLogSoFar = cluster().log().split("deadlock detected").length - 1;
      console.log("postgres outage:", JSON.stringify(summary, null, 1));
      alive();
    },
    120_000,
  );
});
