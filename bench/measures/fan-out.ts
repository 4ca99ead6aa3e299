/**
 * Fan-out: N concurrent SubscribeToTask streams (gRPC, 100 per connection)
 * on one slow task: the server's RSS while they sit idle, then the time
 * from CancelTask until every subscriber has the CANCELED status.
 */
import type { BenchContext } from "../harness/bench-context.js";
import { runLoader } from "../harness/loader-process.js";
import { waitForQuiet } from "../harness/quiet-machine.js";
import { rssBytes } from "../harness/proc-stats.js";
import type { FanoutResult } from "../harness/results.js";
import { startHubChild, type ServerUnderTest } from "../harness/servers-under-test.js";
import { spread } from "../harness/stats.js";
import { failureNote } from "../harness/failure-note.js";

const STREAMS_PER_CONNECTION = 100;
/** Long enough that the task is still working when it is canceled. */
const SLOW_MS = 600_000;
/** Idle time with every subscriber connected before RSS is read. */
const SETTLE_MS = 1_000;

interface SwarmResult {
  error?: string;
  subscribers: number;
  connections: number;
  subscribeSec: number;
  received: number;
  deliverFirstMs: number;
  deliverAllMs: number;
  deliverP50Ms: number;
  errors: number;
  problems: string[];
}

export async function measureFanout(ctx: BenchContext): Promise<FanoutResult> {
  const n = ctx.options.subscribers;
  ctx.log(`fan-out: ${n} SubscribeToTask streams × ${ctx.options.runs} runs`);
  const result: FanoutResult = { status: "ok", subscribers: n };
  let srv: ServerUnderTest | undefined;
  try {
    srv = await startHubChild(ctx.pinning, ctx.freshDir("hub-fanout"));
    const pid = srv.child.pid;
    result.rssIdleBeforeBytes = rssBytes(pid);
    const runs: Array<SwarmResult & { rss: number }> = [];
    const problems: string[] = [];
    for (let i = 0; i < ctx.options.runs; i++) {
      await waitForQuiet(ctx, `fan-out run ${i + 1}`);
      let rss = NaN;
      const r = await runLoader<SwarmResult>(
        "bench/loaders/subscriber-swarm.ts",
        { url: srv.url, subscribers: n, streamsPerConnection: STREAMS_PER_CONNECTION, slowMs: SLOW_MS },
        ctx.pinning,
        600_000,
        (child) =>
          child.onLine((line) => {
            if (!line.startsWith("READY")) return;
            setTimeout(() => {
              rss = rssBytes(pid);
              child.send("GO");
            }, SETTLE_MS);
          }),
      );
      if (r.error) throw new Error(r.error);
      problems.push(...r.problems);
      runs.push({ ...r, rss });
    }
    result.sessions = runs[0]?.connections;
    result.rssWithSubscribersBytes = spread(runs.map((r) => r.rss));
    result.subscribeSec = spread(runs.map((r) => r.subscribeSec));
    result.deliverAllMs = spread(runs.map((r) => r.deliverAllMs));
    result.deliverFirstMs = spread(runs.map((r) => r.deliverFirstMs));
    result.deliverP50Ms = spread(runs.map((r) => r.deliverP50Ms));
    result.errors = runs.reduce((a, r) => a + r.errors, 0);
    if (problems.length) result.note = [...new Set(problems)].slice(0, 4).join("; ");
  } catch (e) {
    result.status = "failed";
    result.note = failureNote(e);
    ctx.log(`fan-out failed: ${result.note}`);
  } finally {
    await srv?.child.stop();
  }
  return result;
}
