import type { A2ACore, Logger } from "../core/index.js";
import { RetentionSweep, retentionConfigured, type RetentionPolicy } from "../lifecycle/index.js";
import type { TaskStore } from "../store/index.js";
import { RetentionMetrics, type HubMetrics } from "../telemetry/index.js";

/** `HubOptions.retention`: the policy, and how often a sweep passes. */
export interface RetentionOptions {
  readonly policy: RetentionPolicy;
  /** Pause between two passes over every scope (ms, default 30 s). */
  readonly intervalMs?: number;
  /** The clock tasks' ages are judged by (default Date.now). */
  readonly now?: () => number;
}

/**
 * The hub's retention: its metrics whenever the store can delete tasks, and
 * the sweep when a policy deletes anything. A task an agent runs on here,
 * or that a stream of this hub still reads, is left for a later pass.
 */
export function startRetention(deps: { store: TaskStore; engine: A2ACore["engine"]; metrics?: HubMetrics; logger: Logger; options?: RetentionOptions }): { stop(): Promise<void> } | undefined {
  const { store, engine, logger } = deps;
  const retention = store.retention;
  if (!retention) return undefined;
  const counted = deps.metrics && new RetentionMetrics(deps.metrics.registry, retention, deps.metrics.tenantLabel);
  if (!deps.options || !retentionConfigured(deps.options.policy)) return undefined;
  const sweep = new RetentionSweep({
    retention,
    policy: deps.options.policy,
    intervalMs: deps.options.intervalMs,
    now: deps.options.now,
    busy: (scope, taskId) => engine.hasRun(scope, taskId) || engine.bus.listenerCount(engine.key(scope, taskId)) > 0,
    onDeleted: (scope, n) => {
      counted?.deleted(scope, n);
      logger.info("retention deleted tasks", { tenant: scope.tenant, agent: scope.agentId, n });
    },
    onError: (error) => logger.warn("a retention sweep failed; the next pass tries again", { error: error.message }),
  });
  sweep.start();
  return sweep;
}
