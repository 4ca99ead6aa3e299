/**
 * What the store-scale sections share, whichever store the hub runs on:
 * where the timed pages are (read from the seeded database before the hub
 * serves it), and the timing itself (loaders/list-pager.ts against the
 * hub, shaped into a StoreResult).
 */
import { execFileSync } from "node:child_process";
import type { BenchContext } from "../harness/bench-context.js";
import { runLoader } from "../harness/loader-process.js";
import { rssBytes } from "../harness/proc-stats.js";
import { waitForQuiet } from "../harness/quiet-machine.js";
import type { StoreResult } from "../harness/results.js";
import type { ServerUnderTest } from "../harness/servers-under-test.js";
import { spread } from "../harness/stats.js";
import type { SeededStore } from "../harness/store-seeder.js";
import type { DeepPoint, PagerCase, PagerConfig } from "../loaders/list-pager.js";

export const PAGE_SIZE = 50;
const DEEP_FRACTION = 0.9;
const GET_IDS = 1000;

/** Runs one query on the seeded database, `?` marking its parameters in order (rows as the driver gives them). */
export type StoreQuery = (sql: string, params: readonly unknown[]) => Promise<Array<Record<string, unknown>>>;

/** Where the pager times its cases: everything of its config but the hub and the counts of requests. */
export type ListingLayout = Omit<PagerConfig, "url" | "runs" | "samples" | "pageSize">;

/** The task at `position` of the newest-first listing and the cursor just before it. */
async function deepPoint(query: StoreQuery, seeded: SeededStore, position: number, contextId?: string): Promise<DeepPoint> {
  if (position < PAGE_SIZE) throw new Error(`store: too few tasks${contextId ? " in the filtered context" : ""} for a page deep into the listing (seed more)`);
  const filter = contextId ? "AND context_id = ?" : "";
  const rows = await query(
    `SELECT id, status_ms, touch FROM tasks WHERE tenant = ? AND agent = ? ${filter} ORDER BY status_ms DESC, touch DESC LIMIT 2 OFFSET ?`,
    [seeded.tenant, seeded.agent, ...(contextId ? [contextId] : []), position - 1],
  );
  if (rows.length < 2) throw new Error(`store: no task at position ${position}`);
  return { position, cursorMs: Number(rows[0]!.status_ms), cursorTouch: Number(rows[0]!.touch), firstId: String(rows[1]!.id) };
}

function pagePosition(total: number): number {
  return Math.floor((total * DEEP_FRACTION) / PAGE_SIZE) * PAGE_SIZE;
}

/**
 * Reads the layout of a seeded store (the hub's own task plus `seeded`):
 * the filtered context's size, the deep points with and without it, and
 * tasks for GetTask, picked at random by row key (1 to the total).
 */
export async function listingLayout(query: StoreQuery, seeded: SeededStore): Promise<ListingLayout> {
  const contextId = seeded.contextIds[0]!;
  const [count] = await query(`SELECT COUNT(*) AS n FROM tasks WHERE tenant = ? AND agent = ? AND context_id = ?`, [seeded.tenant, seeded.agent, contextId]);
  const totalInContext = Number(count!.n);
  const total = seeded.tasks + 1;
  const pks = Array.from({ length: GET_IDS }, () => 1 + Math.floor(Math.random() * total));
  const ids = await query(`SELECT id FROM tasks WHERE pk IN (${pks.map(() => "?").join(", ")})`, pks);
  if (ids.length === 0) throw new Error("store: no task found for GetTask");
  return {
    contextId,
    total,
    totalInContext,
    deep: await deepPoint(query, seeded, pagePosition(total)),
    deepInContext: await deepPoint(query, seeded, pagePosition(totalInContext), contextId),
    getIds: ids.map((r) => String(r.id)),
  };
}

/** Times every case against the hub serving the seeded store and writes the cases, errors and the hub's RSS into `result`. */
export async function timeListing(ctx: BenchContext, srv: ServerUnderTest, layout: ListingLayout, result: StoreResult, section: string): Promise<void> {
  // The seeded gigabytes go to disk now rather than under the first timed case, which the kernel's writeback slowed by 10-30%.
  execFileSync("sync");
  await waitForQuiet(ctx, section);
  ctx.log(`${section}: timing ListTasks/GetTask, ${ctx.options.pageSamples} requests × ${ctx.options.runs} runs per case`);
  const config: PagerConfig = { url: srv.url, runs: ctx.options.runs, samples: ctx.options.pageSamples, pageSize: PAGE_SIZE, ...layout };
  const r = await runLoader<{ error?: string; cases?: PagerCase[] }>("bench/loaders/list-pager.ts", config, ctx.pinning, 900_000);
  if (r.error || !r.cases) throw new Error(r.error ?? "no result");
  result.rssAfterBytes = rssBytes(srv.child.pid);
  result.errors = r.cases.reduce((a, c) => a + c.errors, 0);
  const notes = r.cases.filter((c) => c.note).map((c) => `${c.label}: ${c.note}`);
  if (notes.length) result.note = notes.join("; ");
  result.cases = r.cases.map((c) => ({ label: c.label, position: c.position, p50Ms: spread(c.p50), p99Ms: spread(c.p99) }));
  result.contextTasks = layout.totalInContext;
}
