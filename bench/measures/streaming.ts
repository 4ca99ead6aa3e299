/**
 * One stream of `stream <n>`: events/s delivered and time to first event,
 * over JSON-RPC SSE and over gRPC server streaming, on a2a-hub.
 */
import type { BenchContext } from "../harness/bench-context.js";
import { runLoader } from "../harness/loader-process.js";
import { waitForQuiet } from "../harness/quiet-machine.js";
import type { StreamRow } from "../harness/results.js";
import { startHubChild, type ServerUnderTest } from "../harness/servers-under-test.js";
import { spread } from "../harness/stats.js";
import { failureNote } from "../harness/failure-note.js";

interface ReaderResult {
  error?: string;
  notServed?: boolean;
  long?: Array<{ events: number; eventsPerSec: number; firstEventMs: number; clientCpu: number }>;
  firstEventP50Ms?: number;
  firstEventP99Ms?: number;
  firstEventSamples?: number;
  errors?: number;
  problems?: string[];
}

/**
 * Timed long streams per binding, whatever --runs says: one lasts well under
 * a second, and from one to the next a stream's rate moves by ±30% on a
 * shared host, so three would leave the median to chance.
 */
const STREAM_RUNS = 7;

const BINDINGS = [
  { id: "hub-sse", mode: "sse", binding: "JSON-RPC SendStreamingMessage, SSE (HTTP/1.1)" },
  { id: "hub-grpc-stream", mode: "grpc", binding: "gRPC SendStreamingMessage (h2c)" },
] as const;

export async function measureStreaming(ctx: BenchContext): Promise<StreamRow[]> {
  const rows: StreamRow[] = [];
  for (const b of BINDINGS) {
    const runs = Math.max(ctx.options.runs, STREAM_RUNS);
    ctx.log(`streaming: ${b.binding}, stream ${ctx.options.streamChunks} × ${runs} after ${ctx.options.warmupSec} s of warm-up streams`);
    const row: StreamRow = { id: b.id, binding: b.binding, status: "ok" };
    let srv: ServerUnderTest | undefined;
    try {
      srv = await startHubChild(ctx.pinning, ctx.freshDir("hub-stream"));
      await waitForQuiet(ctx, `streaming ${b.id}`);
      const r = await runLoader<ReaderResult>(
        "bench/loaders/stream-reader.ts",
        { mode: b.mode, url: srv.url, chunks: ctx.options.streamChunks, warmupSec: ctx.options.warmupSec, runs, firstEventSamples: ctx.options.firstEventSamples },
        ctx.pinning,
        300_000,
      );
      if (r.notServed) {
        row.status = "not served yet";
        row.note = "POST / answers 404; this row fills in once the JSON-RPC binding is mounted";
      } else if (r.error || !r.long) {
        throw new Error(r.error ?? "no result");
      } else {
        row.eventsPerSec = spread(r.long.map((l) => l.eventsPerSec));
        row.firstEventLongMs = spread(r.long.map((l) => l.firstEventMs));
        row.clientCpu = spread(r.long.map((l) => l.clientCpu));
        row.firstEventP50Ms = r.firstEventP50Ms;
        row.firstEventP99Ms = r.firstEventP99Ms;
        row.firstEventSamples = r.firstEventSamples;
        row.eventsPerStream = r.long[0]?.events;
        row.errors = r.errors;
        if (r.problems?.length) row.note = r.problems.join("; ");
      }
    } catch (e) {
      row.status = "failed";
      row.note = failureNote(e);
      ctx.log(`streaming: ${b.id} failed: ${row.note}`);
    } finally {
      await srv?.child.stop();
    }
    rows.push(row);
  }
  return rows;
}
