import type Database from "better-sqlite3";
import type { PushDelivery, PushDeliveryState, StoreScope } from "../task-store.js";
import type { PushConfigs } from "./push-configs.js";
import type { PushDeliveryLog } from "./push-delivery-log.js";
import type { PushOutbox } from "./push-outbox.js";
import type { TaskRows } from "./task-rows.js";

/** What the deliveries are read and settled through: the store's parts and its transaction. */
export interface PushDeliveriesDeps {
  readonly tx: Database.Transaction<(body: () => unknown) => unknown>;
  readonly outbox: PushOutbox;
  readonly log: PushDeliveryLog;
  readonly configs: PushConfigs;
  readonly rows: TaskRows;
  /** Writes the task rows held in memory (deliveries name their task through its row). */
  readonly flush: () => void;
}

/**
 * The push worker's side of the SQLite store (§3.5.3): deliveries due, each
 * one settled in the transaction that counts it in the delivery log, and
 * the per-config state the console shows.
 */
export class PushDeliveries {
  constructor(private readonly deps: PushDeliveriesDeps) {}

  due(nowMs: number, limit: number): PushDelivery[] {
    this.deps.flush();
    return this.deps.outbox.due(nowMs, limit);
  }

  /** The log counts the delivery in the transaction that deletes its outbox row. */
  succeeded(id: number): void {
    this.deps.tx.immediate(() => {
      this.deps.log.succeeded(id, Date.now());
      this.deps.outbox.succeeded(id);
    });
  }

  failed(id: number, retryAtMs: number | undefined, error: string): void {
    this.deps.tx.immediate(() => {
      this.deps.log.failed(id, Date.now(), error.slice(0, 1000));
      this.deps.outbox.failed(id, retryAtMs, error);
    });
  }

  state(scope: StoreScope, taskId: string): PushDeliveryState[] {
    const r = this.deps.rows.byKey(scope, taskId);
    if (!r) return [];
    return this.deps.tx.deferred((): PushDeliveryState[] => {
      const state = this.deps.log.read(r.pk);
      return this.deps.configs.list(r.pk).map((c) => ({ pending: 0, dead: 0, delivered: 0, ...state.get(c.id), configId: c.id, url: c.url }));
    }) as PushDeliveryState[];
  }
}
