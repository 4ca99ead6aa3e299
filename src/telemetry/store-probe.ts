// The module's binding, not the global: `globalThis.performance` (Node 20
// to 26) is a lazy getter that runs on every access, several times per request.
import { performance } from "node:perf_hooks";
import { SpanStatusCode, trace, type Context, type Span } from "@opentelemetry/api";
import { isTerminal, stateName } from "../core/index.js";
import type { TaskStore } from "../store/index.js";
import type { HubMetrics } from "./metrics/index.js";
import { hubContext, hubTracer } from "./tracing/index.js";

/** What the store probe records into. */
export interface StoreProbeOptions {
  readonly metrics?: HubMetrics;
  /** Start a span per unit of work (an OTel SDK is registered). */
  readonly tracing: boolean;
  /** The store's OTel `db.system` (default "sqlite"). */
  readonly system?: string;
}

/** One unit of work as the probe follows it: a commit in flight may overlap the next unit's writes. */
interface ObservedUnit {
  readonly start: number;
  writes: number;
  readonly span: Span | undefined;
  /** The unit span's context: its commit runs in it, so the push deliveries it wakes join the trace. */
  readonly context: Context | undefined;
}

/**
 * The store with its units of work observed: a span per batch (a child of
 * the agent run that wrote it), its latency and writes per commit, and the
 * task counters (created, terminal by state) per agent, taken where every
 * task and status passes. Reads pass straight through.
 */
export function instrumentStore(store: TaskStore, options: StoreProbeOptions): TaskStore {
  const { metrics, tracing } = options;
  const system = options.system ?? "sqlite";
  let unit: ObservedUnit | undefined;
  const wrote = (): void => {
    if (unit) unit.writes++;
  };
  const ended = (u: ObservedUnit | undefined, ok: boolean): void => {
    if (!u) return;
    if (metrics) {
      metrics.unitOfWorkSeconds.observe((performance.now() - u.start) / 1000);
      if (ok) metrics.unitOfWorkWrites.observe(u.writes);
    }
    if (u.span) {
      u.span.setAttribute("a2a.store.writes", u.writes);
      if (!ok) u.span.setStatus({ code: SpanStatusCode.ERROR, message: "rolled back" });
      u.span.end();
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
        metrics.tasksTerminal.tally({ agent: scope.agentId, state: stateName(status.state, "snake"), tenant: scope.tenant }).n++;
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
      // The first write of the turn opens the unit, in its run's context (a traced sink's, agent-probe.ts).
      const parent = tracing ? hubContext().active() : undefined;
      const span = parent && hubTracer().startSpan("store unit of work", { attributes: { "db.system": system } }, parent);
      unit = { start: performance.now(), writes: 0, span, context: span && trace.setSpan(parent, span) };
      store.beginBatch();
    },
    commitBatch() {
      const u = unit;
      unit = undefined;
      let pending;
      try {
        pending = u?.context ? hubContext().with(u.context, () => store.commitBatch()) : store.commitBatch();
      } catch (e) {
        ended(u, false);
        throw e;
      }
      if (!(pending instanceof Promise)) {
        ended(u, true);
        return pending;
      }
      return pending.then(
        () => ended(u, true),
        (e: unknown) => {
          ended(u, false);
          throw e;
        },
      );
    },
    rollbackBatch() {
      store.rollbackBatch();
      ended(unit, false);
      unit = undefined;
    },
  } satisfies Partial<TaskStore>);
  Object.defineProperty(probe, "fleet", { get: () => store.fleet });
  // The push worker sets its wake-up hook on the probe: it belongs on the store, which calls it.
  Object.defineProperty(probe, "onOutbox", {
    get: () => store.onOutbox,
    set: (fn: TaskStore["onOutbox"]) => {
      store.onOutbox = fn;
    },
  });
  return probe;
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
