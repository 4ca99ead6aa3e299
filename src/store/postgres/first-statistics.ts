/** Runs one statement (the store's, which maps a lost database to StoreUnavailableError). */
type Query = <R>(what: string, text: string, values: unknown[]) => Promise<R[]>;

/** Tasks created by this process at which the tables' statistics are checked, and gathered if they predate them. */
const CHECKS = [100, 1_000];
const TABLES = "tasks, history, artifacts, artifact_parts, events";
const KNOWN_ROWS = `SELECT reltuples::bigint AS n FROM pg_class WHERE oid = 'tasks'::regclass`;

/**
 * Gathers the planner's statistics on a young database instead of waiting
 * for autovacuum. Without statistics the planner cannot tell the key
 * lookup of a task (the unique (tenant, agent, id) index, one row) from a
 * walk of the scope's ListTasks index (every task of the agent, filtered
 * by id): both estimate one row, and it may pick the walk. Each pooled
 * connection keeps the plan it made for its first call, so on a new
 * database every read of a task grew with the table until autovacuum's
 * first ANALYZE (a minute or more later) invalidated those plans. ANALYZE
 * takes no lock that writes wait for, and it is run only when the known
 * row count is below what this process alone has created.
 */
export class FirstStatistics {
  private created = 0;
  private next = 0;

  constructor(private readonly query: Query) {}

  /** A task was created by this process. */
  taskCreated(): void {
    this.created++;
    if (this.next < CHECKS.length && this.created === CHECKS[this.next]) {
      this.next++;
      // A database that cannot be reached now loses nothing by it: autovacuum gathers them later.
      this.gather(this.created).catch(() => undefined);
    }
  }

  private async gather(created: number): Promise<void> {
    const [row] = await this.query<{ n: number }>("reading the tables' statistics", KNOWN_ROWS, []);
    if (row && row.n >= created) return;
    await this.query("gathering the tables' statistics", `ANALYZE ${TABLES}`, []);
  }
}
