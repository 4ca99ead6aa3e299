/**
 * Store scale: ListTasks (pageSize 50, with and without a contextId
 * filter) at the first page and 90% deep into the listing, and GetTask,
 * after seeding the hub's SQLite file with N completed tasks.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { a2aClient, sampleSendMessage } from "../harness/a2a-clients.js";
import type { BenchContext } from "../harness/bench-context.js";
import { runLoader } from "../harness/loader-process.js";
import { waitForQuiet } from "../harness/quiet-machine.js";
import { rssBytes } from "../harness/proc-stats.js";
import type { StoreResult } from "../harness/results.js";
import { startHubChild, type ServerUnderTest } from "../harness/servers-under-test.js";
import { spread } from "../harness/stats.js";
import { seedTasks, type SeededStore } from "../harness/store-seeder.js";
import type { DeepPoint, PagerCase, PagerConfig } from "../loaders/list-pager.js";
import { failureNote } from "../harness/failure-note.js";

const PAGE_SIZE = 50;
const DEEP_FRACTION = 0.9;

/** The task at `position` of the newest-first listing and the cursor just before it, read from the file. */
function deepPoint(db: Database.Database, seeded: SeededStore, position: number, contextId?: string): DeepPoint {
  const filter = contextId ? "AND context_id = @contextId" : "";
  const rows = db
    .prepare(`SELECT id, status_ms, touch FROM tasks WHERE tenant = @tenant AND agent = @agent ${filter}
              ORDER BY status_ms DESC, touch DESC LIMIT 2 OFFSET @offset`)
    .all({ tenant: seeded.tenant, agent: seeded.agent, contextId, offset: position - 1 }) as Array<{ id: string; status_ms: number; touch: number }>;
  if (rows.length < 2) throw new Error(`store: no task at position ${position}`);
  return { position, cursorMs: rows[0]!.status_ms, cursorTouch: rows[0]!.touch, firstId: rows[1]!.id };
}

function pagePosition(total: number): number {
  return Math.floor((total * DEEP_FRACTION) / PAGE_SIZE) * PAGE_SIZE;
}

export async function measureStore(ctx: BenchContext): Promise<StoreResult> {
  const n = ctx.options.seedTasks;
  const result: StoreResult = { status: "ok", tasks: n, cases: [] };
  const dir = ctx.freshDir("hub-store");
  const file = join(dir, "a2a-hub.db");
  let srv: ServerUnderTest | undefined;
  try {
    // The hub creates the schema and writes one task the seeder copies tenant and agent from.
    srv = await startHubChild(ctx.pinning, dir);
    await sampleSendMessage(a2aClient(srv.url), 1);
    await srv.child.stop();
    ctx.log(`store: seeding ${n.toLocaleString("en")} tasks`);
    const seeded = seedTasks(file, n, ctx.log);
    result.seedSec = seeded.seconds;
    result.dbBytes = statSync(file).size;
    ctx.log(`store: seeded in ${seeded.seconds.toFixed(0)} s, ${(result.dbBytes / 2 ** 20).toFixed(0)} MiB`);

    const db = new Database(file, { readonly: true });
    const contextId = seeded.contextIds[0]!;
    const inContext = (db.prepare(`SELECT COUNT(*) AS n FROM tasks WHERE context_id = ?`).get(contextId) as { n: number }).n;
    const total = n + 1;
    const deep = deepPoint(db, seeded, pagePosition(total));
    const deepInContext = deepPoint(db, seeded, pagePosition(inContext), contextId);
    const getIds = (db.prepare(`SELECT id FROM tasks WHERE pk IN (SELECT abs(random()) % ? + 1 FROM tasks LIMIT 1000)`).all(total) as Array<{ id: string }>).map((r) => r.id);
    db.close();

    srv = await startHubChild(ctx.pinning, dir);
    await waitForQuiet(ctx, "store");
    ctx.log(`store: timing ListTasks/GetTask, ${ctx.options.pageSamples} requests × ${ctx.options.runs} runs per case`);
    const config: PagerConfig = { url: srv.url, runs: ctx.options.runs, samples: ctx.options.pageSamples, pageSize: PAGE_SIZE, contextId, total, totalInContext: inContext, deep, deepInContext, getIds };
    const r = await runLoader<{ error?: string; cases?: PagerCase[] }>("bench/loaders/list-pager.ts", config, ctx.pinning, 900_000);
    if (r.error || !r.cases) throw new Error(r.error ?? "no result");
    result.rssAfterBytes = rssBytes(srv.child.pid);
    result.errors = r.cases.reduce((a, c) => a + c.errors, 0);
    const notes = r.cases.filter((c) => c.note).map((c) => `${c.label}: ${c.note}`);
    if (notes.length) result.note = notes.join("; ");
    result.cases = r.cases.map((c) => ({ label: c.label, position: c.position, p50Ms: spread(c.p50), p99Ms: spread(c.p99) }));
    result.contextTasks = inContext;
  } catch (e) {
    result.status = "failed";
    result.note = failureNote(e);
    ctx.log(`store failed: ${result.note}`);
  } finally {
    await srv?.child.stop();
  }
  return result;
}
