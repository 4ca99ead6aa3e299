// The module's binding, not the global: in Node 20 `globalThis.performance`
// is a lazy getter that runs on every access, several times per request.
import { performance } from "node:perf_hooks";
import { SpanStatusCode, type Span } from "@opentelemetry/api";
import { TaskState } from "../../gen/a2a/v1/a2a_pb.js";
import { isTerminal } from "../core/index.js";
import type { TaskStore } from "../store/index.js";
import type { HubMetrics } from "./hub-metrics.js";
import { hubTracer } from "./trace-context.js";

/** What the store probe records into. */
export interface StoreProbeOptions {
  readonly metrics?: HubMetrics;
  /** Start a span per unit of work (an OTel SDK is registered). */
  readonly tracing: boolean;
}

/**
 * The store with its units of work observed: a span per batch (a child of
 * the agent run that wrote it), its latency and writes per commit, and the
 * task counters (created, terminal by state) per agent, taken where every
 * task and status passes. Reads pass straight through.
 */
export function instrumentStore(store: TaskStore, options: StoreProbeOptions): TaskStore {
  const { metrics, tracing } = options;
  let start = 0;
  let writes = 0;
  let span: Span | undefined;
  const wrote = (): void => {
    writes++;
  };
  const ended = (ok: boolean): void => {
    if (metrics) {
      metrics.unitOfWorkSeconds.observe((performance.now() - start) / 1000);
      if (ok) metrics.unitOfWorkWrites.observe(writes);
    }
    if (span) {
      span.setAttribute("a2a.store.writes", writes);
      if (!ok) span.setStatus({ code: SpanStatusCode.ERROR, message: "rolled back" });
      span.end();
      span = undefined;
    }
  };
  const probe = boundMethods(store);
  Object.assign(probe, {
    createTask(scope, task, event) {
      wrote();
      if (metrics) metrics.tasksCreated.tally({ agent: scope.agentId, tenant: scope.tenant }).n++;
      return store.createTask(scope, task, event);
    },
    setStatus(scope, taskId, status, event) {
      wrote();
      if (metrics && isTerminal(status.state)) {
        metrics.tasksTerminal.tally({ agent: scope.agentId, state: stateLabel(status.state), tenant: scope.tenant }).n++;
      }
      return store.setStatus(scope, taskId, status, event);
    },
    appendHistory(scope, taskId, message) {
      wrote();
      store.appendHistory(scope, taskId, message);
    },
    changeArtifact(scope, taskId, change, event) {
      wrote();
      return store.changeArtifact(scope, taskId, change, event);
    },
    rememberSent(scope, sent) {
      wrote();
      store.rememberSent(scope, sent);
    },
    putPushConfig(scope, config, version) {
      wrote();
      store.putPushConfig(scope, config, version);
    },
    beginBatch() {
      start = performance.now();
      writes = 0;
      if (tracing) span = hubTracer().startSpan("store unit of work", { attributes: { "db.system": "sqlite" } });
      store.beginBatch();
    },
    commitBatch() {
      store.commitBatch();
      ended(true);
    },
    rollbackBatch() {
      store.rollbackBatch();
      ended(false);
    },
  } satisfies Partial<TaskStore>);
  // The push worker sets its wake-up hook on the probe: it belongs on the store, which calls it.
  Object.defineProperty(probe, "onOutbox", {
    get: () => store.onOutbox,
    set: (fn: TaskStore["onOutbox"]) => {
      store.onOutbox = fn;
    },
  });
  return probe;
}

/** "completed", "failed", ... as a label. */
function stateLabel(state: TaskState): string {
  return (TaskState[state] ?? String(state)).toLowerCase();
}

/** An object with every method of `store` bound to it, so that calls through it run on the store itself. */
function boundMethods(store: TaskStore): TaskStore {
  const out: Record<string, unknown> = {};
  for (let proto = Object.getPrototypeOf(store) as object | null; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const fn = (store as unknown as Record<string, unknown>)[name];
      if (name !== "constructor" && typeof fn === "function" && !(name in out)) out[name] = fn.bind(store);
    }
  }
  return out as unknown as TaskStore;
}
