import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setTimeout as sleep } from "node:timers/promises";
import { trace } from "@opentelemetry/api";
import { TaskState } from "../../gen/a2a/v1/a2a_pb.js";
import { CommandAgent, echoCard, remoteHostedAgent } from "../../src/agents/index.js";
import type { AgentExecutor } from "../../src/execution/index.js";
import { startTracing, type TracingHandle } from "../../src/telemetry/index.js";
import { memoryLogger } from "../helpers/memory-logger.js";
import { textRequest, taskOf } from "../helpers/messages.js";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "../helpers/otlp-receiver.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";
import { startReceiver } from "../helpers/webhook-receiver.js";

const SERVICE = "lf.a2a.v1.A2AService";
let collector: OtlpReceiver;
let tracing: TracingHandle;
const hubs: TestHub[] = [];

beforeAll(async () => {
  collector = await startOtlpReceiver();
  // The config's endpoint, and no OTEL_* variable from the machine running the tests.
  tracing = (await startTracing({ endpoint: collector.url, serviceName: "hub-under-test" }, {}))!;
});
afterAll(async () => {
  await Promise.all(hubs.map((h) => h.stop()));
  await tracing.shutdown();
  await collector.close();
});

async function hub(options: Parameters<typeof startTestHub>[0] = {}): Promise<TestHub> {
  const t = await startTestHub({ tracing: true, ...options });
  hubs.push(t);
  return t;
}

/** A caller's span: its trace id, its span id, and the traceparent header naming them (W3C Trace Context). */
function callerSpan(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString("hex");
  const spanId = randomBytes(8).toString("hex");
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** The spans of one trace once `done` holds for them (flushing the SDK while waiting). */
async function traceSpans(traceId: string, done: (spans: ReceivedSpan[]) => boolean, ms = 10_000): Promise<ReceivedSpan[]> {
  const until = Date.now() + ms;
  for (;;) {
    await tracing.flush();
    const spans = collector.spans.filter((s) => s.traceId === traceId);
    if (done(spans)) return spans;
    if (Date.now() > until) throw new Error(`trace ${traceId}: only ${spans.map((s) => s.name).join(", ") || "no spans"}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const named = (spans: ReceivedSpan[], name: string) => spans.filter((s) => s.name === name);
const serverSpans = (spans: ReceivedSpan[]) => spans.filter((s) => s.kind === 2);

type Send = (t: TestHub, traceparent: string) => Promise<string>;

const jsonSend = (url: string, body: unknown, traceparent: string) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", traceparent }, body: JSON.stringify(body) }).then((r) => r.json());
const message = (text: string) => ({ messageId: randomBytes(8).toString("hex"), role: "ROLE_USER", parts: [{ text }] });

/** SendMessage over each binding with the caller's traceparent; resolves to the task id. */
const SENDS: ReadonlyArray<readonly [string, Send]> = [
  ["grpc", async (t, traceparent) => taskOf(await t.client("grpc").sendMessage(textRequest("hi"), { headers: { traceparent } })).id],
  ["connect", async (t, traceparent) => taskOf(await t.client("connect-h1").sendMessage(textRequest("hi"), { headers: { traceparent } })).id],
  ["grpc-web", async (t, traceparent) => taskOf(await t.client("grpc-web").sendMessage(textRequest("hi"), { headers: { traceparent } })).id],
  ["jsonrpc", async (t, traceparent) => (await jsonSend(t.url, { jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: message("hi") } }, traceparent)).result.task.id],
  ["rest", async (t, traceparent) => (await jsonSend(`${t.url}message:send`, { message: message("hi") }, traceparent)).task.id],
];

describe("OpenTelemetry traces exported over OTLP/HTTP", () => {
  it.each(SENDS)("%s: a server span under the caller's traceparent, with the agent run and store units of work beneath it", async (binding, send) => {
    const t = await hub();
    const caller = callerSpan();
    const taskId = await send(t, caller.traceparent);
    const spans = await traceSpans(caller.traceId, (s) => named(s, "agent run").length === 1 && named(s, "store unit of work").length >= 1);
    expect(collector.requests.every((type) => type === "application/x-protobuf")).toBe(true);
    const [server] = serverSpans(spans);
    expect(server).toMatchObject({
      service: "hub-under-test",
      name: `${SERVICE}/SendMessage`,
      parentSpanId: caller.spanId,
      statusCode: 0,
      attributes: {
        "rpc.system": { grpc: "grpc", "grpc-web": "grpc", connect: "connect_rpc", jsonrpc: "jsonrpc", rest: "http" }[binding],
        "rpc.service": SERVICE,
        "rpc.method": "SendMessage",
        "a2a.binding": binding,
        "a2a.agent": "echo",
        "a2a.tenant": "default",
        "a2a.task_id": taskId,
        "a2a.outcome": "ok",
      },
    });
    expect(server!.attributes["a2a.context_id"]).toMatch(/^[0-9a-f-]{36}$/);
    const [run] = named(spans, "agent run");
    expect(run).toMatchObject({ parentSpanId: server!.spanId, attributes: { "a2a.agent": "echo", "a2a.task_id": taskId } });
    const units = named(spans, "store unit of work");
    expect(units.length).toBeGreaterThanOrEqual(1);
    for (const uow of units) expect(uow).toMatchObject({ parentSpanId: run!.spanId, attributes: { "db.system": "sqlite" } });
    expect(units.reduce((n, u) => n + Number(u.attributes["a2a.store.writes"]), 0)).toBeGreaterThanOrEqual(2);
  });

  it("a failed call's span carries the A2A error as outcome and an error status; a call without traceparent starts a trace", async () => {
    const t = await hub();
    const caller = callerSpan();
    await expect(t.client("grpc").getTask({ id: "missing" }, { headers: { traceparent: caller.traceparent } })).rejects.toThrow();
    const [failed] = await traceSpans(caller.traceId, (s) => s.length >= 1);
    expect(failed).toMatchObject({ name: `${SERVICE}/GetTask`, statusCode: 2, attributes: { "a2a.outcome": "TaskNotFound", "a2a.task_id": "missing" } });

    const before = new Set(collector.spans.map((s) => s.spanId));
    await expect(t.client("connect-h1").getTask({ id: "missing-2" })).rejects.toThrow(/not found/);
    let root: ReceivedSpan | undefined;
    for (let i = 0; i < 100 && !root; i++) {
      await tracing.flush();
      root = collector.spans.find((s) => !before.has(s.spanId) && s.attributes["a2a.task_id"] === "missing-2");
      if (!root) await new Promise((r) => setTimeout(r, 50));
    }
    expect(root).toMatchObject({ parentSpanId: "", kind: 2 });
  });

  it("streams: the span lasts the stream and the request log line carries its trace id", async () => {
    const log = memoryLogger("info");
    const t = await hub({ logger: log.logger });
    const caller = callerSpan();
    const events = [];
    for await (const e of t.client("grpc").sendStreamingMessage(textRequest("stream 2"), { headers: { traceparent: caller.traceparent } })) events.push(e);
    const spans = await traceSpans(caller.traceId, (s) => serverSpans(s).length === 1 && named(s, "agent run").length === 1);
    const [server] = serverSpans(spans);
    expect(server).toMatchObject({ name: `${SERVICE}/SendStreamingMessage`, parentSpanId: caller.spanId, attributes: { "a2a.binding": "grpc", "a2a.outcome": "ok" } });
    expect(server!.attributes["a2a.task_id"]).toBe((events[0]!.payload.value as { id: string }).id);
    expect(named(spans, "agent run")[0]!.parentSpanId).toBe(server!.spanId);
    const line = log.lines().find((l) => l.message === "request");
    expect(line).toMatchObject({ method: "SendStreamingMessage", traceId: caller.traceId });
  });

  it("one trace across two hubs: hub A's remote agent calls hub B with the trace context", async () => {
    const b = await hub();
    const a = await hub({ agents: [remoteHostedAgent("remote", { url: b.url, binding: "grpc" })] });
    const caller = callerSpan();
    await a.client("grpc").sendMessage(textRequest("across"), { headers: { traceparent: caller.traceparent } });
    const spans = await traceSpans(caller.traceId, (s) => serverSpans(s).length >= 2 && named(s, "agent run").length === 2);
    const aServer = serverSpans(spans).find((s) => s.attributes["a2a.agent"] === "remote")!;
    const bServer = serverSpans(spans).find((s) => s.attributes["a2a.agent"] === "echo")!;
    const aRun = named(spans, "agent run").find((s) => s.attributes["a2a.agent"] === "remote")!;
    const bRun = named(spans, "agent run").find((s) => s.attributes["a2a.agent"] === "echo")!;
    expect(aServer.parentSpanId).toBe(caller.spanId);
    expect(aRun.parentSpanId).toBe(aServer.spanId);
    // The remote agent's outbound call carried traceparent: hub B's server span is a child of hub A's agent run.
    expect(bServer.parentSpanId).toBe(aRun.spanId);
    expect(bServer.attributes["a2a.binding"]).toBe("grpc");
    expect(bRun.parentSpanId).toBe(bServer.spanId);
    expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([caller.traceId]));
  });

  it("webhook POSTs carry the push delivery span's traceparent, in the trace of the call that made the event", async () => {
    const receiver = await startReceiver();
    try {
      const t = await hub({ push: { allowCidrs: ["127.0.0.1/32"] } });
      const caller = callerSpan();
      await t.client("grpc").sendMessage(textRequest("hi", { configuration: { taskPushNotificationConfig: { url: receiver.url } } }), { headers: { traceparent: caller.traceparent } });
      await receiver.waitFor(1);
      const spans = await traceSpans(caller.traceId, (s) => named(s, "push delivery").length >= 1);
      const delivery = named(spans, "push delivery")[0]!;
      expect(delivery.kind).toBe(3);
      expect(delivery.attributes["a2a.push.result"]).toBe("sent");
      const header = String(receiver.received[0]!.headers.traceparent);
      const [, traceId, parent] = header.split("-");
      expect(traceId).toBe(caller.traceId);
      expect(named(spans, "push delivery").map((s) => s.spanId)).toContain(parent);
    } finally {
      await receiver.close();
    }
  });

  it("an agent that publishes after awaits: each of its units of work still nests under its run, and it is handed the run's context", async () => {
    const seen: string[] = [];
    const executor: AgentExecutor = {
      async execute(ctx, sink) {
        // The hub keeps no AsyncLocalStorage (sync-context.ts): what follows each await is in no span unless handed on.
        await sleep(20);
        seen.push(trace.getSpanContext(ctx.traceContext!)!.spanId);
        sink.status(TaskState.WORKING);
        await sleep(20);
        sink.artifact({ artifactId: "a", parts: [{ content: { case: "text", value: "late" } }] });
        await sleep(20);
        sink.status(TaskState.COMPLETED);
      },
    };
    const t = await hub({ agents: [{ id: "slow", executor, card: echoCard() }] });
    const caller = callerSpan();
    const req = textRequest("x");
    req.tenant = "slow";
    await t.client("grpc").sendMessage(req, { headers: { traceparent: caller.traceparent } });
    const spans = await traceSpans(caller.traceId, (s) => named(s, "agent run").length === 1 && named(s, "store unit of work").length >= 3);
    const [run] = named(spans, "agent run");
    expect(seen).toEqual([run!.spanId]);
    expect(run!.parentSpanId).toBe(serverSpans(spans)[0]!.spanId);
    // Three turns wrote (working, the artifact, completed): three units, each a child of the run.
    const units = named(spans, "store unit of work");
    expect(units.length).toBeGreaterThanOrEqual(3);
    for (const uow of units) expect(uow.parentSpanId).toBe(run!.spanId);
  });

  it("the command agent's program gets the agent run's trace context as TRACEPARENT", async () => {
    const program = "process.stdout.write(process.env.TRACEPARENT ?? 'none')";
    const t = await hub({ agents: [{ id: "cmd", executor: new CommandAgent({ program: process.execPath, args: ["-e", program] }), card: (await import("../../src/agents/index.js")).commandCard() }] });
    const caller = callerSpan();
    const res = await t.client("grpc").sendMessage(textRequest("x"), { headers: { traceparent: caller.traceparent } });
    let task = taskOf(res);
    for (let i = 0; i < 100 && task.artifacts.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      task = await t.client("grpc").getTask({ id: task.id });
    }
    const text = task.artifacts[0]!.parts.map((p) => (p.content.case === "text" ? p.content.value : "")).join("");
    const spans = await traceSpans(caller.traceId, (s) => named(s, "agent run").length === 1);
    expect(text).toBe(`00-${caller.traceId}-${named(spans, "agent run")[0]!.spanId}-01`);
  });
});
