import * as http2 from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { h2Request, H2_JSONRPC_POST } from "../../helpers/h2c.js";
import { userMessage, v03Message } from "../../helpers/json-messages.js";
import { startJsonRpcHub } from "../../helpers/jsonrpc-hub.js";
import { call, openRpcStream, rpc } from "../../helpers/jsonrpc-requests.js";
import { observeSubscriptions, type ObservedSubscription } from "../../helpers/service-spies.js";
import { dataEvents, sseMessages, type SseMessage } from "../../helpers/sse.js";
import type { TestHub } from "../../helpers/test-hub.js";

const kindOf = (result: Record<string, unknown>) => ["task", "message", "statusUpdate", "artifactUpdate"].find((k) => k in result);

/** Subscription calls seen by the service, to observe what a disconnect does server-side. */
const subscriptions: ObservedSubscription[] = [];

let t: TestHub;
beforeAll(async () => {
  t = await startJsonRpcHub({ handler: { keepAliveMs: 100 }, wrap: observeSubscriptions(subscriptions) });
});
afterAll(async () => {
  await t.stop();
});

describe("SendStreamingMessage over SSE", () => {
  it("answers text/event-stream whose events are JSON-RPC responses with the request id and increasing SSE ids", async () => {
    const s = await openRpcStream(t.url, "SendStreamingMessage", { message: userMessage("stream 3") }, { id: 17 });
    expect(s.status).toBe(200);
    expect(s.type).toBe("text/event-stream");
    const events = await dataEvents(s.events!);
    expect(events.map((e) => kindOf(e.data.result))).toEqual(["task", "statusUpdate", "artifactUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"]);
    for (const e of events) expect(e.data).toMatchObject({ jsonrpc: "2.0", id: 17 });
    const ids = events.map((e) => Number(e.id));
    expect(ids.every((id, i) => Number.isInteger(id) && (i === 0 || id > ids[i - 1]!))).toBe(true);
    expect(events.at(-1)!.data.result.statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
    expect(events[0]!.data.result.task).toMatchObject({ id: expect.any(String), contextId: expect.any(String) });
  });

  it("sends a direct Message as one event without an SSE id, then ends", async () => {
    const s = await openRpcStream(t.url, "SendStreamingMessage", { message: userMessage("message") });
    const events = await dataEvents(s.events!);
    expect(events).toHaveLength(1);
    expect(events[0]!.id).toBeUndefined();
    expect(events[0]!.data.result.message.role).toBe("ROLE_AGENT");
  });

  it("answers errors found before the stream starts as a plain JSON-RPC error", async () => {
    const bad = await openRpcStream(t.url, "SendStreamingMessage", { message: { role: "ROLE_USER", parts: [{ text: "x" }] } }, { id: "e1" });
    expect(bad.type).toBe("application/json");
    expect(bad.json).toMatchObject({ id: "e1", error: { code: -32602 } });
    const unknown = await openRpcStream(t.url, "SubscribeToTask", { id: "no-such-task" }, { id: "e2" });
    expect(unknown.json).toMatchObject({ id: "e2", error: { code: -32001 } });
    const done = await call(t.url, "SendMessage", { message: userMessage("done") });
    const terminal = await openRpcStream(t.url, "SubscribeToTask", { id: done.task.id }, { id: "e3" });
    expect(terminal.json).toMatchObject({ id: "e3", error: { code: -32004, data: [expect.objectContaining({ reason: "UNSUPPORTED_OPERATION" })] } });
  });
});

describe("SubscribeToTask over SSE", () => {
  it("resumes after Last-Event-ID with exactly the later events", async () => {
    const first = await dataEvents((await openRpcStream(t.url, "SendStreamingMessage", { message: userMessage("stream 4") })).events!);
    const taskId = first[0]!.data.result.task.id as string;
    const cut = first[2]!;
    const resumed = await openRpcStream(t.url, "SubscribeToTask", { id: taskId }, { headers: { "Last-Event-ID": cut.id! } });
    expect(resumed.type).toBe("text/event-stream");
    const rest = await dataEvents(resumed.events!);
    expect(rest.map((e) => e.id)).toEqual(first.slice(3).map((e) => e.id));
    expect(rest.map((e) => e.data.result)).toEqual(first.slice(3).map((e) => e.data.result));
  });

  it("resumes a live task: the missed events, then the live tail", async () => {
    const started = await call(t.url, "SendMessage", { message: userMessage("slow 600"), configuration: { returnImmediately: true } });
    const head = await openRpcStream(t.url, "SubscribeToTask", { id: started.task.id });
    const firstEvent = (await head.events!.next()).value as SseMessage;
    head.abort.abort();
    const resumed = await dataEvents((await openRpcStream(t.url, "SubscribeToTask", { id: started.task.id }, { headers: { "Last-Event-ID": "1" } })).events!);
    expect(resumed.length).toBeGreaterThan(0);
    expect(Number(resumed[0]!.id)).toBeGreaterThan(1);
    expect(resumed.at(-1)!.data.result.statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
    expect(firstEvent.data.result.task.id).toBe(started.task.id);
  });

  it("refuses a Last-Event-ID that is not a sequence number", async () => {
    const started = await call(t.url, "SendMessage", { message: userMessage("x") });
    const r = await openRpcStream(t.url, "SubscribeToTask", { id: started.task.id }, { headers: { "Last-Event-ID": "yesterday" } });
    expect(r.json.error.code).toBe(-32602);
  });

  it("writes a comment line on an idle stream", async () => {
    const started = await call(t.url, "SendMessage", { message: userMessage("slow 450"), configuration: { returnImmediately: true } });
    const s = await openRpcStream(t.url, "SubscribeToTask", { id: started.task.id });
    const seen: SseMessage[] = [];
    for await (const e of s.events!) seen.push(e);
    expect(seen.filter((e) => e.comment === "keep-alive").length).toBeGreaterThanOrEqual(2);
    expect(seen.at(-1)!.data.result.statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
  });

  it("stops the server-side stream at once when the client disconnects", async () => {
    const started = await call(t.url, "SendMessage", { message: userMessage("slow 5000"), configuration: { returnImmediately: true } });
    const before = subscriptions.length;
    const s = await openRpcStream(t.url, "SubscribeToTask", { id: started.task.id });
    await s.events!.next();
    const observed = subscriptions[before]!;
    expect(observed.signal.aborted).toBe(false);
    s.abort.abort();
    await expect.poll(() => observed.signal.aborted && observed.finished, { timeout: 1000, interval: 10 }).toBe(true);
    await call(t.url, "CancelTask", { id: started.task.id });
  });
});

describe("v0.3 streams", () => {
  it("message/stream answers kind-tagged events; only the last status-update is final", async () => {
    const s = await openRpcStream(t.url, "message/stream", { message: v03Message("stream 2") });
    const events = await dataEvents(s.events!);
    const results = events.map((e) => e.data.result);
    expect(results.map((r) => r.kind)).toEqual(["task", "status-update", "artifact-update", "artifact-update", "status-update"]);
    expect(results.filter((r) => r.kind === "status-update").map((r) => r.final)).toEqual([false, true]);
    expect(results.at(-1).status.state).toBe("completed");
    expect(results[0].status.state).toBe("submitted");
  });

  it("tasks/resubscribe resumes after Last-Event-ID in the v0.3 dialect", async () => {
    const first = await dataEvents((await openRpcStream(t.url, "message/stream", { message: v03Message("stream 2") })).events!);
    const rest = await dataEvents((await openRpcStream(t.url, "tasks/resubscribe", { id: first[0]!.data.result.id }, { headers: { "Last-Event-ID": first[1]!.id! } })).events!);
    expect(rest.map((e) => e.data.result)).toEqual(first.slice(2).map((e) => e.data.result));
    expect(rest.at(-1)!.data.result).toMatchObject({ kind: "status-update", final: true });
  });

  it("tasks/resubscribe on a live task starts with the v0.3 Task", async () => {
    const started = await call(t.url, "message/send", { message: v03Message("slow 300"), configuration: { blocking: false } });
    expect(started).toMatchObject({ kind: "task" });
    expect(["submitted", "working"]).toContain(started.status.state);
    const events = await dataEvents((await openRpcStream(t.url, "tasks/resubscribe", { id: started.id })).events!);
    expect(events[0]!.data.result).toMatchObject({ kind: "task", id: started.id });
    expect(events.at(-1)!.data.result).toMatchObject({ kind: "status-update", final: true, status: { state: "completed" } });
  });
});

describe("SSE over HTTP/2", () => {
  it("stops the server-side stream when the client resets the h2 stream", async () => {
    const started = await call(t.url, "SendMessage", { message: userMessage("slow 5000"), configuration: { returnImmediately: true } });
    const before = subscriptions.length;
    const session = http2.connect(t.url);
    try {
      const req = session.request(H2_JSONRPC_POST);
      req.on("error", () => {});
      req.end(JSON.stringify(rpc("SubscribeToTask", { id: started.task.id })));
      await new Promise((resolve) => req.once("data", resolve));
      const observed = subscriptions[before]!;
      req.close(http2.constants.NGHTTP2_CANCEL);
      await expect.poll(() => observed.signal.aborted && observed.finished, { timeout: 1000, interval: 10 }).toBe(true);
    } finally {
      session.close();
      await call(t.url, "CancelTask", { id: started.task.id });
    }
  });

  it("streams over h2c", async () => {
    const session = http2.connect(t.url);
    try {
      const reply = await h2Request(session, H2_JSONRPC_POST, JSON.stringify(rpc("SendStreamingMessage", { message: userMessage("stream 2") }, "h2")));
      expect(reply.type).toBe("text/event-stream");
      const datas = (await dataEvents(sseMessages(new Blob([reply.text]).stream()))).map((m) => m.data);
      expect(datas.map((d) => kindOf(d.result))).toEqual(["task", "statusUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"]);
    } finally {
      session.close();
    }
  });
});
