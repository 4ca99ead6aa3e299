import pg from "pg";

/** Runs `fn` on a connection of its own to `url`, closed after. */
export async function withPgClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}
