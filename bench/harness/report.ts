import { loadavg } from "node:os";
import type { BenchOptions } from "./bench-options.js";
import type { CpuPinning } from "./cpu-pinning.js";
import { gitRevision, type MachineInfo } from "./machine-info.js";
import type { BenchResults, ProfileResult, UnaryCell, UnaryRow } from "./results.js";
import { int, mib, ms, pct, sp, table, times } from "./report-format.js";
import { storeSection } from "./report-store.js";
import { ratio, spread } from "./stats.js";
import { bracketedShare, evaluateTargets } from "./targets.js";

/** The columns every unary table shares for one cell of a row: connections, req/s, p50, p99, errors. */
function loadCells(row: UnaryRow, i: number): string[] {
  const c = row.cells[i]!;
  return [String(c.connections), sp(c.rps, int), sp(c.p50Ms, ms), sp(c.p99Ms, ms), `${c.errors}${row.checkFailed && i === row.cells.length - 1 ? " + check failed" : ""}`];
}

/** Which SDK row a hub row is compared with: same wire family, in-memory and SQLite. */
function sdkPeers(row: UnaryRow): [string, string] {
  if (row.loader === "h2") return ["sdk-memory-grpc", "sdk-sqlite-grpc"];
  // The SDK's gRPC under grpc-js is the peer of every binary or HTTP/2 client stack; it has no SQLite row under one.
  if (row.loader !== "autocannon") return ["sdk-memory-grpc-grpcjs", "sdk-sqlite-grpc"];
  return ["sdk-memory-jsonrpc", "sdk-sqlite-jsonrpc"];
}

/**
 * The ceiling of a row's stack, measured in the same run: bare node:http for
 * the JSON facades (our own code on node:http), bare connect-node on the
 * one-port host for rows served by connect-node, by wire form, under the
 * same connect-node client where a row is loaded by one. The SDK's gRPC
 * rows run on grpc-js, whose ceiling the bench does not measure.
 */
function ceilingOf(row: UnaryRow): string | undefined {
  if (row.id.startsWith("bare-")) return row.id;
  if (row.id.endsWith("-grpcweb")) return "bare-connect-grpcweb";
  if (row.id.endsWith("-connect-h1")) return "bare-connect-h1";
  if (row.id.endsWith("-connect-h2")) return "bare-connect-h2";
  if (row.id.startsWith("sdk-") && row.id.includes("-grpc")) return undefined;
  if (row.id.endsWith("-grpc-grpcjs") || row.id.endsWith("-grpc-connect")) return "bare-connect-grpc";
  if (row.id.endsWith("-connect-h2-connect")) return "bare-connect-h2-connect";
  if (row.id.endsWith("-grpcweb-connect")) return "bare-connect-grpcweb-connect";
  if (row.id.endsWith("-grpc")) return "bare-connect-grpc";
  return "bare-node";
}

/** Server CPU time per answered call (µs): less sensitive than req/s to other load on a shared host. */
export function cpuPerCallUs(c: UnaryRow["cells"][number] | undefined): number | undefined {
  return c && c.rps.median > 0 ? (c.serverCpu.median / c.rps.median) * 1e6 : undefined;
}

/** The loader's CPU time per answered call, in µs: what one call costs the client stack. */
function loaderCpuPerCallUs(c: UnaryRow["cells"][number]): number | undefined {
  return c.rps.median > 0 ? (c.loaderCpu.median / c.rps.median) * 1e6 : undefined;
}

function unaryTable(rows: readonly UnaryRow[]): string {
  const rps = (id: string | undefined, c: number) => (id === undefined ? undefined : rows.find((r) => r.id === id)?.cells.find((x) => x.connections === c)?.rps.median);
  const out: string[][] = [];
  for (const row of rows) {
    if (row.status !== "ok") {
      out.push([row.server, row.binding, row.loader, "", row.status, "", "", "", "", "", "", "", "", "", "", ""]);
      continue;
    }
    const [memPeer, sqlPeer] = sdkPeers(row);
    const baseline = row.group !== "a2a-hub";
    row.cells.forEach((c, i) => {
      const mine = c.rps.median;
      const us = cpuPerCallUs(c);
      out.push([
        i === 0 ? row.server : "",
        i === 0 ? row.binding : "",
        i === 0 ? row.loader : "",
        ...loadCells(row, i),
        pct(c.serverCpu.median),
        us === undefined ? "—" : String(Math.round(us)),
        `${pct(c.loaderCpu.median)} / ${pct(c.otherCpu.max)}`,
        i === row.cells.length - 1 ? mib(row.rssAfterBytes) : "",
        times(ratio(mine, rps(ceilingOf(row), c.connections))),
        baseline ? "" : times(ratio(mine, rps(memPeer, c.connections))),
        baseline ? "" : times(ratio(mine, rps(sqlPeer, c.connections))),
        baseline ? "" : times(ratio(mine, rps("hub-jsonrpc", c.connections))),
      ]);
    });
  }
  return table(
    [
      "server", "binding", "loader", "conns", "req/s median [min–max]", "p50 ms", "p99 ms", "errors", "server CPU", "server CPU µs/call", "loader / other CPU", "RSS after",
      "÷ stack ceiling", "÷ SDK in-memory", "÷ SDK SQLite", "÷ hub JSON-RPC",
    ],
    out,
  );
}

/**
 * What a variant costs against "off" at one concurrency: 1 − req/s ÷ off's,
 * and CPU per call ÷ off's − 1. With runs taken in rounds (each round
 * loads every variant once, seconds apart), each round's pair gives a
 * ratio and the cost is their median, so drift over the section cancels;
 * otherwise the medians are divided. No ratio against a run that served
 * nothing (a saturated shared host).
 */
function telemetryCosts(c: UnaryCell, off: UnaryCell): { throughput?: number; cpuPerCall?: number } {
  const perCall = (r: { rps: number; serverCpu: number }) => (r.rps > 0 ? r.serverCpu / r.rps : NaN);
  // Each run against the baseline at its moment (bracketed-rounds.ts), else against the baseline's run of the same round.
  const bracketed = c.perRun && c.perRun.length > 0 && c.perRun.every((r) => r.baseline);
  const paired = bracketed || (c.perRun && off.perRun && c.perRun.length === off.perRun.length && c.perRun.length > 0);
  if (paired) {
    const pairs = c.perRun!.map((r, i) => [r, bracketed ? r.baseline! : off.perRun![i]!] as const);
    const throughput = spread(pairs.map(([r, o]) => (o.rps > 0 ? 1 - r.rps / o.rps : NaN))).median;
    const cpuPerCall = spread(pairs.map(([r, o]) => perCall(r) / perCall(o) - 1)).median;
    return { throughput: Number.isFinite(throughput) ? throughput : undefined, cpuPerCall: Number.isFinite(cpuPerCall) ? cpuPerCall : undefined };
  }
  const cost = off.rps.median > 0 ? 1 - c.rps.median / off.rps.median : undefined;
  const cpu = perCall({ rps: c.rps.median, serverCpu: c.serverCpu.median });
  const cpuOff = perCall({ rps: off.rps.median, serverCpu: off.serverCpu.median });
  return { throughput: cost, cpuPerCall: Number.isFinite(cpu / cpuOff) ? cpu / cpuOff - 1 : undefined };
}

/** Telemetry's budget: the throughput a part of it may cost, as a share of "off". */
const TELEMETRY_BUDGET: Readonly<Record<string, number>> = { metrics: 0.05, tracing: 0.15 };

function telemetryTable(rows: readonly UnaryRow[]): string {
  const cellOf = (id: string, c: number) => rows.find((r) => r.id === id)?.cells.find((x) => x.connections === c);
  const cpuPerCall = cpuPerCallUs;
  const out: string[][] = [];
  for (const row of rows) {
    const [, binding, variant] = /^telemetry-([a-z]+)-([a-z]+)$/.exec(row.id) ?? [];
    if (row.status !== "ok") {
      out.push([row.binding, row.server, "", row.status, "", "", "", "", "", "", ""]);
      continue;
    }
    row.cells.forEach((c, i) => {
      const off = cellOf(`telemetry-${binding}-off`, c.connections);
      const cpu = cpuPerCall(c);
      const costs = variant === "off" || !off ? undefined : telemetryCosts(c, off);
      const cost = costs?.throughput;
      const cpuCost = costs?.cpuPerCall;
      const budget = variant === undefined ? undefined : TELEMETRY_BUDGET[variant];
      out.push([
        i === 0 ? row.binding : "",
        i === 0 ? row.server : "",
        ...loadCells(row, i),
        cpu === undefined ? "" : cpu.toFixed(0),
        cost === undefined ? "" : `${(cost * 100).toFixed(1)}%`,
        cpuCost === undefined ? "" : `${(cpuCost * 100).toFixed(1)}%`,
        cost === undefined || budget === undefined ? "" : cost < budget ? `meets < ${budget * 100}%` : `misses < ${budget * 100}%`,
      ]);
    });
  }
  return table(
    ["binding", "hub telemetry", "conns", "req/s median [min–max]", "p50 ms", "p99 ms", "errors", "server CPU µs/call", "throughput cost vs off", "CPU/call cost vs off", "target (throughput)"],
    out,
  );
}

/**
 * The head-to-head section: each row's share of the baseline (the SDK's
 * in-memory JSON-RPC) as a median of bracketed per-run ratios, and the
 * ratios the targets take: a hub row over its SDK peer of the same
 * wire family, and over the hub's own JSON-RPC, each a division of shares.
 */
function versusTable(rows: readonly UnaryRow[]): string {
  const share = (id: string) => bracketedShare(rows, id).share;
  const out: string[][] = [];
  for (const row of rows) {
    if (row.status !== "ok") {
      out.push([row.server, row.binding, row.loader, "", row.status, "", "", "", "", "", "", "", "", "", ""]);
      continue;
    }
    const mine = share(row.id);
    const hub = row.group === "a2a-hub";
    // A client stack's ceiling is compared with the hub's JSON-RPC too: what the 0.8× targets could reach under that client.
    const overJsonRpc = hub || row.id.startsWith("versus-bare-");
    row.cells.forEach((c, i) => {
      const us = cpuPerCallUs(c);
      out.push([
        row.server,
        row.binding,
        row.loader,
        ...loadCells(row, i),
        pct(c.serverCpu.median),
        us === undefined ? "—" : String(Math.round(us)),
        pct(c.loaderCpu.median),
        String(Math.round(loaderCpuPerCallUs(c) ?? NaN)),
        times(mine ?? NaN),
        hub ? times(ratio(mine, share(`versus-${sdkPeers(row)[0]}`))) : "",
        overJsonRpc ? times(ratio(mine, share("versus-hub-jsonrpc"))) : "",
      ]);
    });
  }
  return table(
    ["server", "binding", "loader", "conns", "req/s median [min–max]", "p50 ms", "p99 ms", "errors", "server CPU busy", "server CPU µs/call", "loader CPU busy", "loader CPU µs/call", "÷ SDK in-memory JSON-RPC, side by side", "÷ SDK in-memory, same wire family", "÷ hub JSON-RPC"],
    out,
  );
}

/** The latency budget: one line per binding, p50 / p99 at each concurrency. */
function latencyTable(rows: readonly UnaryRow[]): string {
  const levels = [...new Set(rows.flatMap((r) => r.cells.map((c) => c.connections)))].sort((a, b) => a - b);
  const out = rows.map((row) => [
    row.binding,
    row.loader,
    ...levels.map((n) => {
      const c = row.cells.find((x) => x.connections === n);
      return row.status !== "ok" ? row.status : c ? `${ms(c.p50Ms.median)} / ${ms(c.p99Ms.median)} (${int(c.rps.median)} req/s)` : "—";
    }),
  ]);
  return table(["binding", "client", ...levels.map((n) => `${n} in flight: p50 / p99 ms`)], out);
}

/** The whole report as Markdown: header, targets, one section per measure, notes. */
export function renderReport(results: BenchResults, options: BenchOptions, machine: MachineInfo, pinning: CpuPinning, wallSec: number): string {
  const parts: string[] = [];
  const revisionNow = gitRevision();
  parts.push(`# a2a-hub benchmark results${options.quick ? " (--quick smoke check: short runs, small sizes; indicative only)" : ""}`);
  parts.push(
    [
      `- **Date**: ${machine.date}; wall time ${Math.round(wallSec)} s`,
      `- **Machine**: ${machine.cpu}, ${machine.cores} cores, ${machine.memory} RAM, ${machine.os}`,
      `- **Versions**: ${machine.versions.map(([k, v]) => `${k} ${v}`).join(", ")}`,
      ...(revisionNow !== machine.revisionAtStart
        ? [`- **Warning**: the tree changed during the run (git ${machine.revisionAtStart} at the start, ${revisionNow} at the end); later sections may have measured newer code`]
        : []),
      `- **Pinning**: ${pinning.description}`,
      `- **Machine load** (1-min load average): ${machine.loadAtStart.toFixed(2)} at the start, ${loadavg()[0]!.toFixed(2)} at the end`,
      `- **Method**: every server is a child process on loopback, run with V8's \`--no-memory-reducer\` (a server that idled while the others took their turn would otherwise be measured while its heap grows back: harness/servers-under-test.ts); each figure is the median of ${options.runs} timed runs of ${options.durationSec} s after ${options.warmupSec} s of warm-up (autocannon rounds both up to whole seconds), with [min–max] across runs. Ratios divide medians measured in this same run.${options.waitQuiet ? " Before each measure the bench waits (up to a limit) for other processes to leave the machine idle." : ""}`,
      `- **Checks**: every call is a new message (its own messageId, so no answer comes from the hub's record of an earlier send, §3.3.1). Every answer is checked for a completed task echoing the message: autocannon (HTTP/1.1) checks each body, the Node h2 loader (gRPC, Connect over h2c) and the real client stacks (grpc-js, connect-node) each gRPC status and decoded task; every Node loader's young generation is held to 1 MiB so that its scavenges pause it under 1 ms (harness/loader-process.ts). A real client samples the server before and after timing, and the tasks the server stored are counted against the calls sent.`,
    ].join("\n"),
  );

  const targets = evaluateTargets(results);
  if (targets.length > 0) {
    parts.push("## Targets\n\n" + table(["target", "measured (same run)", "verdict"], targets.map((t) => [t.target, t.measured, t.verdict])));
  }

  if (results.unary.length > 0) {
    parts.push(
      "## Unary SendMessage (echo agent)\n\n" +
        `Request/s, latency and errors at ${options.connections.join(" and ")} concurrent connections. CPU columns are shares of one core during the timed runs: the server's (median), the loader's (median), and other processes' on the machine (worst run; anything but ~0% means a shared host disturbed the figures). ` +
        "Ratios: this row's req/s divided by its stack's ceiling (bare node:http for the JSON facades; bare connect-node on the hub's one-port host, answering a fixed Task, for the Connect, gRPC and gRPC-Web rows, under the same client for the rows connect-node's clients load), by the SDK's row of the same wire family (JSON over HTTP/1.1 or h2/gRPC), and by the hub's own JSON-RPC row, at the same concurrency. Server CPU µs/call is the server's CPU time over the calls it answered.\n\n" +
        unaryTable(results.unary),
    );
  }

  if (results.headToHead && results.headToHead.length > 0) {
    const rounds = Math.max(0, ...results.headToHead.flatMap((r) => r.cells.map((c) => c.perRun?.length ?? 0)));
    parts.push(
      "## Head to head: the ratio targets, side by side\n\n" +
        "The rows the ratio targets compare, each on a fresh server of its own, run side by side rather than one after another (as in the table above, where a row moved by ±30% from run to run on this shared host with no change to the code). " +
        `Each server first settles under untimed load, then they are loaded in turn, in ${rounds} rounds, each round giving every one a warm-up and one timed run: the SDK's in-memory JSON-RPC (the baseline) first, the others after it in an order that rotates from round to round, and the baseline once more at the end. ` +
        "Each run is divided by the baseline as it stood at that moment (interpolated between the baseline's runs around it), and a row's share of the baseline is the median of those ratios; a ratio between two other rows divides their shares, so the host's drift cancels in both. The targets above are judged from this section. The loader columns are the client stack's own CPU (one core, pinned): a loader near 100% busy measures the client, not the server.\n\n" +
        versusTable(results.headToHead),
    );
  }

  if (results.latency && results.latency.length > 0) {
    parts.push(
      "## Latency budget\n\n" +
        "SendMessage on one hub, each binding through its users' client (autocannon for the HTTP/1.1 facades, grpc-js for gRPC, connect-node for Connect h2 and gRPC-Web), at 1, 8, 32 and 128 calls in flight, one after another. " +
        "A change that buys req/s at 32 by queueing calls shows here as a higher p50 at 1 and 8.\n\n" +
        latencyTable(results.latency),
    );
  }

  if (results.telemetry && results.telemetry.length > 0) {
    const rounds = Math.max(0, ...results.telemetry.flatMap((r) => (r.id.endsWith("-off") ? [] : r.cells.map((c) => c.perRun?.length ?? 0))));
    parts.push(
      "## Cost of telemetry (unary SendMessage)\n\n" +
        "The hub as `npm start` runs it, each setting on a fresh server in this run: everything off, then one part on at a time. " +
        `The servers run side by side: each first settles under untimed load (V8 optimizes a fresh server for its first several thousand calls), then they are loaded in turn, in ${rounds} rounds, each round giving every one a warm-up and one timed run, in an order that rotates from round to round, with a run of everything off before each of them and once more at the end (off, A, off, B, off, C, off, B, …), so that each run of another server falls right between two runs of everything off. ` +
        "The throughput cost is 1 − (req/s with it on ÷ req/s with everything off) and the CPU/call cost compares the server's CPU time per answered call (which other load disturbs less). Each run is compared with everything off as it stood at that moment, interpolated between the two runs of it around this one (a shared host's speed drifts over seconds); the cost is the median of those ratios over the rounds, at the same concurrency. Negative means within noise.\n\n" +
        telemetryTable(results.telemetry),
    );
  }

  if (results.streams.length > 0) {
    const rows = results.streams.map((s) =>
      s.status !== "ok"
        ? [s.binding, s.status, "", "", "", "", ""]
        : [
            s.binding,
            sp(s.eventsPerSec, int),
            String(s.eventsPerStream ?? "—"),
            sp(s.firstEventLongMs, ms),
            `${ms(s.firstEventP50Ms)} / ${ms(s.firstEventP99Ms)} (${s.firstEventSamples})`,
            pct(s.clientCpu?.median),
            String(s.errors ?? 0),
          ],
    );
    parts.push(
      `## Streaming: one stream of \`stream ${options.streamChunks}\`\n\n` +
        "Events/s = events received ÷ time from sending the request to the last event, the median of at least 7 streams, after untimed ones for the warm-up time (as in every other row, a warmed server is measured: a fresh one streamed its first `stream 10000` at one half to two thirds of the rate of its fifth). Time to first event is measured on each long stream and over many short streams (`stream 1`) sent one after another on a kept-alive connection.\n\n" +
        table(["binding", "events/s median [min–max]", "events per stream", "first event ms, long streams", "first event p50 / p99 ms (short streams)", "client CPU", "errors"], rows),
    );
  }

  const f = results.fanout;
  if (f) {
    parts.push(
      `## Fan-out: ${int(f.subscribers)} SubscribeToTask streams on one slow task\n\n` +
        (f.status !== "ok"
          ? `${f.status}: ${f.note ?? ""}`
          : `gRPC over h2c, ${f.sessions} connections of up to 100 streams. RSS read 1 s after every subscriber had its first event; delivery timed from sending CancelTask to each subscriber's CANCELED status.\n\n` +
            table(
              ["server RSS idle, no subscribers", "server RSS with subscribers", "time to subscribe all s", "CancelTask → first subscriber ms", "→ p50 ms", "→ all subscribers ms", "errors"],
              [[mib(f.rssIdleBeforeBytes), sp(f.rssWithSubscribersBytes, (x) => mib(x)), sp(f.subscribeSec, (x) => x.toFixed(2)), sp(f.deliverFirstMs, ms), sp(f.deliverP50Ms, ms), sp(f.deliverAllMs, ms), String(f.errors ?? 0)]],
            )),
    );
  }

  if (results.store) parts.push(storeSection(results.store, "SQLite"));
  if (results.storePostgres) parts.push(storeSection(results.storePostgres, "PostgreSQL"));

  const pg = results.postgres;
  if (pg) {
    const base = pg.rows.find((r) => r.id === "sqlite")?.rps?.median;
    parts.push(
      "## The hub on PostgreSQL\n\n" +
        (pg.status !== "ok"
          ? `${pg.status}: ${pg.note ?? ""}`
          : `JSON-RPC SendMessage at ${32} connections, every answer checked; PostgreSQL 15 on this machine (a private cluster as the tests start it: fsync off, like the hub's SQLite in WAL with synchronous=NORMAL, so a commit survives the crash of any process but not of the machine). The replicas of a fleet share one database; the client spreads its connections over them in turn. Hub CPU is all replicas together; database CPU is every PostgreSQL server process.\n\n` +
            table(
              ["setup", "replicas", "req/s median [min–max]", "vs SQLite", "p50 ms", "p99 ms", "errors", "hub CPU µs/call", "database CPU µs/call", "hub cores", "database cores"],
              pg.rows.map((r) =>
                r.status !== "ok"
                  ? [r.label, String(r.replicas), `${r.status}: ${r.note ?? ""}`, "", "", "", "", "", "", "", ""]
                  : [
                      r.label,
                      // pgbench's rows run no hub: transactions a second, not calls to set beside SQLite's.
                      r.replicas > 0 ? String(r.replicas) : "—",
                      sp(r.rps, int),
                      base && r.rps && r.replicas > 0 ? `${(r.rps.median / base).toFixed(2)}×` : "",
                      sp(r.p50Ms, ms),
                      sp(r.p99Ms, ms),
                      String(r.errors ?? 0),
                      sp(r.hubCpuUsPerCall, int),
                      sp(r.dbCpuUsPerCall, int),
                      sp(r.hubCores, (x) => x.toFixed(2)),
                      sp(r.dbCores, (x) => x.toFixed(2)),
                    ],
              ),
            )),
    );
  }

  const p = results.profile;
  if (p) {
    parts.push(
      "## CPU profile of the hub under SendMessage load\n\n" +
        (p.status !== "ok"
          ? `${p.status}: ${p.note ?? ""}`
          : `${p.load}. Profile: \`${p.file}\` (open in Chrome DevTools › Performance). ` +
            `Only samples taken during the timed load count: busy ${ms(p.busyMs)} ms, idle ${ms(p.idleMs)} ms (V8 samples a thread blocked in a system call, such as a SQLite write, as busy in the calling function). Self time as a share of busy time:\n\n` +
            table(["self %", "self ms", "function", "where"], (p.frames ?? []).map((fr) => [fr.selfPct.toFixed(1), fr.selfMs.toFixed(0), fr.fn, fr.where])) +
            "\n\nBy area:\n\n" +
            table(["area", "self %"], (p.byArea ?? []).map((a) => [a.area, a.selfPct.toFixed(1)])) +
            gcLine(p.gc)),
    );
  }

  const notes: string[] = [];
  for (const r of [...results.unary, ...(results.headToHead ?? []), ...(results.latency ?? []), ...(results.telemetry ?? [])]) if (r.note || r.verification) notes.push(`- ${r.id}: ${[r.verification, r.note].filter(Boolean).join("; ")}`);
  for (const r of results.streams) if (r.note) notes.push(`- ${r.id}: ${r.note}`);
  if (results.fanout?.note) notes.push(`- fan-out: ${results.fanout.note}`);
  if (results.store?.note) notes.push(`- store: ${results.store.note}`);
  if (results.storePostgres?.note) notes.push(`- store on PostgreSQL: ${results.storePostgres.note}`);
  for (const r of (results.postgres?.rows ?? []).filter((row) => row.replicas > 0)) notes.push(`- postgres ${r.id}: ${r.stored ?? "?"} tasks stored for ${r.served ?? "?"} good answers${r.note ? `; ${r.note}` : ""}`);
  if (notes.length > 0) parts.push("## Notes\n\n" + notes.join("\n"));
  return parts.join("\n\n") + "\n";
}

/** The collector's pauses during the profiled load (the hub runs under --trace-gc there too), per collector and per call answered. */
function gcLine(gc: ProfileResult["gc"]): string {
  if (!gc || gc.calls === 0) return "";
  const kind = (name: string, k: { count: number; ms: number }): string =>
    `${k.count} ${name} (${k.ms.toFixed(0)} ms in all, ${k.count ? (k.ms / k.count).toFixed(1) : "0"} ms each, ${((k.ms * 1000) / gc.calls).toFixed(1)} µs per call)`;
  return `\n\nGarbage collection during the timed load (--trace-gc; ${gc.calls} calls answered; a mark-compact counts its incremental marking steps): ${kind("scavenges", gc.scavenge)}; ${kind("mark-compacts", gc.markCompact)}.`;
}
