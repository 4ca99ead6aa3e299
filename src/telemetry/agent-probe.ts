import { SpanStatusCode } from "@opentelemetry/api";
import type { HostedAgent } from "../core/index.js";
import { hubTracer } from "./trace-context.js";

/**
 * The agent with each run inside a span, a child of the operation's server
 * span (the run starts in its context): what the agent does, its outbound
 * calls (remote agents, a command's TRACEPARENT) included, nests under it.
 */
export function instrumentAgent(agent: HostedAgent): HostedAgent {
  const inner = agent.executor;
  const executor: HostedAgent["executor"] = {
    execute: (ctx, sink) =>
      hubTracer().startActiveSpan("agent run", { attributes: { "a2a.agent": agent.id, "a2a.task_id": ctx.taskId, "a2a.context_id": ctx.contextId, "a2a.tenant": ctx.tenant } }, async (span) => {
        try {
          return await inner.execute(ctx, sink);
        } catch (e) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: e instanceof Error ? e.message : String(e) });
          throw e;
        } finally {
          span.end();
        }
      }),
  };
  if (inner.cancel) executor.cancel = (ctx, sink) => inner.cancel!.call(inner, ctx, sink);
  return { ...agent, executor };
}
