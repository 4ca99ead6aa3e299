import type { BenchResults, StoreResult, UnaryRow } from "./results.js";
import { ratio, spread } from "./stats.js";

export type Verdict = "MET" | "MISSED" | "not served yet" | "not measured";

/** One performance target, judged from figures of the same run. */
export interface TargetRow {
  readonly target: string;
  readonly measured: string;
  readonly verdict: Verdict;
}

/** The thresholds, in one place. */
export const TARGETS = {
  /** The JSON facades at twice the SDK's in-memory JSON-RPC, durably. */
  jsonRpcVsSdk: 2,
  /** gRPC-first: gRPC at 1.5× the SDK's in-memory gRPC (grpc-js). */
  grpcVsSdk: 1.5,
  /** Under grpc-js the hub's core is this busy at its highest req/s: calls do not wait on an idle server. */
  grpcCoreBusy: 0.95,
  /** gRPC-first: no RPC binding below this share of the hub's own JSON-RPC. */
  bindingVsJsonRpc: 0.8,
  /** CancelTask reaches every one of the fan-out's subscribers within this. */
  fanoutCancelAllMs: 500,
  sseEventsPerSec: 50_000,
  sseFirstEventP50Ms: 2,
  fanoutSubscribers: 10_000,
  fanoutRssBytes: 2 ** 30,
  listP50Ms: 5,
  listTasks: 1_000_000,
  /** "No slower deep than at the start": deep p50 within this factor of the first page's, for run-to-run noise. */
  deepSlack: 1.1,
} as const;

const CONNS = 32;

function rpsAt(rows: readonly UnaryRow[], id: string): { rps?: number; row?: UnaryRow } {
  const row = rows.find((r) => r.id === id);
  return { row, rps: row?.cells.find((c) => c.connections === CONNS)?.rps.median };
}

function fx(x: number): string {
  return `${x.toFixed(2)}×`;
}

/** A ratio target's row: the ratio, how it was measured, and MET only when it reaches `min` with no error and no failed check on the hub's row. */
function judged(target: string, r: number, hubRow: UnaryRow, detail: string, min: number): TargetRow {
  const errors = hubRow.cells.reduce((a, c) => a + c.errors, 0);
  const measured = `${fx(r)} (${detail})${errors ? `, ${errors} errors` : ""}`;
  return { target, measured, verdict: r >= min && errors === 0 && !hubRow.checkFailed ? "MET" : "MISSED" };
}

/** A throughput ratio target: hub row over baseline row at 32 connections, from the unary table (rows measured one after another). */
function ratioTarget(rows: readonly UnaryRow[], target: string, hubId: string, baseId: string, baseLabel: string, min: number): TargetRow {
  const hub = rpsAt(rows, hubId);
  const base = rpsAt(rows, baseId);
  if (hub.row?.status === "not served yet") return { target, measured: "binding not served yet", verdict: "not served yet" };
  const r = ratio(hub.rps, base.rps);
  if (!Number.isFinite(r)) return { target, measured: "—", verdict: "not measured" };
  return judged(target, r, hub.row!, `${Math.round(hub.rps!)} vs ${baseLabel} ${Math.round(base.rps!)} req/s`, min);
}

/**
 * A row's throughput over its interleaved section's baseline (the
 * section's first row) at 32 connections: the median of its runs' ratios,
 * each against the baseline at the moment of the run (bracketed-rounds.ts);
 * 1 for the baseline itself.
 */
export function bracketedShare(section: readonly UnaryRow[], id: string): { share?: number; runs: number } {
  const row = section.find((r) => r.id === id);
  const runs = row?.status === "ok" ? (row.cells.find((c) => c.connections === CONNS)?.perRun ?? []) : [];
  if (row === section[0]) return { share: runs.length > 0 ? 1 : undefined, runs: runs.length };
  const shares = runs.flatMap((r) => (r.baseline && r.baseline.rps > 0 ? [r.rps / r.baseline.rps] : []));
  return { share: shares.length > 0 ? spread(shares).median : undefined, runs: shares.length };
}

/** The same target from the head-to-head section: both rows' shares of its baseline, divided. */
function bracketedTarget(rows: readonly UnaryRow[], target: string, hubId: string, baseId: string, baseLabel: string, min: number): TargetRow {
  const hub = bracketedShare(rows, `versus-${hubId}`);
  const base = bracketedShare(rows, `versus-${baseId}`);
  const r = ratio(hub.share, base.share);
  if (!Number.isFinite(r)) return { target, measured: "—", verdict: "not measured" };
  const hubAt = rpsAt(rows, `versus-${hubId}`);
  const medians = `median req/s ${Math.round(hubAt.rps!)} vs ${Math.round(rpsAt(rows, `versus-${baseId}`).rps!)}`;
  return judged(target, r, hubAt.row!, `${hub.runs} runs side by side with ${baseLabel}; ${medians}`, min);
}

export function evaluateTargets(results: BenchResults): TargetRow[] {
  const out: TargetRow[] = [];
  const u = results.unary;
  // Judged head to head when that section ran (head-to-head.ts says why), else from the unary table.
  const versus = results.headToHead?.some((r) => r.status === "ok") ? results.headToHead : undefined;
  const judge = (target: string, hubId: string, baseId: string, baseLabel: string, min: number): TargetRow =>
    versus ? bracketedTarget(versus, target, hubId, baseId, baseLabel, min) : ratioTarget(u, target, hubId, baseId, baseLabel, min);
  if (versus || u.length > 0) {
    out.push(judge(`JSON-RPC SendMessage, durable, ≥ ${TARGETS.jsonRpcVsSdk}× SDK in-memory JSON-RPC (32 conn)`, "hub-jsonrpc", "sdk-memory-jsonrpc", "SDK", TARGETS.jsonRpcVsSdk));
    out.push(judge(`REST SendMessage, durable, ≥ ${TARGETS.jsonRpcVsSdk}× SDK in-memory JSON-RPC (32 conn)`, "hub-rest", "sdk-memory-jsonrpc", "SDK", TARGETS.jsonRpcVsSdk));
    // The RPC bindings are judged under the clients people run: grpc-js and connect-node (autocannon for HTTP/1.1).
    out.push(judge(`gRPC unary SendMessage, durable, ≥ ${TARGETS.grpcVsSdk}× SDK in-memory gRPC, both under grpc-js (32 calls in flight)`, "hub-grpc-grpcjs", "sdk-memory-grpc-grpcjs", "SDK", TARGETS.grpcVsSdk));
    for (const [id, label] of [
      ["hub-grpc-grpcjs", "gRPC (grpc-js)"],
      ["hub-connect-h1", "Connect h1 (autocannon)"],
      ["hub-connect-h2-connect", "Connect h2 (connect-node)"],
      ["hub-grpcweb-connect", "gRPC-Web (connect-node)"],
    ] as const) {
      out.push(judge(`${label} SendMessage ≥ ${TARGETS.bindingVsJsonRpc}× the hub's JSON-RPC (32 conn)`, id, "hub-jsonrpc", "hub JSON-RPC", TARGETS.bindingVsJsonRpc));
    }
    const grpcBusy = [...(versus ?? []), ...u].find((r) => r.id.endsWith("hub-grpc-grpcjs") && r.status === "ok")?.cells.find((c) => c.connections === CONNS)?.serverCpu.median;
    out.push({
      target: `the hub's core ≥ ${Math.round(TARGETS.grpcCoreBusy * 100)}% busy under grpc-js load (32 calls in flight)`,
      measured: grpcBusy === undefined ? "—" : `${Math.round(grpcBusy * 100)}% (median of the timed runs)`,
      verdict: grpcBusy === undefined ? "not measured" : grpcBusy >= TARGETS.grpcCoreBusy ? "MET" : "MISSED",
    });
    const hubRows = [...u, ...(versus ?? [])].filter((r) => r.group === "a2a-hub" && r.status === "ok");
    const errors = hubRows.reduce((a, r) => a + r.cells.reduce((b, c) => b + c.errors, 0), 0);
    const suspect = hubRows.filter((r) => r.checkFailed).map((r) => r.id);
    out.push({
      target: "error count 0 on every a2a-hub unary row",
      measured: `${errors} errors over ${hubRows.length} bindings${suspect.length ? `; checks failed: ${suspect.join(", ")}` : ""}`,
      verdict: hubRows.length === 0 ? "not measured" : errors === 0 && suspect.length === 0 ? "MET" : "MISSED",
    });
  }
  const sse = results.streams.find((s) => s.id === "hub-sse");
  if (sse) {
    const ns = sse.status === "not served yet";
    const eps = sse.eventsPerSec?.median;
    out.push({
      target: `one SSE stream ≥ ${TARGETS.sseEventsPerSec.toLocaleString("en")} events/s`,
      measured: ns ? "SSE not served yet" : eps !== undefined ? `${Math.round(eps).toLocaleString("en")} events/s` : "—",
      verdict: ns ? "not served yet" : eps === undefined ? "not measured" : eps >= TARGETS.sseEventsPerSec ? "MET" : "MISSED",
    });
    const p50 = sse.firstEventP50Ms;
    out.push({
      target: `SSE time to first event p50 < ${TARGETS.sseFirstEventP50Ms} ms`,
      measured: ns ? "SSE not served yet" : p50 !== undefined ? `${p50.toFixed(2)} ms (${sse.firstEventSamples} streams)` : "—",
      verdict: ns ? "not served yet" : p50 === undefined ? "not measured" : p50 < TARGETS.sseFirstEventP50Ms ? "MET" : "MISSED",
    });
  }
  const f = results.fanout;
  if (f) {
    const rss = f.rssWithSubscribersBytes?.median;
    const full = (f.subscribers ?? 0) >= TARGETS.fanoutSubscribers;
    out.push({
      target: `${TARGETS.fanoutSubscribers.toLocaleString("en")} idle subscribers < 1 GiB server RSS`,
      measured:
        rss !== undefined
          ? `${(rss / 2 ** 20).toFixed(0)} MiB median (worst run ${((f.rssWithSubscribersBytes?.max ?? NaN) / 2 ** 20).toFixed(0)} MiB) with ${f.subscribers?.toLocaleString("en")} subscribers${full ? "" : " (fewer than the target's count: --quick)"}`
          : "—",
      verdict: rss === undefined || !full ? "not measured" : rss < TARGETS.fanoutRssBytes && (f.errors ?? 0) === 0 ? "MET" : "MISSED",
    });
    const all = f.deliverAllMs?.median;
    out.push({
      target: `CancelTask reaches all ${TARGETS.fanoutSubscribers.toLocaleString("en")} gRPC subscribers < ${TARGETS.fanoutCancelAllMs} ms`,
      measured: all !== undefined ? `${Math.round(all)} ms median (worst run ${Math.round(f.deliverAllMs?.max ?? NaN)} ms)${full ? "" : " (fewer subscribers: --quick)"}` : "—",
      verdict: all === undefined || !full ? "not measured" : all < TARGETS.fanoutCancelAllMs && (f.errors ?? 0) === 0 ? "MET" : "MISSED",
    });
  }
  if (results.store) out.push(...storeTargets(results.store, ""));
  // The same targets on the other store, each row named for it.
  if (results.storePostgres) out.push(...storeTargets(results.storePostgres, " on PostgreSQL"));
  return out;
}

/** ListTasks' targets at store scale, from one store-scale section; `where` names the store in each target (empty for SQLite, whose rows came first). */
function storeTargets(s: StoreResult, where: string): TargetRow[] {
  if (s.cases.length === 0) return [];
  const full = (s.tasks ?? 0) >= TARGETS.listTasks;
  const lists = s.cases.filter((c) => c.label.startsWith("ListTasks"));
  const worst = Math.max(...lists.map((c) => c.p50Ms.median));
  const scale = full ? "" : ` (at ${s.tasks?.toLocaleString("en")} tasks: --quick)`;
  const out: TargetRow[] = [
    {
      target: `ListTasks page p50 < ${TARGETS.listP50Ms} ms at ${TARGETS.listTasks.toLocaleString("en")} tasks${where}`,
      measured: `worst case p50 ${worst.toFixed(2)} ms${scale}`,
      verdict: !full ? "not measured" : worst < TARGETS.listP50Ms && (s.errors ?? 0) === 0 ? "MET" : "MISSED",
    },
  ];
  const pairs: string[] = [];
  let slower = false;
  for (const suffix of ["", ", contextId filter"]) {
    const first = lists.find((c) => c.label === `ListTasks first page${suffix}`);
    const deep = lists.find((c) => c.label === `ListTasks deep page${suffix}`);
    if (!first || !deep) continue;
    const r = deep.p50Ms.median / first.p50Ms.median;
    if (r > TARGETS.deepSlack) slower = true;
    pairs.push(`${suffix ? "filtered" : "unfiltered"}: deep/first ${fx(r)}`);
  }
  out.push({
    target: `ListTasks no slower deep in the pagination than at the start (deep p50 ≤ ${TARGETS.deepSlack}× first)${where}`,
    measured: pairs.join("; ") + scale,
    verdict: !full ? "not measured" : slower ? "MISSED" : "MET",
  });
  return out;
}
