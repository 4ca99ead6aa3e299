import { SpanStatusCode, trace, type Context } from "@opentelemetry/api";
import type { HostedAgent } from "../core/index.js";
import type { EventSink } from "../execution/index.js";
import { hubContext, hubTracer } from "./tracing/index.js";

/**
 * The agent with each run inside a span, a child of the operation's server
 * span (handed on in ExecutionContext.traceContext): the agent is given
 * the run span's context for its outbound calls (remote agents, a
 * command's TRACEPARENT), and every event it publishes is stored in that
 * context, so the unit of work that writes it nests under the run even
 * when the agent publishes after an await (tracing/sync-context.ts).
 */
export function instrumentAgent(agent: HostedAgent): HostedAgent {
  const inner = agent.executor;
  const executor: HostedAgent["executor"] = {
    // Not an async function: the run is already a promise, and a wrapper of its own would add a frame and two turns to every run.
    execute: (ctx, sink) => {
      const parent = ctx.traceContext ?? hubContext().active();
      // Tenant and context id are on the server span (its parent); agent and task id stay, for a run that outlives its call.
      const span = hubTracer().startSpan("agent run", { attributes: { "a2a.agent": agent.id, "a2a.task_id": ctx.taskId } }, parent);
      const runContext = trace.setSpan(parent, span);
      // The run's own context object (the engine makes one per run) takes the run span's trace context: a copy
      // would read its signal getter, making the AbortSignal the engine leaves to the agent (run-lifecycle.ts).
      (ctx as { traceContext?: Context }).traceContext = runContext;
      let run: Promise<void>;
      try {
        run = Promise.resolve(hubContext().with(runContext, inner.execute, inner, ctx, new TracedSink(sink, runContext)));
      } catch (e) {
        run = Promise.reject(e);
      }
      return run.then(
        () => span.end(),
        (e: unknown) => {
          span.setStatus({ code: SpanStatusCode.ERROR, message: e instanceof Error ? e.message : String(e) });
          span.end();
          throw e;
        },
      );
    },
  };
  if (inner.cancel) executor.cancel = (ctx, sink) => inner.cancel!.call(inner, ctx, sink);
  return { ...agent, executor };
}

/**
 * The sink with each event stored while the run's context is active. A
 * class rather than four closures: one object per run, its methods shared.
 */
class TracedSink implements EventSink {
  constructor(
    private readonly sink: EventSink,
    private readonly runContext: Context,
  ) {}

  status(...args: Parameters<EventSink["status"]>): boolean {
    return hubContext().with(this.runContext, this.sink.status, this.sink, ...args);
  }

  artifact(...args: Parameters<EventSink["artifact"]>): boolean {
    return hubContext().with(this.runContext, this.sink.artifact, this.sink, ...args);
  }

  reply(...args: Parameters<EventSink["reply"]>): boolean {
    return hubContext().with(this.runContext, this.sink.reply, this.sink, ...args);
  }

  publish(...args: Parameters<EventSink["publish"]>): boolean {
    return hubContext().with(this.runContext, this.sink.publish, this.sink, ...args);
  }
}
