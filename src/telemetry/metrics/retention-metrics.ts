import { Counter, Gauge, type Registry } from "prom-client";
import type { StoreScope, TaskRetention } from "../../store/index.js";

/**
 * What retention shows: tasks deleted (by agent, and tenant when the hub
 * labels by tenant), the age of the oldest task (per tenant when the hub
 * labels by tenant; by its last status: what retention judges, so it stays
 * under the configured age once sweeps keep up), and the database's size by part (SQLite: the file, its
 * WAL and the free pages in it; PostgreSQL: each table with its indexes).
 * The gauges ask the store when Prometheus scrapes.
 */
export class RetentionMetrics {
  private readonly deletedTotal: Counter;

  constructor(
    registry: Registry,
    retention: TaskRetention,
    private readonly tenantLabel: boolean,
  ) {
    const registers = [registry];
    this.deletedTotal = new Counter({
      name: "a2a_retention_tasks_deleted_total",
      help: "Tasks deleted by retention (with their history, artifacts, events, push configs and ledger entries).",
      labelNames: tenantLabel ? ["agent", "tenant"] : ["agent"],
      registers,
    });
    new Gauge({
      name: "a2a_oldest_task_age_seconds",
      help: "The age of the task with the oldest last status time: per tenant with metrics.tenantLabel, else over all tenants.",
      labelNames: tenantLabel ? ["tenant"] : [],
      registers,
      async collect() {
        const now = Date.now();
        // A store that cannot answer now leaves the last values: a scrape still succeeds.
        const oldest = await Promise.resolve(retention.oldest()).catch(() => undefined);
        if (!oldest) return;
        this.reset();
        const age = (ms: number): number => Math.max(0, now - ms) / 1000;
        if (tenantLabel) for (const o of oldest) this.set({ tenant: o.tenant }, age(o.statusMs));
        else if (oldest.length > 0) this.set(age(Math.min(...oldest.map((o) => o.statusMs))));
      },
    });
    new Gauge({
      name: "a2a_store_size_bytes",
      help: "Bytes the task store takes, by part: SQLite file, wal and free (pages inside the file); PostgreSQL one per table, indexes and TOAST included.",
      labelNames: ["part"],
      registers,
      async collect() {
        for (const p of (await Promise.resolve(retention.size()).catch(() => undefined)) ?? []) this.set({ part: p.part }, p.bytes);
      },
    });
  }

  /** Counts tasks a sweep deleted in a scope. */
  deleted(scope: StoreScope, n: number): void {
    this.deletedTotal.inc(this.tenantLabel ? { agent: scope.agentId, tenant: scope.tenant } : { agent: scope.agentId }, n);
  }
}
