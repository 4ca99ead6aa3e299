/**
 * The runs going now, by task, and how many each tenant has. Separate
 * from the runs' logic because three parts ask it questions: a message
 * to a task joins its run, status writes keep the run's state, and the
 * send path checks limits.maxTasksInFlightPerTenant against the counts.
 */
import type { Run } from "./run.js";

export class RunRegistry {
  private readonly runs = new Map<string, Run>();
  /** Runs going per tenant (limits.maxTasksInFlightPerTenant). */
  private readonly tenantRuns = new Map<string, number>();

  /** Number of agent runs in progress. */
  get size(): number {
    return this.runs.size;
  }

  get(key: string): Run | undefined {
    return this.runs.get(key);
  }

  has(key: string): boolean {
    return this.runs.has(key);
  }

  /** Agent runs in progress for one tenant. */
  of(tenant: string): number {
    return this.tenantRuns.get(tenant) ?? 0;
  }

  /** The runs now, as a list that later changes do not touch. */
  all(): Run[] {
    return [...this.runs.values()];
  }

  add(run: Run): void {
    this.runs.set(run.key, run);
    const tenant = run.scope.tenant;
    this.tenantRuns.set(tenant, this.of(tenant) + 1);
  }

  /** Forgets a run that ended; its task's key may already belong to a newer run, which stays. */
  remove(run: Run): void {
    if (this.runs.get(run.key) === run) this.runs.delete(run.key);
    const left = this.of(run.scope.tenant) - 1;
    if (left > 0) this.tenantRuns.set(run.scope.tenant, left);
    else this.tenantRuns.delete(run.scope.tenant);
  }
}
