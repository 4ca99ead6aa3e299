import { randomUUID } from "node:crypto";
import type pg from "pg";
import type { Fleet, OrphanTask, TaskWake } from "../../fleet.js";
import type { StoreScope } from "../../task-store.js";
import { IN_FLIGHT_SQL } from "../../task-states.js";
import { storeError } from "../driver-errors.js";
import { NotificationListener } from "./notification-listener.js";
import { ReplicaLease } from "./replica-lease.js";

/** Channels: events committed (payload: task, first and last seq, replica), and cancel requests (payload: owner, task). */
const EVENTS = "a2a_events";
const CANCELS = "a2a_cancel";

/**
 * A task in flight that this replica does not hold: its owner is asked to cancel its run when it
 * holds a live lease; otherwise the owner died and a sweep fails the task (the one writer of an
 * orphan). A row means another replica settles the task.
 */
const REQUEST_CANCEL = `SELECT CASE WHEN EXISTS (SELECT 1 FROM replicas r WHERE r.id = t.owner AND r.expires_at > now())
    THEN pg_notify('${CANCELS}', json_build_object('o', t.owner, 't', t.tenant, 'a', t.agent, 'id', t.id)::text) END AS asked
  FROM tasks t
  WHERE t.tenant = $1 AND t.agent = $2 AND t.id = $3 AND t.state IN (${IN_FLIGHT_SQL}) AND t.owner IS DISTINCT FROM $4`;

/** Default lease: a dead replica's tasks fail within about this long plus one sweep period. */
export const DEFAULT_LEASE_MS = 15_000;

export interface PgFleetOptions {
  /** How long a replica's lease lasts without renewal (ms, default 15 s). */
  readonly leaseMs?: number;
  /**
   * Told of the fleet's troubles (a lost listening connection, a failed renewal), for the log; `lostWork`:
   * the trouble may have cost clients their tasks (the lease ran out while this replica lived).
   */
  readonly onProblem?: (what: string, error: unknown, lostWork?: boolean) => void;
}

/**
 * The fleet on PostgreSQL: LISTEN/NOTIFY for wake-ups and cancel requests,
 * a lease per replica in `replicas`, and the sweep of orphans (done by the
 * store, which must load what it claims). The schema and the unit's NOTIFY: ../migration-2-unit-function.ts and ../unit-statement.ts.
 */
export class PgFleet implements Fleet {
  readonly replica = randomUUID();
  readonly sweepEveryMs: number;
  private readonly lease: ReplicaLease;
  private readonly listener: NotificationListener;
  private readonly wakes = new Set<(w: TaskWake) => void>();
  private readonly losses = new Set<() => void>();
  private readonly cancels = new Set<(scope: StoreScope, taskId: string) => void>();

  constructor(
    private readonly pool: pg.Pool,
    clientConfig: pg.ClientConfig,
    private readonly sweeper: (replica: string) => Promise<OrphanTask[]>,
    options: PgFleetOptions = {},
  ) {
    const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    this.sweepEveryMs = Math.max(50, Math.floor(leaseMs / 3));
    const problem = options.onProblem ?? (() => undefined);
    this.lease = new ReplicaLease(clientConfig, this.replica, leaseMs, problem);
    this.listener = new NotificationListener(clientConfig, [EVENTS, CANCELS], {
      notification: (channel, payload) => this.notified(channel, payload),
      lost: () => {
        for (const l of this.losses) l();
      },
      down: (e) => problem("the connection listening for other replicas dropped; reconnecting", e),
    });
  }

  /** Takes the lease and listens: a replica serves only once it hears the others. */
  async start(): Promise<void> {
    await this.listener.start();
    try {
      await this.lease.start();
    } catch (e) {
      await this.listener.stop();
      throw e;
    }
  }

  async stop(): Promise<void> {
    await this.listener.stop();
    await this.lease.stop();
  }

  private notified(channel: string, payload: string): void {
    let p: { r?: string; o?: string; t?: string; a?: string; id?: string; f?: number; l?: number };
    try {
      p = JSON.parse(payload) as typeof p;
    } catch {
      return;
    }
    if (typeof p.t !== "string" || typeof p.a !== "string" || typeof p.id !== "string") return;
    const scope = { tenant: p.t, agentId: p.a };
    if (channel === EVENTS) {
      // Events committed here were published here already.
      if (p.r === this.replica || typeof p.f !== "number" || typeof p.l !== "number") return;
      const wake = { scope, taskId: p.id, fromSeq: p.f, toSeq: p.l };
      for (const l of this.wakes) l(wake);
    } else if (channel === CANCELS && p.o === this.replica) {
      for (const l of this.cancels) l(scope, p.id);
    }
  }

  onWake(listener: (wake: TaskWake) => void): () => void {
    return subscribe(this.wakes, listener);
  }

  onLost(listener: () => void): () => void {
    return subscribe(this.losses, listener);
  }

  onCancelRequest(listener: (scope: StoreScope, taskId: string) => void): () => void {
    return subscribe(this.cancels, listener);
  }

  async requestCancel(scope: StoreScope, taskId: string): Promise<boolean> {
    try {
      const r = await this.pool.query(REQUEST_CANCEL, [scope.tenant, scope.agentId, taskId, this.replica]);
      return (r.rowCount ?? 0) > 0;
    } catch (e) {
      throw storeError(e, "a cancel request");
    }
  }

  sweep(): Promise<OrphanTask[]> {
    return this.sweeper(this.replica);
  }
}

function subscribe<L>(set: Set<L>, listener: L): () => void {
  set.add(listener);
  return () => set.delete(listener);
}
