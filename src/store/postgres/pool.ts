import pg from "pg";

/** Where the PostgreSQL store lives and how many connections one hub keeps to it (config `store: { url, poolSize }`). */
export interface PostgresStoreOptions {
  /** postgres://user:password@host:port/database (libpq's URL form, with its query parameters, e.g. sslmode). */
  readonly url: string;
  /** Connections kept open at most (default 10). */
  readonly poolSize?: number;
  /** How long to wait for a connection, from the pool or the server, before the call fails (ms, default 5000). */
  readonly connectTimeoutMs?: number;
  /** Reported by the server in pg_stat_activity (default "a2a-hub"). */
  readonly applicationName?: string;
  /** Told when an idle connection breaks (the server restarted, the network dropped); the pool replaces it. */
  readonly onIdleError?: (error: Error) => void;
}

const INT8_OID = 20;

/** Connections one hub keeps to the database at most, unless told otherwise. */
export const DEFAULT_POOL_SIZE = 10;

/**
 * bigint columns (epoch milliseconds, row keys, counts) come back as numbers,
 * not the driver's default strings: every value the store keeps is far below
 * 2^53, and one that is not is refused rather than silently rounded.
 */
function parseInt8(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError(`bigint ${text} does not fit in a JavaScript number`);
  return n;
}

const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === INT8_OID && format !== "binary" ? parseInt8 : pg.types.getTypeParser(oid, format as "text")) as pg.CustomTypesConfig["getTypeParser"],
};

/** Checks the URL names a PostgreSQL server, so that a typo is one clear error at start rather than a driver's. */
export function checkPostgresUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`the store URL is not a URL: expected postgres://user:password@host:port/database`);
  }
  if (parsed.protocol !== "postgres:" && parsed.protocol !== "postgresql:") {
    throw new Error(`the store URL must begin with postgres:// or postgresql://, not ${parsed.protocol}//`);
  }
  return parsed;
}

/** A connection pool to the store's database; queries through it take parameters only. */
export function createPool(options: PostgresStoreOptions): pg.Pool {
  checkPostgresUrl(options.url);
  const poolSize = options.poolSize ?? DEFAULT_POOL_SIZE;
  if (!Number.isInteger(poolSize) || poolSize < 1) throw new Error(`poolSize must be a whole number of connections >= 1, not ${poolSize}`);
  const pool = new pg.Pool({
    connectionString: options.url,
    max: poolSize,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    application_name: options.applicationName ?? "a2a-hub",
    // A replica whose server vanished without a FIN (lost network) learns it from the kernel, not from a hung query.
    keepAlive: true,
    // Every statement of the store is a keyed lookup or a write through an index. A statement is
    // planned once per connection (statement-names.ts), often while its tables are still nearly
    // empty, when a sequential scan looks cheapest; that plan then stays as the tables grow (until
    // an autovacuum analyze happens to invalidate it), and a read of one task scanned every artifact.
    // Set at connection start, so no statement runs before it.
    options: "-c enable_seqscan=off",
    types,
  });
  // Without a listener, an idle connection's error (the server restarted) is
  // an uncaught exception that ends the process; the pool drops that client
  // and the next checkout opens a new one.
  pool.on("error", (error) => options.onIdleError?.(error));
  return pool;
}
