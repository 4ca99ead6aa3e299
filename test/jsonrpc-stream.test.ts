import * as http2 from "node:http2";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger, type A2AServiceApi, type SequencedEvent } from "../src/core/index.js";
import { createJsonRpcHandler, type JsonRpcHandler, type JsonRpcHandlerOptions } from "../src/bindings/jsonrpc/index.js";
import type { HubOptions } from "../src/server/index.js";
import { startTestHub, type TestHub } from "./helpers/test-hub.js";

// ---------------------------------------------------------------------------
// A hub whose POST / is this facade (until the server mounts it itself).

interface Setup {
  readonly hub?: HubOptions;
  readonly handler?: Partial<JsonRpcHandlerOptions>;
  readonly wrap?: (service: A2AServiceApi) => A2AServiceApi;
}

async function startJsonRpcHub(setup: Setup = {}): Promise<TestHub> {
  let handler: JsonRpcHandler | undefined;
  return startTestHub({
    ...setup.hub,
    routes: [
      async (req, res, hub) => {
        if (req.method !== "POST" || (req.url ?? "/").split("?")[0] !== "/") return false;
        handler ??= createJsonRpcHandler({
          service: setup.wrap ? setup.wrap(hub.core.service) : hub.core.service,
          card: (r) => hub.cardFor(r),
          logger: silentLogger,
          ...setup.handler,
        });
        await handler(req, res);
        return true;
      },
    ],
  });
}

/** One SSE event as the client sees it; comments are kept to observe keep-alives. */
interface SseEvent {
  readonly id?: string;
  readonly data?: any;
  readonly comment?: string;
}

/** Parses an event stream (WHATWG HTML §9.2.6) incrementally. */
async function* sse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buf = "";
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, end);
      buf = buf.slice(end + 2);
      let id: string | undefined;
      const data: string[] = [];
      let comment: string | undefined;
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) comment = line.slice(1).trim();
        else if (line.startsWith("id: ")) id = line.slice(4);
        else if (line.startsWith("data: ")) data.push(line.slice(6));
      }
      yield data.length > 0 ? { id, data: JSON.parse(data.join("\n")) } : { comment };
    }
  }
}

interface Opened {
  readonly status: number;
  readonly type: string;
  readonly json?: any;
  readonly events?: AsyncGenerator<SseEvent>;
  readonly abort: AbortController;
}

async function open(url: string, method: string, params: unknown, options: { id?: unknown; headers?: Record<string, string> } = {}): Promise<Opened> {
  const abort = new AbortController();
  const res = await fetch(url, {
    method: "POST",
    body: JSON.stringify({ jsonrpc: "2.0", id: options.id ?? "s", method, params }),
    headers: { "content-type": "application/json", accept: "text/event-stream", ...options.headers },
    signal: abort.signal,
  });
  const type = (res.headers.get("content-type") ?? "").split(";")[0]!;
  if (type !== "text/event-stream") return { status: res.status, type, json: await res.json(), abort };
  return { status: res.status, type, events: sse(res.body!), abort };
}

async function all(events: AsyncGenerator<SseEvent>): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const e of events) if (e.data) out.push(e);
  return out;
}

async function call(url: string, method: string, params: unknown): Promise<any> {
  const res = await fetch(url, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), headers: { "content-type": "application/json" } });
  return ((await res.json()) as { result: unknown }).result;
}

const userMessage = (text: string) => ({ messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] });
const v03Message = (text: string) => ({ kind: "message", messageId: crypto.randomUUID(), role: "user", parts: [{ kind: "text", text }] });
const kindOf = (result: Record<string, unknown>) => ["task", "message", "statusUpdate", "artifactUpdate"].find((k) => k in result);

/** Subscription calls seen by the service, to observe what a disconnect does server-side. */
interface Observed {
  signal: AbortSignal;
  finished: boolean;
}
const subscriptions: Observed[] = [];

let t: TestHub;
beforeAll(async () => {
  t = await startJsonRpcHub({
    handler: { keepAliveMs: 100 },
    wrap: (s) => ({
      ...s,
      subscribeSequenced: (req, ctx, afterSeq) => {
        const o: Observed = { signal: ctx.signal, finished: false };
        subscriptions.push(o);
        const inner = s.subscribeSequenced(req, ctx, afterSeq);
        return (async function* (): AsyncGenerator<SequencedEvent> {
          try {
            yield* inner;
          } finally {
            o.finished = true;
          }
        })();
      },
    }),
  });
});
afterAll(async () => {
  await t.stop();
});

describe("SendStreamingMessage over SSE", () => {
  it("answers text/event-stream whose events are JSON-RPC responses with the request id and increasing SSE ids", async () => {
    const s = await open(t.url, "SendStreamingMessage", { message: userMessage("stream 3") }, { id: 17 });
    expect(s.status).toBe(200);
    expect(s.type).toBe("text/event-stream");
    const events = await all(s.events!);
    expect(events.map((e) => kindOf(e.data.result))).toEqual(["task", "statusUpdate", "artifactUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"]);
    for (const e of events) expect(e.data).toMatchObject({ jsonrpc: "2.0", id: 17 });
    const ids = events.map((e) => Number(e.id));
    expect(ids.every((id, i) => Number.isInteger(id) && (i === 0 || id > ids[i - 1]!))).toBe(true);
    expect(events.at(-1)!.data.result.statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
    expect(events[0]!.data.result.task).toMatchObject({ id: expect.any(String), contextId: expect.any(String) });
  });

  it("sends a direct Message as one event without an SSE id, then ends", async () => {
    const s = await open(t.url, "SendStreamingMessage", { message: userMessage("message") });
    const events = await all(s.events!);
    expect(events).toHaveLength(1);
    expect(events[0]!.id).toBeUndefined();
    expect(events[0]!.data.result.message.role).toBe("ROLE_AGENT");
  });

  it("answers errors found before the stream starts as a plain JSON-RPC error", async () => {
    const bad = await open(t.url, "SendStreamingMessage", { message: { role: "ROLE_USER", parts: [{ text: "x" }] } }, { id: "e1" });
    expect(bad.type).toBe("application/json");
    expect(bad.json).toMatchObject({ id: "e1", error: { code: -32602 } });
    const unknown = await open(t.url, "SubscribeToTask", { id: "no-such-task" }, { id: "e2" });
    expect(unknown.json).toMatchObject({ id: "e2", error: { code: -32001 } });
    const done = await call(t.url, "SendMessage", { message: userMessage("done") });
    const terminal = await open(t.url, "SubscribeToTask", { id: done.task.id }, { id: "e3" });
    expect(terminal.json).toMatchObject({ id: "e3", error: { code: -32004, data: [expect.objectContaining({ reason: "UNSUPPORTED_OPERATION" })] } });
  });
});

describe("SubscribeToTask over SSE", () => {
  it("resumes after Last-Event-ID with exactly the later events", async () => {
    const first = await all((await open(t.url, "SendStreamingMessage", { message: userMessage("stream 4") })).events!);
    const taskId = first[0]!.data.result.task.id as string;
    const cut = first[2]!;
    const resumed = await open(t.url, "SubscribeToTask", { id: taskId }, { headers: { "Last-Event-ID": cut.id! } });
    expect(resumed.type).toBe("text/event-stream");
    const rest = await all(resumed.events!);
    expect(rest.map((e) => e.id)).toEqual(first.slice(3).map((e) => e.id));
    expect(rest.map((e) => e.data.result)).toEqual(first.slice(3).map((e) => e.data.result));
  });

  it("resumes a live task: the missed events, then the live tail", async () => {
    const started = await call(t.url, "SendMessage", { message: userMessage("slow 600"), configuration: { returnImmediately: true } });
    const head = await open(t.url, "SubscribeToTask", { id: started.task.id });
    const firstEvent = (await head.events!.next()).value as SseEvent;
    head.abort.abort();
    const resumed = await all((await open(t.url, "SubscribeToTask", { id: started.task.id }, { headers: { "Last-Event-ID": "1" } })).events!);
    expect(resumed.length).toBeGreaterThan(0);
    expect(Number(resumed[0]!.id)).toBeGreaterThan(1);
    expect(resumed.at(-1)!.data.result.statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
    expect(firstEvent.data.result.task.id).toBe(started.task.id);
  });

  it("refuses a Last-Event-ID that is not a sequence number", async () => {
    const started = await call(t.url, "SendMessage", { message: userMessage("x") });
    const r = await open(t.url, "SubscribeToTask", { id: started.task.id }, { headers: { "Last-Event-ID": "yesterday" } });
    expect(r.json.error.code).toBe(-32602);
  });

  it("writes a comment line on an idle stream", async () => {
    const started = await call(t.url, "SendMessage", { message: userMessage("slow 450"), configuration: { returnImmediately: true } });
    const s = await open(t.url, "SubscribeToTask", { id: started.task.id });
    const seen: SseEvent[] = [];
    for await (const e of s.events!) seen.push(e);
    expect(seen.filter((e) => e.comment === "keep-alive").length).toBeGreaterThanOrEqual(2);
    expect(seen.at(-1)!.data.result.statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
  });

  it("stops the server-side stream at once when the client disconnects", async () => {
    const started = await call(t.url, "SendMessage", { message: userMessage("slow 5000"), configuration: { returnImmediately: true } });
    const before = subscriptions.length;
    const s = await open(t.url, "SubscribeToTask", { id: started.task.id });
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
    const s = await open(t.url, "message/stream", { message: v03Message("stream 2") });
    const events = await all(s.events!);
    const results = events.map((e) => e.data.result);
    expect(results.map((r) => r.kind)).toEqual(["task", "status-update", "artifact-update", "artifact-update", "status-update"]);
    expect(results.filter((r) => r.kind === "status-update").map((r) => r.final)).toEqual([false, true]);
    expect(results.at(-1).status.state).toBe("completed");
    expect(results[0].status.state).toBe("submitted");
  });

  it("tasks/resubscribe resumes after Last-Event-ID in the v0.3 dialect", async () => {
    const first = await all((await open(t.url, "message/stream", { message: v03Message("stream 2") })).events!);
    const rest = await all((await open(t.url, "tasks/resubscribe", { id: first[0]!.data.result.id }, { headers: { "Last-Event-ID": first[1]!.id! } })).events!);
    expect(rest.map((e) => e.data.result)).toEqual(first.slice(2).map((e) => e.data.result));
    expect(rest.at(-1)!.data.result).toMatchObject({ kind: "status-update", final: true });
  });

  it("tasks/resubscribe on a live task starts with the v0.3 Task", async () => {
    const started = await call(t.url, "message/send", { message: v03Message("slow 300"), configuration: { blocking: false } });
    expect(started).toMatchObject({ kind: "task" });
    expect(["submitted", "working"]).toContain(started.status.state);
    const events = await all((await open(t.url, "tasks/resubscribe", { id: started.id })).events!);
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
      const req = session.request({ ":method": "POST", ":path": "/", "content-type": "application/json" });
      req.on("error", () => {});
      req.end(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SubscribeToTask", params: { id: started.task.id } }));
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
      const text = await new Promise<string>((resolve, reject) => {
        const req = session.request({ ":method": "POST", ":path": "/", "content-type": "application/json" });
        let body = "";
        req.on("response", (h) => expect(h["content-type"]).toBe("text/event-stream"));
        req.setEncoding("utf8");
        req.on("data", (d: string) => (body += d));
        req.on("end", () => resolve(body));
        req.on("error", reject);
        req.end(JSON.stringify({ jsonrpc: "2.0", id: "h2", method: "SendStreamingMessage", params: { message: userMessage("stream 2") } }));
      });
      const datas = text.split("\n").filter((l) => l.startsWith("data: ")).map((l) => JSON.parse(l.slice(6)));
      expect(datas.map((d) => kindOf(d.result))).toEqual(["task", "statusUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"]);
    } finally {
      session.close();
    }
  });
});
