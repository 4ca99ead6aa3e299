import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EchoAgent, echoCard } from "../../../src/agents/index.js";
import { A2AError } from "../../../src/core/index.js";
import { openStream, rest, sendText, startRestHub, userMessage } from "../../helpers/rest.js";
import { observeSubscriptions, type ObservedSubscription } from "../../helpers/service-spies.js";
import { dataEvents, type SseMessage } from "../../helpers/sse.js";
import { startTestHub, type TestHub } from "../../helpers/test-hub.js";

const kindOf = (event: Record<string, unknown>) => ["task", "message", "statusUpdate", "artifactUpdate"].filter((k) => k in event);

/** Subscription calls seen by the service, to observe what a disconnect does server-side. */
const subscriptions: ObservedSubscription[] = [];
/** The task whose subscriptions fail after their first event. */
let breakingTask = "";

let t: TestHub;
beforeAll(async () => {
  t = await startRestHub({
    handler: { keepAliveMs: 100 },
    wrap: observeSubscriptions(subscriptions, (req, n) => {
      // The task the test marks fails once its stream has started.
      if (n === 1 && req.id === breakingTask) throw new A2AError("InvalidAgentResponse", "the agent said something impossible");
    }),
  });
});
afterAll(async () => {
  await t.stop();
});

describe("POST /message:stream (§11.7)", () => {
  it("answers text/event-stream of bare StreamResponse events with increasing SSE ids", async () => {
    const s = await openStream(t.url, "POST", "/message:stream", { body: { message: userMessage("stream 3") } });
    expect(s.status).toBe(200);
    expect(s.type).toBe("text/event-stream");
    const events = await dataEvents(s.events!);
    expect(events.map((e) => kindOf(e.data))).toEqual([["task"], ["statusUpdate"], ["artifactUpdate"], ["artifactUpdate"], ["artifactUpdate"], ["statusUpdate"]]);
    expect(events.every((e) => !("jsonrpc" in e.data) && e.event === undefined)).toBe(true);
    const ids = events.map((e) => Number(e.id));
    expect(ids.every((id, i) => Number.isInteger(id) && (i === 0 || id > ids[i - 1]!))).toBe(true);
    expect(events[0]!.data.task).toMatchObject({ id: expect.any(String), contextId: expect.any(String), status: { state: "TASK_STATE_SUBMITTED" } });
    expect(events.at(-1)!.data.statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
  });

  it("sends a direct Message as one event without an SSE id, then ends", async () => {
    const events = await dataEvents((await openStream(t.url, "POST", "/message:stream", { body: { message: userMessage("message") } })).events!);
    expect(events).toHaveLength(1);
    expect(events[0]!.id).toBeUndefined();
    expect(events[0]!.data.message.role).toBe("ROLE_AGENT");
  });

  it("answers an error found before the stream starts as an ordinary error response", async () => {
    const r = await openStream(t.url, "POST", "/message:stream", { body: { message: { role: "ROLE_USER", parts: [{ text: "x" }] } } });
    expect(r.events).toBeUndefined();
    expect(r.status).toBe(400);
    expect(r.json.error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
    expect(r.json.error.details).toEqual([expect.objectContaining({ fieldViolations: [expect.objectContaining({ field: "message.messageId" })] })]);
  });

  it("is UnsupportedOperation when the card does not declare streaming (§3.3.4)", async () => {
    const card = echoCard();
    card.capabilities!.streaming = false;
    const h = await startTestHub({ agents: [{ id: "echo", executor: new EchoAgent(), card }] });
    try {
      const r = await openStream(h.url, "POST", "/message:stream", { body: { message: userMessage("x") } });
      expect(r.status).toBe(400);
      expect(r.json.error.details[0].reason).toBe("UNSUPPORTED_OPERATION");
      const task = await sendText(h.url, "input-required");
      const sub = await openStream(h.url, "POST", `/tasks/${task.id}:subscribe`);
      expect(sub.json.error.details[0].reason).toBe("UNSUPPORTED_OPERATION");
    } finally {
      await h.stop();
    }
  });

  it("echoes the activated extensions on the stream's headers", async () => {
    const s = await openStream(t.url, "POST", "/message:stream", { body: { message: userMessage("x") }, headers: { "A2A-Extensions": "urn:not:declared" } });
    expect(s.headers.get("a2a-extensions")).toBeNull();
    await dataEvents(s.events!);
  });
});

describe("GET and POST /tasks/{id}:subscribe (§11.3.2, §3.1.6)", () => {
  for (const method of ["GET", "POST"]) {
    it(`${method} answers the Task first, then the updates until the task completes`, async () => {
      const task = await sendText(t.url, "slow 300", { configuration: { returnImmediately: true } });
      const s = await openStream(t.url, method, `/tasks/${task.id}:subscribe`);
      expect(s.type).toBe("text/event-stream");
      const events = await dataEvents(s.events!);
      expect(events[0]!.data.task.id).toBe(task.id);
      expect(events.at(-1)!.data.statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
    });
  }

  it("refuses a terminal task with UnsupportedOperation and an unknown one with TaskNotFound, before streaming", async () => {
    const done = await sendText(t.url, "done");
    const terminal = await openStream(t.url, "POST", `/tasks/${done.id}:subscribe`);
    expect(terminal.status).toBe(400);
    expect(terminal.json.error.details[0].reason).toBe("UNSUPPORTED_OPERATION");
    const unknown = await openStream(t.url, "GET", "/tasks/no-such-task:subscribe");
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.details[0].reason).toBe("TASK_NOT_FOUND");
  });

  it("resumes after Last-Event-ID with exactly the later events", async () => {
    const first = await dataEvents((await openStream(t.url, "POST", "/message:stream", { body: { message: userMessage("stream 4") } })).events!);
    const taskId = first[0]!.data.task.id as string;
    const cut = first[2]!;
    const resumed = await openStream(t.url, "POST", `/tasks/${taskId}:subscribe`, { headers: { "Last-Event-ID": cut.id! } });
    expect(resumed.type).toBe("text/event-stream");
    const rest = await dataEvents(resumed.events!);
    expect(rest.map((e) => e.id)).toEqual(first.slice(3).map((e) => e.id));
    expect(rest.map((e) => e.data)).toEqual(first.slice(3).map((e) => e.data));
  });

  it("resumes a live task: the missed events, then the live tail", async () => {
    const task = await sendText(t.url, "slow 600", { configuration: { returnImmediately: true } });
    const head = await openStream(t.url, "GET", `/tasks/${task.id}:subscribe`);
    const firstEvent = (await head.events!.next()).value as SseMessage;
    head.abort.abort();
    const resumed = await dataEvents((await openStream(t.url, "GET", `/tasks/${task.id}:subscribe`, { headers: { "Last-Event-ID": firstEvent.id! } })).events!);
    expect(resumed.length).toBeGreaterThan(0);
    expect(Number(resumed[0]!.id)).toBeGreaterThan(Number(firstEvent.id));
    expect(resumed.at(-1)!.data.statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
  });

  it("refuses a Last-Event-ID that is not a sequence number, naming it", async () => {
    const task = await sendText(t.url, "input-required");
    const r = await openStream(t.url, "POST", `/tasks/${task.id}:subscribe`, { headers: { "Last-Event-ID": "yesterday" } });
    expect(r.status).toBe(400);
    expect(r.json.error.details[0].fieldViolations[0].field).toBe("Last-Event-ID");
  });

  it("ends a stream that fails after it started with an `error` event holding the §11.6 body", async () => {
    const task = await sendText(t.url, "slow 2000", { configuration: { returnImmediately: true } });
    breakingTask = task.id;
    const s = await openStream(t.url, "GET", `/tasks/${task.id}:subscribe`);
    const events = await dataEvents(s.events!);
    expect(events[0]!.data.task.id).toBe(task.id);
    expect(events.at(-1)).toMatchObject({ event: "error", data: { error: { code: 500, status: "INTERNAL", details: [expect.objectContaining({ reason: "INVALID_AGENT_RESPONSE" })] } } });
    await rest(t.url, "POST", `/tasks/${task.id}:cancel`);
  });

  it("writes a comment line on an idle stream", async () => {
    const task = await sendText(t.url, "slow 450", { configuration: { returnImmediately: true } });
    const s = await openStream(t.url, "GET", `/tasks/${task.id}:subscribe`);
    const seen: SseMessage[] = [];
    for await (const e of s.events!) seen.push(e);
    expect(seen.filter((e) => e.comment === "keep-alive").length).toBeGreaterThanOrEqual(2);
  });

  it("stops the server-side stream at once when the client disconnects", async () => {
    const task = await sendText(t.url, "slow 5000", { configuration: { returnImmediately: true } });
    const before = subscriptions.length;
    const s = await openStream(t.url, "POST", `/tasks/${task.id}:subscribe`);
    await s.events!.next();
    const observed = subscriptions[before]!;
    expect(observed.signal.aborted).toBe(false);
    s.abort.abort();
    await expect.poll(() => observed.signal.aborted && observed.finished, { timeout: 1000, interval: 10 }).toBe(true);
    expect((await rest(t.url, "POST", `/tasks/${task.id}:cancel`)).json.status.state).toBe("TASK_STATE_CANCELED");
  });
});
