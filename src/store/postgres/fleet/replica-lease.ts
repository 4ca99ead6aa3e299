import pg from "pg";

// Lease arithmetic on the database clock: replicas' own clocks never meet. `lapsed`: the row was there
// and had run out before this renewal (other replicas may have swept this one's tasks in flight meanwhile).
const RENEW = `WITH before AS (SELECT expires_at FROM replicas WHERE id = $1)
  INSERT INTO replicas (id, expires_at) VALUES ($1, now() + $2::bigint * interval '1 millisecond')
  ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at
  RETURNING COALESCE((SELECT expires_at <= now() FROM before), false) AS lapsed`;
const LEAVE = `DELETE FROM replicas WHERE id = $1`;

/**
 * This replica's lease: one row in `replicas`, renewed every third of the
 * lease, so two renewals may fail in a row (a database restart) before
 * other replicas take this one for dead and fail its tasks in flight.
 * Costs one statement per replica per period, whatever the number of runs.
 *
 * The lease has a connection of its own: through the store's pool a
 * renewal would queue behind the replica's own reads and writes, and a
 * replica busy enough to fill its pool would lose its lease to that queue
 * and have its live runs failed by the others.
 */
export class ReplicaLease {
  private timer: NodeJS.Timeout | undefined;
  private readonly pool: pg.Pool;

  constructor(
    clientConfig: pg.ClientConfig,
    readonly replica: string,
    readonly leaseMs: number,
    private readonly onProblem: (what: string, error: unknown, lostWork?: boolean) => void,
  ) {
    // One connection, opened again by the pool when the server restarts; a renewal waits no longer than its period.
    this.pool = new pg.Pool({ ...clientConfig, max: 1, connectionTimeoutMillis: this.periodMs() });
    this.pool.on("error", (e) => onProblem("the lease's connection dropped; opening another", e));
  }

  private periodMs(): number {
    return Math.max(50, Math.floor(this.leaseMs / 3));
  }

  async start(): Promise<void> {
    await this.renew();
    this.timer = setInterval(() => {
      this.renew().catch((e: unknown) => this.onProblem("renewing this replica's lease failed", e));
    }, this.periodMs());
    this.timer.unref();
  }

  private async renew(): Promise<void> {
    const { rows } = await this.pool.query<{ lapsed: boolean }>(RENEW, [this.replica, this.leaseMs]);
    if (rows[0]?.lapsed) {
      this.onProblem(
        "this replica's lease had run out before it was renewed",
        new Error(`renewals more than ${this.leaseMs} ms apart: other replicas may have failed this one's tasks in flight, whose next writes are then refused`),
        true,
      );
    }
  }

  /** Gives the lease up: other replicas sweep what this one left in flight at once, not after the lease. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.pool.query(LEAVE, [this.replica]).catch(() => undefined);
    await this.pool.end().catch(() => undefined);
  }
}
