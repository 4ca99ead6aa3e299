import { randomUUID } from "node:crypto";
/**
 * Unary SendMessage throughput: the baselines and every a2a-hub binding, at
 * 1 and 32 concurrent connections, with requests/s, p50/p99, errors, the
 * server's CPU share and its RSS after the run. HTTP/1.1 load is autocannon,
 * h2 and gRPC load our Node h2 loader; every call is a new message (its own
 * messageId) and every answer is checked, and the tasks the server stored
 * are counted against the calls sent.
 */
import { a2aClient, countTasks, sampleSendMessage } from "../harness/a2a-clients.js";
import type { BenchContext } from "../harness/bench-context.js";
import { exchangeProblem, h2Exchange } from "../harness/h2-probe.js";
import { waitForQuiet } from "../harness/quiet-machine.js";
import { runLoader, type TimedRun } from "../harness/loader-process.js";
import { CpuMeter, MachineMeter, rssBytes } from "../harness/proc-stats.js";
import { CONNECT_JSON_HEADERS, GRPC_HEADERS, GRPC_WEB_HEADERS, h2Body, JSON_HEADERS, jsonRpcBody, PER_REQUEST_ID, sendMessageJson, type H2Kind } from "../harness/request-bodies.js";
import { checkBody, ECHO_TEXT, type CheckName } from "../harness/response-checks.js";
import type { UnaryCell, UnaryRow } from "../harness/results.js";
import { startBareConnect, startBareNode, startHubChild, startSdk, type ServerUnderTest } from "../harness/servers-under-test.js";
import { spread } from "../harness/stats.js";

const SDK = "@a2a-js/sdk 1.3.0";
const RPC_PATH = "lf.a2a.v1.A2AService/SendMessage";

export type Load =
  | { tool: "autocannon"; path: string; headers: Readonly<Record<string, string>>; body: string; check: CheckName }
  | { tool: "h2"; path: string; headers: Readonly<Record<string, string>>; kind: H2Kind; onGrpcPort: boolean };

/** One row of the table: how to start its server and how to load it. */
export interface RowSpec {
  readonly id: string;
  readonly group: UnaryRow["group"];
  readonly server: string;
  readonly binding: string;
  readonly start: (ctx: BenchContext) => Promise<ServerUnderTest>;
  readonly load: Load;
  /** An A2A server: answers are sampled with a real client and its stored tasks are counted. */
  readonly a2a: boolean;
  /** A binding still being written: a 404 means "not served yet", not a failure. */
  readonly optional?: boolean;
}

/** The unary JSON-RPC (autocannon) and gRPC (h2 loader) SendMessage loads. */
export function unaryLoads(): { readonly jsonrpc: Load; readonly grpc: Load } {
  const jsonrpc = jsonRpcBody("SendMessage", sendMessageJson(ECHO_TEXT, PER_REQUEST_ID));
  return {
    jsonrpc: { tool: "autocannon", path: "", headers: JSON_HEADERS, body: jsonrpc, check: "jsonrpc-task" },
    grpc: { tool: "h2", path: RPC_PATH, headers: GRPC_HEADERS, kind: "grpc", onGrpcPort: true },
  };
}

function rowSpecs(): RowSpec[] {
  const jsonrpc = jsonRpcBody("SendMessage", sendMessageJson(ECHO_TEXT, PER_REQUEST_ID));
  const rest = JSON.stringify(sendMessageJson(ECHO_TEXT, PER_REQUEST_ID));
  const grpc = unaryLoads().grpc;
  const grpcWeb: Load = { tool: "h2", path: RPC_PATH, headers: GRPC_WEB_HEADERS, kind: "grpc-web", onGrpcPort: false };
  const hub = (ctx: BenchContext) => startHubChild(ctx.pinning, ctx.freshDir("hub"));
  return [
    {
      id: "bare-node", group: "baseline", server: "bare node:http", binding: "small JSON POST (HTTP/1.1)", a2a: false,
      start: (ctx) => startBareNode(ctx.pinning),
      load: { tool: "autocannon", path: "", headers: { "content-type": "application/json" }, body: jsonrpc, check: "bare-json" },
    },
    // The hub's RPC stack without the hub: connect-node on the one-port host answering a fixed Task.
    {
      id: "bare-connect-h1", group: "baseline", server: "bare connect-node, one-port host, fixed Task", binding: "Connect unary JSON (HTTP/1.1)", a2a: false,
      start: (ctx) => startBareConnect(ctx.pinning),
      load: { tool: "autocannon", path: RPC_PATH, headers: CONNECT_JSON_HEADERS, body: rest, check: "task-wrapper" },
    },
    {
      id: "bare-connect-h2", group: "baseline", server: "bare connect-node, one-port host, fixed Task", binding: "Connect unary JSON (h2c)", a2a: false,
      start: (ctx) => startBareConnect(ctx.pinning),
      load: { tool: "h2", path: RPC_PATH, headers: CONNECT_JSON_HEADERS, kind: "connect-json", onGrpcPort: false },
    },
    {
      id: "bare-connect-grpc", group: "baseline", server: "bare connect-node, one-port host, fixed Task", binding: "gRPC SendMessage (h2c)", a2a: false,
      start: (ctx) => startBareConnect(ctx.pinning),
      load: grpc,
    },
    {
      id: "bare-connect-grpcweb", group: "baseline", server: "bare connect-node, one-port host, fixed Task", binding: "gRPC-Web SendMessage (h2c)", a2a: false,
      start: (ctx) => startBareConnect(ctx.pinning),
      load: grpcWeb,
    },
    {
      id: "sdk-memory-jsonrpc", group: "baseline", server: `${SDK} InMemoryTaskStore`, binding: "JSON-RPC SendMessage (HTTP/1.1)", a2a: true,
      start: (ctx) => startSdk(ctx.pinning, "memory", ctx.freshDir("sdk-memory")),
      load: { tool: "autocannon", path: "", headers: JSON_HEADERS, body: jsonrpc, check: "jsonrpc-task" },
    },
    {
      id: "sdk-memory-grpc", group: "baseline", server: `${SDK} InMemoryTaskStore`, binding: "gRPC SendMessage (h2c)", a2a: true,
      start: (ctx) => startSdk(ctx.pinning, "memory", ctx.freshDir("sdk-memory")),
      load: grpc,
    },
    {
      id: "sdk-sqlite-jsonrpc", group: "baseline", server: `${SDK} DatabaseTaskStore (SQLite)`, binding: "JSON-RPC SendMessage (HTTP/1.1)", a2a: true,
      start: (ctx) => startSdk(ctx.pinning, "sqlite", ctx.freshDir("sdk-sqlite")),
      load: { tool: "autocannon", path: "", headers: JSON_HEADERS, body: jsonrpc, check: "jsonrpc-task" },
    },
    {
      id: "sdk-sqlite-grpc", group: "baseline", server: `${SDK} DatabaseTaskStore (SQLite)`, binding: "gRPC SendMessage (h2c)", a2a: true,
      start: (ctx) => startSdk(ctx.pinning, "sqlite", ctx.freshDir("sdk-sqlite")),
      load: grpc,
    },
    {
      id: "hub-jsonrpc", group: "a2a-hub", server: "a2a-hub, durable SQLite", binding: "JSON-RPC SendMessage (HTTP/1.1)", a2a: true, optional: true,
      start: hub,
      load: { tool: "autocannon", path: "", headers: JSON_HEADERS, body: jsonrpc, check: "jsonrpc-task" },
    },
    {
      id: "hub-rest", group: "a2a-hub", server: "a2a-hub, durable SQLite", binding: "REST POST /message:send (HTTP/1.1)", a2a: true, optional: true,
      start: hub,
      load: { tool: "autocannon", path: "message:send", headers: JSON_HEADERS, body: rest, check: "task-wrapper" },
    },
    {
      id: "hub-connect-h1", group: "a2a-hub", server: "a2a-hub, durable SQLite", binding: "Connect unary JSON (HTTP/1.1)", a2a: true,
      start: hub,
      load: { tool: "autocannon", path: RPC_PATH, headers: CONNECT_JSON_HEADERS, body: rest, check: "task-wrapper" },
    },
    {
      id: "hub-connect-h2", group: "a2a-hub", server: "a2a-hub, durable SQLite", binding: "Connect unary JSON (h2c)", a2a: true,
      start: hub,
      load: { tool: "h2", path: RPC_PATH, headers: CONNECT_JSON_HEADERS, kind: "connect-json", onGrpcPort: false },
    },
    {
      id: "hub-grpc", group: "a2a-hub", server: "a2a-hub, durable SQLite", binding: "gRPC SendMessage (h2c)", a2a: true,
      start: hub,
      load: grpc,
    },
    {
      id: "hub-grpcweb", group: "a2a-hub", server: "a2a-hub, durable SQLite", binding: "gRPC-Web SendMessage (h2c)", a2a: true,
      start: hub,
      load: grpcWeb,
    },
  ];
}

/** The base URL the load goes to: the SDK serves gRPC on a port of its own. */
function loadUrl(srv: ServerUnderTest, load: Load): string {
  const base = load.tool === "h2" && load.onGrpcPort && srv.grpcUrl ? srv.grpcUrl : srv.url;
  return base + load.path;
}

/** Sends the exact request of the load once and returns why it is wrong, "404" when nothing serves it, or undefined. */
async function probe(url: string, load: Load): Promise<{ problem?: string }> {
  if (load.tool === "autocannon") {
    const res = await fetch(url, { method: "POST", headers: load.headers, body: load.body.replaceAll(PER_REQUEST_ID, randomUUID()) });
    const text = await res.text();
    if (res.status === 404) return { problem: "404" };
    if (res.status !== 200 || !checkBody(load.check, text)) return { problem: `HTTP ${res.status}: ${text.slice(0, 300)}` };
    return {};
  }
  const x = await h2Exchange(url, load.headers, h2Body(load.kind));
  if (x.status === 404) return { problem: "404" };
  return { problem: exchangeProblem(load.kind, x) };
}

interface RunFigures {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  serverCpu: number;
  loaderCpu: number;
  /** Cores the machine was busy with beyond the server and the loader (other tenants of a shared host). */
  otherCpu: number;
}

/** Loads one server at one concurrency: warm-up, then the timed runs. */
async function loadCell(ctx: BenchContext, srv: ServerUnderTest, spec: RowSpec, connections: number): Promise<{ cell: UnaryCell; served: number; sentMax: number; notes: string[] }> {
  const { options, pinning } = ctx;
  const url = loadUrl(srv, spec.load);
  const runs: RunFigures[] = [];
  const notes: string[] = [];
  await waitForQuiet(ctx, `${spec.id} at ${connections} conn`);
  let errors = 0;
  let served = 0;
  let sentMax = 0;
  let meter: CpuMeter | undefined;
  let machine: MachineMeter | undefined;
  const serverCpu: number[] = [];
  const machineCpu: number[] = [];
  const load = spec.load;
  const timing = { connections, warmupSec: options.warmupSec, durationSec: options.durationSec, runs: options.runs };
  const [script, config] =
    load.tool === "autocannon"
      ? ["bench/loaders/autocannon-loader.ts", { url, headers: load.headers, body: load.body, check: load.check, ...timing }]
      : ["bench/loaders/h2-loader.ts", { url, headers: load.headers, kind: load.kind, ...timing }];
  const result = await runLoader<{ error?: string; warmupErrors: number; warmupRequests: number; runs: TimedRun[] }>(
    script,
    config,
    pinning,
    (options.warmupSec + options.runs * options.durationSec) * 1000 + 60_000,
    (child) =>
      child.onLine((line) => {
        if (line.startsWith("MARK start")) {
          meter = new CpuMeter(srv.child.pid);
          machine = new MachineMeter();
        }
        if (line.startsWith("MARK end") && meter && machine) {
          serverCpu.push(meter.share());
          machineCpu.push(machine.cores());
        }
      }),
  );
  if (result.error) throw new Error(`${load.tool} loader: ${result.error}`);
  errors += result.warmupErrors;
  served += result.warmupRequests;
  // A request cut off by the end of a run may still have reached the server.
  sentMax += result.warmupRequests + result.warmupErrors + connections;
  result.runs.forEach((r, i) => {
    errors += r.errors;
    served += r.requests;
    sentMax += r.requests + r.errors + connections;
    if (r.errors > 0) notes.push(`${connections} conn run ${i + 1}: ${JSON.stringify(r.detail)}`);
    const server = serverCpu[i] ?? NaN;
    runs.push({ rps: r.rps, p50Ms: r.p50Ms, p99Ms: r.p99Ms, serverCpu: server, loaderCpu: r.loaderCpu, otherCpu: (machineCpu[i] ?? NaN) - server - r.loaderCpu });
  });
  const cell: UnaryCell = {
    connections,
    rps: spread(runs.map((r) => r.rps)),
    p50Ms: spread(runs.map((r) => r.p50Ms)),
    p99Ms: spread(runs.map((r) => r.p99Ms)),
    errors,
    serverCpu: spread(runs.map((r) => r.serverCpu)),
    loaderCpu: spread(runs.map((r) => r.loaderCpu)),
    otherCpu: spread(runs.map((r) => Math.max(0, r.otherCpu))),
  };
  return { cell, served, sentMax, notes };
}

/** Measures one row end to end on a server of its own; failures are recorded, not thrown. */
export async function measureRow(ctx: BenchContext, spec: RowSpec): Promise<UnaryRow> {
  const row: UnaryRow = { id: spec.id, group: spec.group, server: spec.server, binding: spec.binding, loader: spec.load.tool, status: "ok", cells: [] };
  ctx.log(`unary: ${spec.server} / ${spec.binding}`);
  let srv: ServerUnderTest | undefined;
  try {
    srv = await spec.start(ctx);
    const url = loadUrl(srv, spec.load);
    const first = await probe(url, spec.load);
    if (first.problem === "404" && spec.optional) {
      row.status = "not served yet";
      row.note = `POST ${new URL(url).pathname} answers 404; this row fills in once the binding is mounted`;
      return row;
    }
    if (first.problem) throw new Error(`probe before timing: ${first.problem}`);
    const client = spec.a2a ? a2aClient(srv.grpcUrl ?? srv.url) : undefined;
    if (client) await sampleSendMessage(client, 3);
    const before = client ? await countTasks(client) : undefined;
    const notes: string[] = [];
    let served = 0;
    let sentMax = 0;
    for (const c of ctx.options.connections) {
      const r = await loadCell(ctx, srv, spec, c);
      row.cells.push(r.cell);
      served += r.served;
      sentMax += r.sentMax;
      notes.push(...r.notes);
    }
    row.rssAfterBytes = rssBytes(srv.child.pid);
    const checks: string[] = ["every answer checked"];
    if (client && before) {
      const after = await countTasks(client);
      const added = after.total - before.total;
      const completed = after.completed - before.completed;
      checks.push(`store +${added} tasks for ${served} good answers`);
      if (completed !== added) notes.push(`${added - completed} of the ${added} new tasks are not completed`);
      if (added < served || added > sentMax) notes.push(`store gained ${added} tasks; expected between ${served} and ${sentMax}`);
      const last = await probe(url, spec.load);
      if (last.problem) notes.push(`probe after timing: ${last.problem}`);
      await sampleSendMessage(client, 3);
      checks.push("sampled with a real client before and after");
    }
    row.verification = checks.join("; ");
    if (notes.length > 0) {
      row.note = notes.slice(0, 6).join("; ");
      row.checkFailed = true;
    }
  } catch (e) {
    row.status = "failed";
    row.note = (e instanceof Error ? e.message : String(e)).split("\n").slice(0, 4).join(" | ");
    ctx.log(`unary: ${spec.id} failed: ${row.note}`);
  } finally {
    await srv?.child.stop();
  }
  return row;
}

/** Runs every row in turn, each on a fresh server process. */
export async function measureUnary(ctx: BenchContext, only?: (id: string) => boolean): Promise<UnaryRow[]> {
  const rows: UnaryRow[] = [];
  for (const spec of rowSpecs()) {
    if (only && !only(spec.id)) continue;
    rows.push(await measureRow(ctx, spec));
  }
  return rows;
}
