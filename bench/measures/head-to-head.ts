/**
 * The ratio targets measured head to head: the SDK's in-memory
 * servers and every hub binding that a target names, side by side in one
 * interleaved section (interleaved-rows.ts) at 32 connections, the SDK's
 * in-memory JSON-RPC the baseline. Run after the unary table, whose rows
 * are each measured alone minutes apart: on this shared host a row there
 * moved by ±30% between runs with no change to the code, which is more
 * than the margins the targets are judged by. Here every ratio is a
 * median of per-run ratios against the baseline at the moment of the run;
 * a ratio between two non-baseline rows (hub gRPC over the SDK's gRPC, a
 * binding over the hub's JSON-RPC) divides their medians, so the drift
 * cancels in each.
 */
import type { BenchContext } from "../harness/bench-context.js";
import type { UnaryRow } from "../harness/results.js";
import { measureInterleaved } from "./interleaved-rows.js";
import { rowSpecs } from "./unary-throughput.js";

/** The unary rows the targets compare, the baseline first; ids in this section are `versus-<unary id>`. */
export const VERSUS_ROWS = [
  "sdk-memory-jsonrpc",
  "sdk-memory-grpc-grpcjs",
  "hub-jsonrpc",
  "hub-rest",
  "hub-connect-h1",
  "hub-grpc-grpcjs",
  "hub-grpc-connect",
  "hub-connect-h2-connect",
  "hub-grpcweb-connect",
  // connect-node's clients against the least server (a fixed Task): the client stack's own ceiling on its core, not judged.
  "bare-connect-h2-connect",
  "bare-connect-grpcweb-connect",
  // The bench's own h2 loader: the server's ceiling, not judged.
  "sdk-memory-grpc",
  "hub-connect-h2",
  "hub-grpc",
  "hub-grpcweb",
] as const;

/** Untimed load per server before the rounds, as in the telemetry section (telemetry-cost.ts says why). */
const SETTLE_SEC = { quick: 4, full: 15 } as const;

/** Rounds of a full run, whatever --runs says: the median of 3 per-run ratios still moved by several percent. */
const MIN_ROUNDS = 7;

/** The targets are judged at 32 connections. */
const CONNECTIONS = [32] as const;

export function measureHeadToHead(ctx: BenchContext): Promise<UnaryRow[]> {
  const all = rowSpecs();
  const specs = VERSUS_ROWS.map((id) => {
    const spec = all.find((s) => s.id === id);
    if (!spec) throw new Error(`head to head: no unary row ${id}`);
    return { ...spec, id: `versus-${id}` };
  });
  return measureInterleaved(ctx, {
    title: "head to head (the ratio targets)",
    specs,
    settleSec: ctx.options.quick ? SETTLE_SEC.quick : SETTLE_SEC.full,
    rounds: ctx.options.quick ? ctx.options.runs : Math.max(ctx.options.runs, MIN_ROUNDS),
    connections: CONNECTIONS,
  });
}
