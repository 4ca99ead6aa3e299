/**
 * The latency budget: p50 and p99 of SendMessage on each binding at 1, 8,
 * 32 and 128 calls in flight, each through the client its users run
 * (autocannon for the HTTP/1.1 facades, grpc-js for gRPC, connect-node for
 * Connect h2 and gRPC-Web). Throughput bought with latency shows here: a
 * change that raises req/s at 32 by queueing calls raises p50 at 1 and 8.
 * One hub serves every row, loaded one row and concurrency at a time.
 */
import type { BenchContext } from "../harness/bench-context.js";
import type { UnaryRow } from "../harness/results.js";
import { rowSpecs } from "./unary-throughput.js";
import { emptyRow, failRow, RowSession } from "./unary-row.js";

/** The rows the budget covers: one per binding, under its users' client. */
export const LATENCY_ROWS = ["hub-jsonrpc", "hub-rest", "hub-connect-h1", "hub-grpc-grpcjs", "hub-connect-h2-connect", "hub-grpcweb-connect"] as const;

/** Calls in flight the budget is read at. */
export const LATENCY_CONCURRENCY = [1, 8, 32, 128] as const;

export async function measureLatencyBudget(ctx: BenchContext): Promise<UnaryRow[]> {
  const all = rowSpecs();
  const rows: UnaryRow[] = [];
  for (const id of LATENCY_ROWS) {
    const spec = all.find((s) => s.id === id);
    if (!spec) throw new Error(`latency budget: no unary row ${id}`);
    const row = emptyRow({ ...spec, id: `latency-${id}` });
    rows.push(row);
    ctx.log(`latency: ${spec.binding} (${row.loader})`);
    let session: RowSession | undefined;
    try {
      session = await RowSession.open(ctx, spec, row);
      if (!session) continue;
      await session.warm(ctx, 32, ctx.options.warmupSec);
      for (const c of LATENCY_CONCURRENCY) row.cells.push(await session.load(ctx, c));
      await session.check();
    } catch (e) {
      failRow(ctx, row, e);
    } finally {
      await session?.stop();
    }
  }
  return rows;
}
