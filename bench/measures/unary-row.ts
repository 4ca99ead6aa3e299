/**
 * One unary row against one server: how it is loaded (autocannon or the
 * h2 loader, pinned), the checks around the timed runs, and the figures of
 * one concurrency (a cell). Shared by the unary and telemetry sections.
 */
import { randomUUID } from "node:crypto";
import { a2aClient, countTasks, sampleSendMessage } from "../harness/a2a-clients.js";
import type { BenchContext } from "../harness/bench-context.js";
import { exchangeProblem, h2Exchange } from "../harness/h2-probe.js";
import { runLoader, type TimedRun } from "../harness/loader-process.js";
import { CpuMeter, MachineMeter, rssBytes } from "../harness/proc-stats.js";
import { waitForQuiet } from "../harness/quiet-machine.js";
import { stackChannel, type ClientStack } from "../harness/client-stacks.js";
import { h2Body, PER_REQUEST_ID, type H2Kind } from "../harness/request-bodies.js";
import { checkBody, type CheckName } from "../harness/response-checks.js";
import type { UnaryCell, UnaryRow } from "../harness/results.js";
import type { ServerUnderTest } from "../harness/servers-under-test.js";
import { spread, type Spread } from "../harness/stats.js";
import { failureNote } from "../harness/failure-note.js";

export type Load =
  | { tool: "autocannon"; path: string; headers: Readonly<Record<string, string>>; body: string; check: CheckName }
  | { tool: "h2"; path: string; headers: Readonly<Record<string, string>>; kind: H2Kind; onGrpcPort: boolean }
  | { tool: "client"; stack: ClientStack; onGrpcPort: boolean };

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

/** The base URL the load goes to: the SDK serves gRPC on a port of its own. */
function loadUrl(srv: ServerUnderTest, load: Load): string {
  const base = load.tool !== "autocannon" && load.onGrpcPort && srv.grpcUrl ? srv.grpcUrl : srv.url;
  // A client stack is given the base URL and names the RPC itself.
  return load.tool === "client" ? base : base + load.path;
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
  if (load.tool === "client") {
    const channel = stackChannel(load.stack, url);
    const problem = await channel.call();
    channel.close();
    return { problem: problem && /\b404\b|unimplemented/i.test(problem) ? "404" : problem };
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

/** What loading one server at one concurrency gave: the cell, and the counts the row's checks need. */
export interface CellLoad {
  readonly cell: UnaryCell;
  readonly served: number;
  readonly sentMax: number;
  readonly notes: string[];
}

/** How many timed runs, and how long a warm-up, when not the bench's --runs and --warmup. */
export interface LoadShape {
  readonly runs?: number;
  readonly warmupSec?: number;
}

/** Loads one server at one concurrency: warm-up, then the timed runs. */
export async function loadCell(ctx: BenchContext, srv: ServerUnderTest, spec: RowSpec, connections: number, shape: LoadShape = {}): Promise<CellLoad> {
  const { pinning } = ctx;
  const options = { ...ctx.options, runs: shape.runs ?? ctx.options.runs, warmupSec: shape.warmupSec ?? ctx.options.warmupSec };
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
      : load.tool === "h2"
        ? ["bench/loaders/h2-loader.ts", { url, headers: load.headers, kind: load.kind, ...timing }]
        : ["bench/loaders/client-loader.ts", { url, stack: load.stack, ...timing }];
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
    perRun: runs.map((r) => ({ rps: r.rps, serverCpu: r.serverCpu })),
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

/**
 * One row's server from its start to its stop: the checks before timing
 * (the exact request answered right, a real client's sample, the stored
 * task count), the loads, and the checks after (every served call stored,
 * the server still answering right). A row measured alone opens one and
 * loads it; the telemetry section keeps several open at once and loads
 * them in turn.
 */
export class RowSession {
  private served = 0;
  private sentMax = 0;
  private readonly notes: string[] = [];

  private constructor(
    readonly row: UnaryRow,
    private readonly spec: RowSpec,
    readonly srv: ServerUnderTest,
    private readonly url: string,
    private readonly client: ReturnType<typeof a2aClient> | undefined,
    private readonly before: Awaited<ReturnType<typeof countTasks>> | undefined,
  ) {}

  /**
   * Starts the row's server and checks it before timing. Returns undefined
   * (the row says why) when it is not served yet; throws when it fails,
   * with the server stopped.
   */
  static async open(ctx: BenchContext, spec: RowSpec, row: UnaryRow): Promise<RowSession | undefined> {
    const srv = await spec.start(ctx);
    try {
      const url = loadUrl(srv, spec.load);
      const first = await probe(url, spec.load);
      if (first.problem === "404" && spec.optional) {
        row.status = "not served yet";
        row.note = `POST ${new URL(url).pathname} answers 404; this row fills in once the binding is mounted`;
        await srv.child.stop();
        return undefined;
      }
      if (first.problem) throw new Error(`probe before timing: ${first.problem}`);
      const client = spec.a2a ? a2aClient(srv.grpcUrl ?? srv.url) : undefined;
      if (client) await sampleSendMessage(client, 3);
      const before = client ? await countTasks(client) : undefined;
      return new RowSession(row, spec, srv, url, client, before);
    } catch (e) {
      await srv.child.stop();
      throw e;
    }
  }

  /** Loads the server at one concurrency (the bench's --runs and --warmup unless told). */
  async load(ctx: BenchContext, connections: number, shape?: LoadShape): Promise<UnaryCell> {
    const r = await loadCell(ctx, this.srv, this.spec, connections, shape);
    this.served += r.served;
    this.sentMax += r.sentMax;
    this.notes.push(...r.notes);
    return r.cell;
  }

  /** Load without timing, `seconds` long: calls are answered, checked and counted, nothing is measured. */
  async warm(ctx: BenchContext, connections: number, seconds: number): Promise<void> {
    await this.load(ctx, connections, { runs: 0, warmupSec: seconds });
  }

  /** The checks after timing, written into the row; the server stays up (see stop). */
  async check(): Promise<void> {
    const { row, client, before, notes } = this;
    row.rssAfterBytes = rssBytes(this.srv.child.pid);
    const checks: string[] = ["every answer checked"];
    if (client && before) {
      const after = await countTasks(client);
      const added = after.total - before.total;
      const completed = after.completed - before.completed;
      checks.push(`store +${added} tasks for ${this.served} good answers`);
      // More completed than added: tasks open at the first count (the sample's) finished since; only fewer is a fault.
      if (completed < added) notes.push(`${added - completed} of the ${added} new tasks are not completed`);
      if (added < this.served || added > this.sentMax) notes.push(`store gained ${added} tasks; expected between ${this.served} and ${this.sentMax}`);
      const last = await probe(this.url, this.spec.load);
      if (last.problem) notes.push(`probe after timing: ${last.problem}`);
      await sampleSendMessage(client, 3);
      checks.push("sampled with a real client before and after");
    }
    row.verification = checks.join("; ");
    if (notes.length > 0) {
      row.note = notes.slice(0, 6).join("; ");
      row.checkFailed = true;
    }
  }

  async stop(): Promise<void> {
    await this.srv.child.stop();
  }
}

/** A row with no figures yet. */
export function emptyRow(spec: RowSpec): UnaryRow {
  const loader = spec.load.tool === "client" ? spec.load.stack : spec.load.tool;
  return { id: spec.id, group: spec.group, server: spec.server, binding: spec.binding, loader, status: "ok", cells: [] };
}

/** Marks a row failed with the first lines of the error. */
export function failRow(ctx: BenchContext, row: UnaryRow, e: unknown): void {
  row.status = "failed";
  row.note = failureNote(e);
  ctx.log(`unary: ${row.id} failed: ${row.note}`);
}

/**
 * One cell from cells of single timed runs of the same server and
 * concurrency, measured apart (interleaved with other servers): spreads
 * over the runs, errors summed, the runs kept in order.
 */
export function cellOfRuns(cells: readonly UnaryCell[]): UnaryCell {
  const over = (f: (c: UnaryCell) => Spread) => spread(cells.map((c) => f(c).median));
  return {
    connections: cells[0]!.connections,
    rps: over((c) => c.rps),
    p50Ms: over((c) => c.p50Ms),
    p99Ms: over((c) => c.p99Ms),
    errors: cells.reduce((n, c) => n + c.errors, 0),
    serverCpu: over((c) => c.serverCpu),
    loaderCpu: over((c) => c.loaderCpu),
    otherCpu: spread(cells.map((c) => c.otherCpu.max)),
    perRun: cells.flatMap((c) => c.perRun ?? []),
  };
}
