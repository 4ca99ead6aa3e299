import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskState } from "../../gen/a2a/v1/a2a_pb.js";
import { echoCard, type AgentExecutor, type EventSink, type ExecutionContext } from "../../src/index.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";
import { taskOf, textRequest } from "../helpers/messages.js";

/** Published results of each step, in order, so tests can see what was refused. */
const accepted: Record<string, boolean[]> = {};
let cancelHook: { called: boolean; signalAborted: boolean } = { called: false, signalAborted: false };

const text = (value: string) => ({ content: { case: "text" as const, value } });

/** An agent whose behaviour is scripted by the message text, to drive the core's rules directly. */
class ScriptedAgent implements AgentExecutor {
  async execute(ctx: ExecutionContext, ev: EventSink): Promise<void> {
    const script = ctx.message.parts[0]?.content.value as string;
    const log = (accepted[script] = [] as boolean[]);
    switch (script) {
      case "artifacts":
        log.push(ev.status(TaskState.WORKING));
        log.push(ev.artifact({ artifactId: "a", parts: [text("1")] }));
        log.push(ev.artifact({ artifactId: "a", parts: [text("2")] }, { append: true }));
        log.push(ev.artifact({ artifactId: "b", parts: [text("old")] }));
        log.push(ev.artifact({ artifactId: "b", name: "bee", parts: [text("new")] }));
        log.push(ev.artifact({ artifactId: "c", parts: [text("created by append")] }, { append: true }));
        log.push(ev.artifact({ artifactId: "a", parts: [text("3")] }, { append: true, lastChunk: true }));
        log.push(ev.artifact({ artifactId: "a", parts: [text("after seal")] }, { append: true }));
        log.push(ev.artifact({ artifactId: "", parts: [text("no id")] }));
        log.push(ev.artifact({ artifactId: "d", parts: [] }));
        log.push(ev.status(TaskState.COMPLETED));
        log.push(ev.status(TaskState.WORKING));
        log.push(ev.status(TaskState.FAILED));
        log.push(ev.artifact({ artifactId: "e", parts: [text("late")] }));
        return;
      case "illegal":
        log.push(ev.status(TaskState.WORKING));
        log.push(ev.status(TaskState.SUBMITTED));
        log.push(ev.status(TaskState.UNSPECIFIED));
        log.push(ev.status(99 as TaskState));
        log.push(ev.status(TaskState.COMPLETED));
        return;
      case "throw":
        ev.status(TaskState.WORKING);
        throw new Error("boom");
      case "throw-first":
        throw new Error("boom before anything");
      case "quit":
        ev.status(TaskState.WORKING);
        return;
      case "silent":
        return;
      case "park":
        ev.status(TaskState.INPUT_REQUIRED, "waiting");
        return;
      case "stubborn":
        ev.status(TaskState.WORKING);
        // Ignores its abort signal on purpose; keeps publishing.
        await new Promise((r) => setTimeout(r, 300));
        log.push(ev.status(TaskState.COMPLETED));
        return;
      default:
        ev.status(TaskState.COMPLETED);
    }
  }

  cancel(ctx: ExecutionContext): void {
    cancelHook = { called: true, signalAborted: ctx.signal.aborted };
  }
}

let t: TestHub;
beforeAll(async () => {
  t = await startTestHub({ agents: [{ id: "scripted", executor: new ScriptedAgent(), card: echoCard() }] });
});
afterAll(async () => {
  await t.stop();
});
const client = () => t.client("grpc");

describe("artifacts (§4.2.2)", () => {
  it("append:false creates or replaces, append:true appends (creating if missing), lastChunk seals", async () => {
    const task = taskOf(await client().sendMessage(textRequest("artifacts")));
    expect(accepted.artifacts).toEqual([true, true, true, true, true, true, true, false, false, false, true, false, false, false]);
    const byId = Object.fromEntries(task.artifacts.map((a) => [a.artifactId, a]));
    expect(task.artifacts.map((a) => a.artifactId)).toEqual(["a", "b", "c"]);
    expect(byId.a!.parts.map((p) => p.content.value)).toEqual(["1", "2", "3"]);
    expect(byId.b!.parts.map((p) => p.content.value)).toEqual(["new"]);
    expect(byId.b!.name).toBe("bee");
    expect(byId.c!.parts.map((p) => p.content.value)).toEqual(["created by append"]);
    expect(task.status?.state).toBe(TaskState.COMPLETED);
  });
});

describe("the task state machine", () => {
  it("refuses illegal transitions and never stores them", async () => {
    const task = taskOf(await client().sendMessage(textRequest("illegal")));
    expect(accepted.illegal).toEqual([true, false, false, false, true]);
    expect(task.status?.state).toBe(TaskState.COMPLETED);
  });

  it("an agent that throws leaves its task FAILED with a status message", async () => {
    for (const script of ["throw", "throw-first"]) {
      const task = taskOf(await client().sendMessage(textRequest(script)));
      expect(task.status?.state).toBe(TaskState.FAILED);
      expect(task.status?.message?.parts[0]?.content.case).toBe("text");
    }
  });

  it("an agent that returns while working leaves its task FAILED", async () => {
    const task = taskOf(await client().sendMessage(textRequest("quit")));
    expect(task.status?.state).toBe(TaskState.FAILED);
  });

  it("an agent that publishes nothing is InvalidAgentResponse", async () => {
    await expect(client().sendMessage(textRequest("silent"))).rejects.toThrow(/without answering/);
  });

  it("cancel of an interrupted task, with no run active, still reaches the agent's cancel hook", async () => {
    cancelHook = { called: false, signalAborted: false };
    const parked = taskOf(await client().sendMessage(textRequest("park")));
    expect(parked.status?.state).toBe(TaskState.INPUT_REQUIRED);
    expect((await client().cancelTask({ id: parked.id })).status?.state).toBe(TaskState.CANCELED);
    expect(cancelHook).toEqual({ called: true, signalAborted: true });
  });

  it("cancel aborts the agent's signal, calls its hook, and ends CANCELED even when the agent ignores it", async () => {
    cancelHook = { called: false, signalAborted: false };
    const started = taskOf(await client().sendMessage(textRequest("stubborn", { configuration: { returnImmediately: true } })));
    const canceled = await client().cancelTask({ id: started.id });
    expect(canceled.status?.state).toBe(TaskState.CANCELED);
    expect(cancelHook).toEqual({ called: true, signalAborted: true });
    await new Promise((r) => setTimeout(r, 400));
    expect(accepted.stubborn).toEqual([false]);
    expect((await client().getTask({ id: started.id })).status?.state).toBe(TaskState.CANCELED);
  });
});
