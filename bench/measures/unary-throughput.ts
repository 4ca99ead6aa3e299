/**
 * Unary SendMessage throughput: the baselines and every a2a-hub binding, at
 * 1 and 32 concurrent connections, with requests/s, p50/p99, errors, the
 * server's CPU share and its RSS after the run. HTTP/1.1 load is autocannon
 * (every body checked); h2 and gRPC load is h2load (checked by raw probes
 * before and after, by response size during, and by counting the tasks the
 * server stored against the requests sent).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { a2aClient, countTasks, sampleSendMessage } from "../harness/a2a-clients.js";
import type { BenchContext } from "../harness/bench-context.js";
import { exchangeProblem, h2Exchange } from "../harness/h2-probe.js";
import { waitForQuiet } from "../harness/quiet-machine.js";
import { runH2load, type H2loadRun } from "../harness/h2load.js";
import { runLoader } from "../harness/loader-process.js";
import { CpuMeter, MachineMeter, rssBytes } from "../harness/proc-stats.js";
import { CONNECT_JSON_HEADERS, GRPC_HEADERS, JSON_HEADERS, jsonRpcBody, sendMessageJson, writeBodyFiles } from "../harness/request-bodies.js";
import { checkBody, type CheckName } from "../harness/response-checks.js";
import type { UnaryCell, UnaryRow } from "../harness/results.js";
import { startBareNode, startHubChild, startSdk, type ServerUnderTest } from "../harness/servers-under-test.js";
import { spread } from "../harness/stats.js";
import type { AutocannonRun } from "../loaders/autocannon-loader.js";

const SDK = "@a2a-js/sdk 1.3.0";
const RPC_PATH = "lf.a2a.v1.A2AService/SendMessage";

type Load =
  | { tool: "autocannon"; path: string; headers: Readonly<Record<string, string>>; body: string; check: CheckName }
  | { tool: "h2load"; path: string; headers: Readonly<Record<string, string>>; bodyFile: string; kind: "grpc" | "connect-json"; onGrpcPort: boolean };

/** One row of the table: how to start its server and how to load it. */
interface RowSpec {
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

function rowSpecs(bodies: { grpcSendMessage: string; connectSendMessage: string }): RowSpec[] {
  const jsonrpc = jsonRpcBody("SendMessage", sendMessageJson());
  const rest = JSON.stringify(sendMessageJson());
  const grpc: Load = { tool: "h2load", path: RPC_PATH, headers: GRPC_HEADERS, bodyFile: bodies.grpcSendMessage, kind: "grpc", onGrpcPort: true };
  const hub = (ctx: BenchContext) => startHubChild(ctx.pinning, ctx.freshDir("hub"));
  return [
    {
      id: "bare-node", group: "baseline", server: "bare node:http", binding: "small JSON POST (HTTP/1.1)", a2a: false,
      start: (ctx) => startBareNode(ctx.pinning),
      load: { tool: "autocannon", path: "", headers: { "content-type": "application/json" }, body: jsonrpc, check: "bare-json" },
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
      load: { tool: "h2load", path: RPC_PATH, headers: CONNECT_JSON_HEADERS, bodyFile: bodies.connectSendMessage, kind: "connect-json", onGrpcPort: false },
    },
    {
      id: "hub-grpc", group: "a2a-hub", server: "a2a-hub, durable SQLite", binding: "gRPC SendMessage (h2c)", a2a: true,
      start: hub,
      load: grpc,
    },
  ];
}

/** The base URL the load goes to: the SDK serves gRPC on a port of its own. */
function loadUrl(srv: ServerUnderTest, load: Load): string {
  const base = load.tool === "h2load" && load.onGrpcPort && srv.grpcUrl ? srv.grpcUrl : srv.url;
  return base + load.path;
}

/** Sends the exact request of the load once and returns why it is wrong, "404" when nothing serves it, or undefined. */
async function probe(url: string, load: Load): Promise<{ problem?: string; bytes: number }> {
  if (load.tool === "autocannon") {
    const res = await fetch(url, { method: "POST", headers: load.headers, body: load.body });
    const text = await res.text();
    if (res.status === 404) return { problem: "404", bytes: text.length };
    if (res.status !== 200 || !checkBody(load.check, text)) return { problem: `HTTP ${res.status}: ${text.slice(0, 300)}`, bytes: text.length };
    return { bytes: Buffer.byteLength(text) };
  }
  const x = await h2Exchange(url, load.headers, readFileSync(load.bodyFile));
  if (x.status === 404) return { problem: "404", bytes: x.body.length };
  return { problem: exchangeProblem(load.kind, x), bytes: x.body.length };
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
async function loadCell(ctx: BenchContext, srv: ServerUnderTest, spec: RowSpec, connections: number, expectedBytes: number): Promise<{ cell: UnaryCell; served: number; sentMax: number; notes: string[] }> {
  const { options, pinning } = ctx;
  const url = loadUrl(srv, spec.load);
  const runs: RunFigures[] = [];
  const notes: string[] = [];
  await waitForQuiet(ctx, `${spec.id} at ${connections} conn`);
  let errors = 0;
  let served = 0;
  let sentMax = 0;
  if (spec.load.tool === "autocannon") {
    let meter: CpuMeter | undefined;
    let machine: MachineMeter | undefined;
    const serverCpu: number[] = [];
    const machineCpu: number[] = [];
    const result = await runLoader<{ error?: string; warmupErrors: number; warmupRequests: number; runs: AutocannonRun[] }>(
      "bench/loaders/autocannon-loader.ts",
      { url, headers: spec.load.headers, body: spec.load.body, connections, warmupSec: options.warmupSec, durationSec: options.durationSec, runs: options.runs, check: spec.load.check },
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
    if (result.error) throw new Error(`autocannon: ${result.error}`);
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
  } else {
    const load = spec.load;
    const logFile = join(ctx.workDir, `h2load-${spec.id}-${connections}.log`);
    const account = (r: H2loadRun, label: string) => {
      let bad = r.failed + r.errored + r.timeout;
      // An error answer (gRPC trailers-only, Connect error JSON) is far smaller than a task.
      const missing = Math.round((expectedBytes * 0.97 * r.succeeded - r.dataBytesPerResponse * r.succeeded) / expectedBytes);
      if (missing > 0) {
        bad += missing;
        notes.push(`${label}: ${r.dataBytesPerResponse.toFixed(0)} data bytes per answer, a completed task is ${expectedBytes}`);
      }
      if (bad > 0) notes.push(`${label}: ${r.failed} failed, ${r.errored} errored, ${r.timeout} timeout`);
      errors += bad;
      served += r.succeeded;
      sentMax += r.started;
    };
    const base = { url, bodyFile: load.bodyFile, headers: load.headers, clients: connections, logFile };
    account(await runH2load({ ...base, durationSec: options.warmupSec }, pinning), `${connections} conn warm-up`);
    for (let i = 0; i < options.runs; i++) {
      const meter = new CpuMeter(srv.child.pid);
      const machine = new MachineMeter();
      const r = await runH2load({ ...base, durationSec: options.durationSec }, pinning);
      const serverCpu = meter.share();
      const machineCpu = machine.cores();
      account(r, `${connections} conn run ${i + 1}`);
      runs.push({ rps: r.rps, p50Ms: r.p50Ms, p99Ms: r.p99Ms, serverCpu, loaderCpu: r.loaderCpu, otherCpu: machineCpu - serverCpu - r.loaderCpu });
    }
  }
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
async function measureRow(ctx: BenchContext, spec: RowSpec): Promise<UnaryRow> {
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
      const r = await loadCell(ctx, srv, spec, c, first.bytes);
      row.cells.push(r.cell);
      served += r.served;
      sentMax += r.sentMax;
      notes.push(...r.notes);
    }
    row.rssAfterBytes = rssBytes(srv.child.pid);
    const checks: string[] = [spec.load.tool === "autocannon" ? "every body checked" : "answer sizes checked"];
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
  const bodies = writeBodyFiles(join(ctx.workDir, "bodies"));
  const rows: UnaryRow[] = [];
  for (const spec of rowSpecs(bodies)) {
    if (only && !only(spec.id)) continue;
    rows.push(await measureRow(ctx, spec));
  }
  return rows;
}
