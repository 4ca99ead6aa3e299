import { setTimeout as sleep } from "node:timers/promises";
import { TaskState, type Part } from "../../gen/a2a/v1/a2a_pb.js";
import type { AgentExecutor, EventSink, ExecutionContext } from "../execution/index.js";

/** Bounds on the echo commands, so a test command cannot tie up the server. */
const MAX_SLOW_MS = 10 * 60_000;
const MAX_STREAM_CHUNKS = 100_000;

/** The text of a message: its text parts, joined. */
function textOf(parts: readonly Part[]): string {
  return parts
    .map((p) => (p.content.case === "text" ? p.content.value : ""))
    .join("")
    .trim();
}

/**
 * The built-in agent that exercises every lifecycle path from any client.
 * Its replies are keyed on the message text (see README "The echo agent"):
 * `input-required`, `slow <ms>`, `stream <n>`, `fail`, `reject`, `message`,
 * and anything else, which completes with one artifact echoing the message.
 */
export class EchoAgent implements AgentExecutor {
  async execute(ctx: ExecutionContext, events: EventSink): Promise<void> {
    const text = textOf(ctx.message.parts);
    // A follow-up on an interrupted task (§3.4.3) completes it with the echo.
    if (ctx.task) return this.complete(ctx, events);
    const [command, arg] = text.split(/\s+/, 2);
    switch (command) {
      case "message":
        events.reply(text);
        return;
      case "reject":
        events.status(TaskState.REJECTED, "Rejected, as asked.");
        return;
      case "fail":
        events.status(TaskState.WORKING);
        events.status(TaskState.FAILED, "Failed, as asked.");
        return;
      case "input-required":
        events.status(TaskState.WORKING);
        events.status(TaskState.INPUT_REQUIRED, "Send any text to complete this task.");
        return;
      case "slow": {
        const ms = Number(arg);
        if (!Number.isFinite(ms) || ms < 0) break;
        events.status(TaskState.WORKING);
        try {
          await sleep(Math.min(ms, MAX_SLOW_MS), undefined, { signal: ctx.signal });
        } catch {
          return; // canceled: the server ends the task CANCELED
        }
        return this.complete(ctx, events);
      }
      case "stream": {
        const n = Number(arg);
        if (!Number.isInteger(n) || n < 1) break;
        return this.stream(ctx, events, Math.min(n, MAX_STREAM_CHUNKS));
      }
    }
    return this.complete(ctx, events);
  }

  private complete(ctx: ExecutionContext, events: EventSink): void {
    events.status(TaskState.WORKING);
    events.artifact({ artifactId: "echo", name: "echo", parts: ctx.message.parts });
    events.status(TaskState.COMPLETED);
  }

  private async stream(ctx: ExecutionContext, events: EventSink, n: number): Promise<void> {
    events.status(TaskState.WORKING);
    for (let i = 1; i <= n; i++) {
      if (ctx.signal.aborted) return;
      events.artifact(
        { artifactId: "stream", name: "stream", parts: [{ content: { case: "text", value: `chunk ${i}\n` } }] },
        { append: i > 1, lastChunk: i === n },
      );
      // Let the chunks go out as they are made rather than in one burst.
      if (i % 16 === 0) await new Promise((r) => setImmediate(r));
    }
    events.status(TaskState.COMPLETED);
  }
}
