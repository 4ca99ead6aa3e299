/**
 * A CPU profile of a2a-hub under SendMessage load, for whoever optimizes
 * it: the hub runs under node --cpu-prof while autocannon loads it at 32
 * connections, over JSON-RPC when it is served and Connect unary JSON
 * otherwise; the profile is written when the hub exits gracefully. The
 * hub also runs under --trace-gc, and the collections during the timed
 * load are tallied (gc-trace.ts): the profile's largest frame, split by
 * collector.
 */
import { mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { BenchContext } from "../harness/bench-context.js";
import { topSelfFrames, type ProfileWindow } from "../harness/cpu-profile.js";
import { GcTrace } from "../harness/gc-trace.js";
import { runLoader } from "../harness/loader-process.js";
import { waitForQuiet } from "../harness/quiet-machine.js";
import { CONNECT_JSON_HEADERS, JSON_HEADERS, jsonRpcBody, PER_REQUEST_ID, sendMessageJson } from "../harness/request-bodies.js";
import { ECHO_TEXT } from "../harness/response-checks.js";
import type { ProfileResult } from "../harness/results.js";
import { startHubChild, type ServerUnderTest } from "../harness/servers-under-test.js";
import { failureNote } from "../harness/failure-note.js";

const TOP = 25;

export async function measureProfile(ctx: BenchContext, profileDir: string): Promise<ProfileResult> {
  const result: ProfileResult = { status: "ok" };
  let srv: ServerUnderTest | undefined;
  try {
    mkdirSync(profileDir, { recursive: true });
    const before = new Set(readdirSync(profileDir));
    srv = await startHubChild(ctx.pinning, ctx.freshDir("hub-profile"), { cpuProfDir: profileDir, traceGc: true });
    const gc = new GcTrace();
    srv.child.onLine((line) => gc.line(line));
    const jsonrpc = await fetch(srv.url, { method: "POST", headers: JSON_HEADERS, body: jsonRpcBody("SendMessage", sendMessageJson()) });
    await jsonrpc.arrayBuffer();
    const load =
      jsonrpc.status === 200
        ? { label: "JSON-RPC SendMessage", url: srv.url, headers: JSON_HEADERS, body: jsonRpcBody("SendMessage", sendMessageJson(ECHO_TEXT, PER_REQUEST_ID)), check: "jsonrpc-task" }
        : { label: "Connect unary JSON SendMessage", url: `${srv.url}lf.a2a.v1.A2AService/SendMessage`, headers: CONNECT_JSON_HEADERS, body: JSON.stringify(sendMessageJson(ECHO_TEXT, PER_REQUEST_ID)), check: "task-wrapper" };
    result.load = `${load.label}, HTTP/1.1, autocannon 32 connections, ${ctx.options.profileSec} s`;
    await waitForQuiet(ctx, "profile");
    ctx.log(`profile: ${result.load}, hub under --cpu-prof`);
    // Only the timed load counts: start-up (module loading) and warm-up stay out.
    const clockUs = () => Number(process.hrtime.bigint() / 1000n);
    const window = { fromUs: NaN, toUs: NaN };
    const r = await runLoader<{ error?: string; runs?: Array<{ requests: number }> }>(
      "bench/loaders/autocannon-loader.ts",
      { url: load.url, headers: load.headers, body: load.body, connections: 32, warmupSec: 0.5, durationSec: ctx.options.profileSec, runs: 1, check: load.check },
      ctx.pinning,
      ctx.options.profileSec * 1000 + 60_000,
      (child) =>
        child.onLine((line) => {
          if (line.startsWith("MARK start")) {
            window.fromUs = clockUs();
            gc.counting = true;
          }
          if (line.startsWith("MARK end")) {
            window.toUs = clockUs();
            gc.counting = false;
          }
        }),
    );
    if (r.error) throw new Error(r.error);
    result.gc = { ...gc.result(), calls: r.runs?.[0]?.requests ?? 0 };
    // SIGINT is the hub's graceful stop; V8 writes the profile as the process exits.
    await srv.child.stop("SIGINT", 30_000);
    const written = readdirSync(profileDir).filter((f) => f.endsWith(".cpuprofile") && !before.has(f));
    if (written.length === 0) throw new Error("the hub wrote no .cpuprofile");
    result.file = join(profileDir, written[0]!);
    const w: ProfileWindow | undefined = Number.isFinite(window.fromUs) && Number.isFinite(window.toUs) ? window : undefined;
    const top = topSelfFrames(result.file, TOP, w);
    result.frames = top.frames;
    result.byArea = top.byArea;
    result.busyMs = top.busyMs;
    result.idleMs = top.idleMs;
  } catch (e) {
    result.status = "failed";
    result.note = failureNote(e);
    ctx.log(`profile failed: ${result.note}`);
  } finally {
    await srv?.child.stop();
  }
  return result;
}
