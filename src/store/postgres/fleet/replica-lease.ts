import type pg from "pg";

// Lease arithmetic on the database clock: replicas' own clocks never meet.
const RENEW = `INSERT INTO replicas (id, expires_at) VALUES ($1, now() + $2::bigint * interval '1 millisecond')
  ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at`;
const LEAVE = `DELETE FROM replicas WHERE id = $1`;

/**
 * This replica's lease: one row in `replicas`, renewed every third of the
 * lease, so two renewals may fail in a row (a database restart) before
 * other replicas take this one for dead and fail its tasks in flight.
 * Costs one statement per replica per period, whatever the number of runs.
 */
export class ReplicaLease {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pool: pg.Pool,
    readonly replica: string,
    readonly leaseMs: number,
    private readonly onRenewFailed: (error: unknown) => void,
  ) {}

  async start(): Promise<void> {
    await this.renew();
    this.timer = setInterval(() => {
      this.renew().catch((e: unknown) => this.onRenewFailed(e));
    }, Math.max(50, Math.floor(this.leaseMs / 3)));
    this.timer.unref();
  }

  private async renew(): Promise<void> {
    await this.pool.query(RENEW, [this.replica, this.leaseMs]);
  }

  /** Gives the lease up: other replicas sweep what this one left in flight at once, not after the lease. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.pool.query(LEAVE, [this.replica]).catch(() => undefined);
  }
}
