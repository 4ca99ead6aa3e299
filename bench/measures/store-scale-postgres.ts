/**
 * Store scale on PostgreSQL: the store section's cases (store-scale.ts)
 * against a hub whose store is a PostgreSQL database seeded with N
 * completed tasks, on a private cluster as the tests start it
 * (test/helpers/postgres-cluster.ts).
 */
import pg from "pg";
import { PostgresCluster } from "../../test/helpers/postgres-cluster.js";
import { a2aClient, sampleSendMessage } from "../harness/a2a-clients.js";
import type { BenchContext } from "../harness/bench-context.js";
import { failureNote } from "../harness/failure-note.js";
import type { StoreResult } from "../harness/results.js";
import { startHubChild, type ServerUnderTest } from "../harness/servers-under-test.js";
import { seedPostgresTasks } from "../harness/store-seeder-postgres.js";
import type { SeededStore } from "../harness/store-seeder.js";
import { listingLayout, timeListing, type ListingLayout, type StoreQuery } from "./store-listing.js";

/** A StoreQuery on a PostgreSQL client: `?` becomes $1, $2, ... */
export function postgresQuery(db: pg.Client): StoreQuery {
  return async (sql, params) => {
    let k = 0;
    return (await db.query(sql.replace(/\?/g, () => `$${++k}`), [...params])).rows as Array<Record<string, unknown>>;
  };
}

/** The database's size on disk and the layout the pager needs, read from the seeded database. */
async function readSeeded(url: string, seeded: SeededStore): Promise<{ dbBytes: number; layout: ListingLayout }> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const dbBytes = Number((await db.query<{ n: string }>("SELECT pg_database_size(current_database()) AS n")).rows[0]!.n);
    return { dbBytes, layout: await listingLayout(postgresQuery(db), seeded) };
  } finally {
    await db.end();
  }
}

export async function measureStorePostgres(ctx: BenchContext): Promise<StoreResult> {
  const n = ctx.options.seedTasks;
  const result: StoreResult = { status: "ok", tasks: n, cases: [] };
  const section = "store-postgres";
  let cluster: PostgresCluster | undefined;
  let srv: ServerUnderTest | undefined;
  try {
    cluster = await PostgresCluster.start();
    const url = await cluster.createDatabase();
    const env = { A2A_HUB_STORE: url };
    // The hub creates the schema and writes one task the seeder copies tenant and agent from.
    srv = await startHubChild(ctx.pinning, ctx.freshDir("pg-store-hub"), { env });
    await sampleSendMessage(a2aClient(srv.url), 1);
    await srv.child.stop();
    ctx.log(`${section}: seeding ${n.toLocaleString("en")} tasks`);
    const seeded = await seedPostgresTasks(url, n, ctx.log);
    result.seedSec = seeded.seconds;
    const { dbBytes, layout } = await readSeeded(url, seeded);
    result.dbBytes = dbBytes;
    ctx.log(`${section}: seeded in ${seeded.seconds.toFixed(0)} s, ${(dbBytes / 2 ** 20).toFixed(0)} MiB`);

    srv = await startHubChild(ctx.pinning, ctx.freshDir("pg-store-hub"), { env });
    await timeListing(ctx, srv, layout, result, section);
  } catch (e) {
    result.status = "failed";
    result.note = failureNote(e);
    ctx.log(`${section} failed: ${result.note}`);
  } finally {
    await srv?.child.stop();
    await cluster?.stop();
  }
  return result;
}
