import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskState, type StreamResponse } from "../../gen/a2a/v1/a2a_pb.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";
import { BINDINGS, expectRefusal, withHubClient } from "../helpers/hub-clients.js";
import { collect, firstTask, kinds, taskOf, textRequest } from "../helpers/messages.js";

let t: TestHub;
beforeAll(async () => {
  t = await startTestHub();
});
afterAll(async () => {
  await t.stop();
});

function lastState(events: readonly StreamResponse[]): TaskState | undefined {
  const last = events.at(-1)!;
  return last.payload.case === "statusUpdate" ? last.payload.value.status?.state : undefined;
}

describe.each(BINDINGS)("SendStreamingMessage over %s", (binding) => {
  const open = withHubClient(() => t, binding);

  it("begins with the Task, then status and artifact updates in order, and ends at COMPLETED", async () => {
    const events = await collect(open.client.stream(textRequest("stream 4")));
    expect(kinds(events)).toEqual(["task", "statusUpdate", "artifactUpdate", "artifactUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"]);
    expect(lastState(events)).toBe(TaskState.COMPLETED);
    const chunks = events.filter((e) => e.payload.case === "artifactUpdate").map((e) => (e.payload.case === "artifactUpdate" ? e.payload.value : undefined)!);
    expect(chunks.map((c) => [c.append, c.lastChunk])).toEqual([[false, false], [true, false], [true, false], [true, true]]);
    const taskId = firstTask(events).id;
    const stored = await open.client.get(taskId);
    expect(stored.artifacts).toHaveLength(1);
    expect(stored.artifacts[0]!.parts.map((p) => p.content.value)).toEqual(chunks.flatMap((c) => c.artifact!.parts.map((p) => p.content.value)));
  });

  it("a Message answer is the only event of the stream", async () => {
    const events = await collect(open.client.stream(textRequest("message")));
    expect(kinds(events)).toEqual(["message"]);
  });

  it("ends after an interrupted state", async () => {
    const events = await collect(open.client.stream(textRequest("input-required")));
    expect(lastState(events)).toBe(TaskState.INPUT_REQUIRED);
  });
});

describe("SendStreamingMessage on an existing task", () => {
  it("begins with the task snapshot holding the follow-up, and ends at the next settled state", async () => {
    const client = t.client("grpc");
    const first = taskOf(await client.sendMessage(textRequest("input-required")));
    const events = await collect(client.sendStreamingMessage(textRequest("follow-up", { taskId: first.id })));
    expect(events[0]!.payload.case).toBe("task");
    const snapshot = events[0]!.payload.value as { history: { parts: { content: { value: unknown } }[] }[] };
    expect(snapshot.history.at(-1)!.parts[0]!.content.value).toBe("follow-up");
    expect(lastState(events)).toBe(TaskState.COMPLETED);
  });
});

describe.each(BINDINGS)("SubscribeToTask over %s", (binding) => {
  const open = withHubClient(() => t, binding);

  it("first event is the current Task, then every later event until terminal", async () => {
    const client = open.client;
    const started = taskOf(await client.send(textRequest("slow 300", { configuration: { returnImmediately: true } })));
    const events = await collect(client.subscribe(started.id));
    expect(events[0]!.payload.case).toBe("task");
    expect(firstTask(events).id).toBe(started.id);
    expect(lastState(events)).toBe(TaskState.COMPLETED);
  });

  it("a terminal task is UnsupportedOperation", async () => {
    const client = open.client;
    const done = taskOf(await client.send(textRequest("done")));
    await expectRefusal(client, () => collect(client.subscribe(done.id)), "UnsupportedOperation");
  });

  it("an unknown task is TaskNotFound", async () => {
    const client = open.client;
    await expectRefusal(client, () => collect(client.subscribe("missing")), "TaskNotFound");
  });
});

describe("several subscribers (§3.5.2)", () => {
  it("get the same events in the same order, and one closing does not disturb the others", async () => {
    const client = t.client("connect-h2");
    const started = taskOf(await client.sendMessage(textRequest("slow 400", { configuration: { returnImmediately: true } })));
    const quitter = new AbortController();
    const early = (async () => {
      const got: StreamResponse[] = [];
      try {
        for await (const e of client.subscribeToTask({ id: started.id }, { signal: quitter.signal })) {
          got.push(e);
          quitter.abort();
        }
      } catch {
        // aborted on purpose
      }
      return got;
    })();
    const [a, b, c] = await Promise.all([
      collect(client.subscribeToTask({ id: started.id })),
      collect(t.client("grpc").subscribeToTask({ id: started.id })),
      early,
    ]);
    const tail = (events: StreamResponse[]) => events.slice(1).map((e) => JSON.stringify([e.payload.case, e.payload.value && "status" in e.payload.value ? e.payload.value.status?.state : undefined]));
    expect(tail(a)).toEqual(tail(b));
    expect(lastState(a)).toBe(TaskState.COMPLETED);
    expect(c).toHaveLength(1);
    // The aborted stream's listener is gone once its task has ended.
    await new Promise((r) => setTimeout(r, 100));
    expect(t.hub.core.engine.bus.listenerCount()).toBe(0);
  });

  it("with no event lost or repeated between the snapshot and the live tail", async () => {
    const client = t.client("grpc");
    const started = taskOf(await client.sendMessage(textRequest("stream 300", { configuration: { returnImmediately: true } })));
    const events = await collect(client.subscribeToTask({ id: started.id }));
    const snapshot = events[0]!.payload.value as { artifacts: { parts: unknown[] }[] };
    const chunksInSnapshot = snapshot.artifacts[0]?.parts.length ?? 0;
    const liveChunks = events.filter((e) => e.payload.case === "artifactUpdate").length;
    expect(chunksInSnapshot + liveChunks).toBe(300);
    expect(lastState(events)).toBe(TaskState.COMPLETED);
  });
});

describe("resuming after an event (the facades' Last-Event-ID)", () => {
  it("replays exactly the logged events after the given sequence number", async () => {
    const client = t.client("grpc");
    const done = taskOf(await client.sendMessage(textRequest("stream 3")));
    const { facadeCallContext } = await import("../../src/core/index.js");
    const { A2AService } = await import("../../gen/a2a/v1/a2a_pb.js");
    const ctx = facadeCallContext({ method: A2AService.method.subscribeToTask, protocolName: "test" });
    const resumed = [];
    for await (const e of t.hub.core.service.subscribeSequenced({ id: done.id, tenant: "", $typeName: "lf.a2a.v1.SubscribeToTaskRequest" }, ctx, 2)) resumed.push(e);
    expect(resumed.map((e) => e.seq)).toEqual([3, 4, 5, 6]);
    expect(resumed.at(-1)!.event.payload.case).toBe("statusUpdate");
  });
});
