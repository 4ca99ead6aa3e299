import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { Code, ConnectError } from "@connectrpc/connect";
import { TaskState, type StreamResponse, type Task } from "../gen/a2a/v1/a2a_pb.js";
import { userMessage } from "./helpers/json-messages.js";
import { openRpcStream, post, rpc } from "./helpers/jsonrpc-requests.js";
import { textOf } from "./helpers/message-text.js";
import { textRequest } from "./helpers/messages.js";
import { canKillPostgres, clusterForTests, hasPostgres, noticePostgresSkip } from "./helpers/postgres-cluster.js";
import { openStream, rest } from "./helpers/rest.js";
import { killAllServers, removeDir, sleep, spawnServer, tempDataDir, type ServerProcess } from "./helpers/server-process.js";
import type { SseStream } from "./helpers/sse.js";

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

noticePostgresSkip("postgres-outage.test.ts");

const BINDINGS = ["jsonrpc", "rest", "grpc", "connect"] as const;
type Binding = (typeof BINDINGS)[number];
type Phase = "up" | "down" | "back";

/** The bound on any one answer while the database is down: the pool's connect timeout (5 s) and a margin. */
const DOWN_ANSWER_MS = 8_000;
/** A call that has not answered after this long is a hang. */
const HANG_MS = 30_000;
/** How long the database stays down. */
const OUTAGE_MS = 4_000;

/** How one call ended, as the client saw it. */
type Outcome =
  | { kind: "ok"; task?: Task; events?: number }
  | { kind: "unavailable" }
  | { kind: "error"; detail: string };

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

/** §9.5-style JSON-RPC error: -32000 with an ErrorInfo saying UNAVAILABLE when data is carried. */
function jsonRpcUnavailable(error: any): boolean {
  if (error?.code !== -32000) return false;
  if (error.data === undefined) return true;
  return (error.data as any[]).some((d) => d?.["@type"] === "type.googleapis.com/google.rpc.ErrorInfo" && d.reason === "UNAVAILABLE");
}

/** REST: 503 with Retry-After and a google.rpc.Status body saying UNAVAILABLE (§11.6). */
function restUnavailable(r: { status: number; headers: Headers; json?: any }): boolean {
  return r.status === 503 && Number(r.headers.get("retry-after")) >= 1 && r.json?.error?.code === 503 && r.json?.error?.status === "UNAVAILABLE";
}

function describeError(e: unknown): Outcome {
  if (e instanceof ConnectError && e.code === Code.Unavailable) return { kind: "unavailable" };
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
  async stream(text: string, signal: AbortSignal): Promise<Outcome & { last?: TaskState }> {
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
          return e.data.error.status === "UNAVAILABLE" ? { kind: "unavailable", last } : { kind: "error", detail: JSON.stringify(e.data.error) };
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

describe.skipIf(!hasPostgres)("PostgreSQL killed under a hub's load", () => {
  const cluster = clusterForTests();

  it.skipIf(!canKillPostgres)(
    "answers UNAVAILABLE on JSON-RPC, REST, gRPC and Connect while it is down (bounded, /readyz 503, /healthz 200, alive), recovers by itself, keeps every acknowledged task, and settles the tasks caught in flight",
    async () => {
      const url = await cluster().createDatabase();
      dataDir = tempDataDir();
      const hub = await spawnServer(dataDir, { env: { A2A_HUB_STORE: url } });
      const clients = BINDINGS.map((b) => new LoadClient(hub, b));

      let phase: Phase = "up";
      let stopping = false;
      const calls: CallRecord[] = [];
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
        calls.push({ binding, op, phase: began, ms: Date.now() - start, outcome });
        if (outcome.kind === "ok" && outcome.task?.id) seen.add(outcome.task.id);
        return outcome;
      };

      /** One worker per binding and kind of call, each calling in a loop until told to stop. */
      const worker = async (client: LoadClient, kind: number): Promise<void> => {
        for (let n = 0; !stopping; n++) {
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
      const readyBefore = await fetch(`${hub.url}readyz`);
      expect(readyBefore.status).toBe(200);

      await cluster().kill();
      phase = "down";
      const downAt = Date.now();
      await sleep(1_000);
      expect(hub.child.exitCode, hub.stderr()).toBeNull();
      const health = await fetch(`${hub.url}healthz`);
      expect(health.status).toBe(200);
      const readyStart = Date.now();
      const readyDown = await fetch(`${hub.url}readyz`);
      expect(readyDown.status).toBe(503);
      expect(Date.now() - readyStart).toBeLessThan(DOWN_ANSWER_MS);
      await sleep(OUTAGE_MS - (Date.now() - downAt));
      expect(hub.child.exitCode, hub.stderr()).toBeNull();

      await cluster().restart();
      const upAt = Date.now();
      phase = "back";
      const outageMs = upAt - downAt;
      let readyMs = -1;
      for (;;) {
        if ((await fetch(`${hub.url}readyz`)).status === 200) {
          readyMs = Date.now() - upAt;
          break;
        }
        expect(Date.now() - upAt, "the hub is not ready again").toBeLessThan(15_000);
        await sleep(100);
      }
      await sleep(2_000);
      stopping = true;
      await Promise.all(workers);
      expect(hub.child.exitCode, hub.stderr()).toBeNull();

      // What the clients saw, per binding and phase.
      const summary: Record<string, unknown> = { outageMs, readyAfterRestartMs: readyMs };
      for (const b of BINDINGS) {
        const of = calls.filter((c) => c.binding === b);
        summary[b] = {
          calls: of.length,
          unavailable: of.filter((c) => c.outcome.kind === "unavailable").length,
          downCalls: of.filter((c) => c.phase === "down").length,
          longestDownMs: Math.max(0, ...of.filter((c) => c.phase === "down").map((c) => c.ms)),
          longestMs: Math.max(0, ...of.map((c) => c.ms)),
        };
      }
      console.log("postgres outage:", JSON.stringify(summary));

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
      const grpc = hub.client("grpc");
      for (const a of acked.filter((x) => x.text !== undefined)) {
        const task = await grpc.getTask({ id: a.id });
        expect(task.status?.state, a.text).toBe(TaskState.COMPLETED);
        expect(textOf({ parts: task.artifacts[0]?.parts ?? [] } as never), a.text).toBe(a.text);
      }
      // Every task accepted, and every one anyone heard of, exists and ends in a state a client can act on.
      for (const a of acked) expect((await grpc.getTask({ id: a.id })).id).toBe(a.id);
      const start = Date.now();
      let stuck: Array<{ id: string; state: number }> = [];
      do {
        await sleep(200);
        stuck = await rows(url, `SELECT id, state FROM tasks WHERE state IN (${TaskState.SUBMITTED}, ${TaskState.WORKING})`);
      } while (stuck.length > 0 && Date.now() - start < 10_000);
      expect(stuck, "tasks left in flight with nothing running them").toEqual([]);
      for (const id of seen) expect((await grpc.getTask({ id })).status?.state).not.toBe(TaskState.UNSPECIFIED);
      expect(hub.child.exitCode, hub.stderr()).toBeNull();
    },
    120_000,
  );
});
