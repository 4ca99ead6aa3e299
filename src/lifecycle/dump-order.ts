import type { ArtifactDump, OutboxDump, TaskDump } from "./task-dump.js";

/** A task's children as rows come, before they are put in order. */
export interface ChildRows {
  history: Array<{ idx: number; message: Uint8Array }>;
  artifacts: Map<string, { ord: number; head: Uint8Array; sealed: boolean; parts: Array<{ idx: number; part: Uint8Array }> }>;
  events: Array<{ seq: number; event: Uint8Array }>;
  pushConfigs: Array<{ id: string; config: Uint8Array; createdMs: number; version: string }>;
  /** With the store's row id, which orders deliveries per config. */
  outbox: Array<OutboxDump & { rowId: number }>;
  deliveryLog: Array<{ configId: string; delivered: number; lastAttemptMs: number | null; lastError: string | null }>;
}

export function emptyChildren(): ChildRows {
  return { history: [], artifacts: new Map(), events: [], pushConfigs: [], outbox: [], deliveryLog: [] };
}

const byString = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The children in one order whatever store they were read from: sorted
 * here, in JavaScript, since a database's collation may order text its own
 * way. Outbox rows keep their store's order (it is the delivery order).
 */
export function ordered(task: Omit<TaskDump, keyof ChildRows>, c: ChildRows): TaskDump {
  const artifacts: ArtifactDump[] = [...c.artifacts]
    .map(([artifactId, a]) => ({ artifactId, ord: a.ord, head: a.head, sealed: a.sealed, parts: a.parts.sort((x, y) => x.idx - y.idx).map((p) => p.part) }))
    .sort((x, y) => x.ord - y.ord || byString(x.artifactId, y.artifactId));
  return {
    ...task,
    history: c.history.sort((x, y) => x.idx - y.idx),
    artifacts,
    events: c.events.sort((x, y) => x.seq - y.seq),
    pushConfigs: c.pushConfigs.sort((x, y) => x.createdMs - y.createdMs || byString(x.id, y.id)),
    outbox: c.outbox.sort((x, y) => x.rowId - y.rowId).map(({ rowId: _, ...o }) => o),
    deliveryLog: c.deliveryLog.sort((x, y) => byString(x.configId, y.configId)),
  };
}
