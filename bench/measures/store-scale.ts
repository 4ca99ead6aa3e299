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
import type { StoreResult } from "../harness/results.js";
import { startHubChild, type ServerUnderTest } from "../harness/servers-under-test.js";
import { seedTasks } from "../harness/store-seeder.js";
import { failureNote } from "../harness/failure-note.js";
import { listingLayout, timeListing } from "./store-listing.js";

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
    const layout = await listingLayout(async (sql, params) => db.prepare(sql).all(...params) as Array<Record<string, unknown>>, seeded);
    db.close();

    srv = await startHubChild(ctx.pinning, dir);
    await timeListing(ctx, srv, layout, result, "store");
  } catch (e) {
    result.status = "failed";
    result.note = failureNote(e);
    ctx.log(`store failed: ${result.note}`);
  } finally {
    await srv?.child.stop();
  }
  return result;
}
