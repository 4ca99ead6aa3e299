import { randomUUID } from "node:crypto";
import { setTimeout as delay } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromJson, toJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import {
  A2AService,
  Role,
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  TaskState,
  type SendMessageRequest,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
} from "../../gen/a2a/v1/a2a_pb.js";
import { BadRequestSchema, ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { EchoAgent, echoCard } from "../../src/agents/index.js";
import type { AgentExecutor } from "../../src/execution/index.js";
import { v03Message } from "../helpers/json-messages.js";
import { openRpcStream, post, rpc } from "../helpers/jsonrpc-requests.js";
import { collect, textRequest } from "../helpers/messages.js";
import { textOf } from "../helpers/message-text.js";
import { openStream, rest } from "../helpers/rest.js";
import { removeDir, tempDataDir } from "../helpers/server-process.js";
import { dataEvents, type SseStream } from "../helpers/sse.js";
import { hubCardOf, hubClient, listedIds, outcomeOf } from "../helpers/hub-clients.js";
import { tenantHubOptions } from "../helpers/tenant-hub.js";
import { startTestHub, type TestHub, type TransportName } from "../helpers/test-hub.js";
import type { HubOptions } from "../../src/server/index.js";

/*
 * §3.3.1 idempotent sends, in the two modes that key them: retries by
 * messageId (opt-in, config `retries.byMessageId`) and an Idempotency-Key
 * header (gRPC/Connect metadata) whatever the setting. A keyed send the same
 * tenant already sent to the same agent answers with the first attempt's
 * outcome (its task as it stands now, or the agent's direct reply) instead
 * of starting a second task — on every binding, across bindings, when
 * retries race the original, and after a restart. By default (neither),
 * every send is a new message.
 */

/** How sends are keyed: by messageId (opt-in), by an Idempotency-Key header, or not at all (the default). */
type Mode = "byMessageId" | "idempotencyKey" | "none";
let mode: Mode = "none";
/** The hub options of a mode. */
const modeOptions = (m: Mode = mode): HubOptions => (m === "byMessageId" ? { retries: { byMessageId: true } } : {});
/** The Idempotency-Key of a send in header mode: one per messageId, so a resent message is a retry. */
const keyHeaders = (send: Send): Record<string, string> => (mode === "idempotencyKey" ? { "idempotency-key": `key-${send.messageId}` } : {});

/** Where a sender sends: the hub's root by default, or one agent's endpoints as one tenant. */
interface Target {
  /** The JSON-RPC endpoint. */
  readonly rpcUrl: string;
  /** The HTTP+JSON base (routes are appended). */
  readonly restBase: string;
  /** Extra HTTP headers (a bearer token). */
  readonly headers: Record<string, string>;
  /** The gRPC/Connect request's `tenant` field: the agent id, or "" for the hub's only agent. */
  readonly agent: string;
  client(name: TransportName): Client<typeof A2AService>;
}

/** One send: a user message with one text part. */
interface Send {
  readonly text: string;
  readonly messageId: string;
  readonly taskId?: string;
  readonly contextId?: string;
  /** Non-blocking (returnImmediately, or v0.3 blocking: false); streams ignore it. */
  readonly returnImmediately?: boolean;
}

/** What a send answered, whatever the binding: a task (its id, context and latest state) or a direct reply. */
interface Outcome {
  readonly taskId?: string;
  readonly contextId: string;
  readonly state?: TaskState;
  /** The messageId of the agent's direct reply. */
  readonly replyId?: string;
}

/** A refused send, whatever the binding: its code, the ErrorInfo reason and the BadRequest fields. */
class Refused extends Error {
  constructor(
    readonly code: string,
    readonly reason: string | undefined,
    readonly fields: string[],
  ) {
    super(`${code} ${reason ?? ""} [${fields.join(", ")}]`);
  }
}

type Sender = (target: Target, send: Send) => Promise<Outcome>;

function request(send: Send, tenant = ""): SendMessageRequest {
  const req = textRequest(send.text, {
    messageId: send.messageId,
    taskId: send.taskId,
    contextId: send.contextId,
    configuration: send.returnImmediately ? { returnImmediately: true } : undefined,
  });
  req.tenant = tenant;
  return req;
}

function v03Params(send: Send): object {
  const ids = { messageId: send.messageId, ...(send.taskId ? { taskId: send.taskId } : {}), ...(send.contextId ? { contextId: send.contextId } : {}) };
  return { message: v03Message(send.text, ids), configuration: { blocking: !send.returnImmediately } };
}

function responseOutcome(res: SendMessageResponse): Outcome {
  const p = res.payload;
  if (p.case === "task") return { taskId: p.value.id, contextId: p.value.contextId, state: p.value.status?.state };
  if (p.case === "message") return { contextId: p.value.contextId, replyId: p.value.messageId };
  throw new Error("an empty SendMessageResponse");
}

/** A stream's outcome: the task it began with and the state its last event left it in, or its one Message. */
function streamOutcome(events: readonly StreamResponse[]): Outcome {
  const first = events[0]?.payload;
  if (first?.case === "message") {
    expect(events, "a direct reply is the only event of its stream").toHaveLength(1);
    return { contextId: first.value.contextId, replyId: first.value.messageId };
  }
  if (first?.case !== "task") throw new Error(`a stream began with ${first?.case}`);
  let state = first.value.status?.state;
  for (const e of events) if (e.payload.case === "statusUpdate") state = e.payload.value.status?.state;
  return { taskId: first.value.id, contextId: first.value.contextId, state };
}

/** v0.3 task states ("input-required") to the enum. */
const v03State = (s: string): TaskState => TaskState[s.toUpperCase().replace(/-/g, "_") as keyof typeof TaskState];

/** A v0.3 result or stream event (kind-tagged) to an outcome. */
function v03Outcome(result: any): Outcome {
  if (result.kind === "message") return { contextId: result.contextId, replyId: result.messageId };
  if (result.kind === "task") return { taskId: result.id, contextId: result.contextId, state: v03State(result.status.state) };
  throw new Error(`a v0.3 answer of kind ${result.kind}`);
}

/** The reason and fields of google.rpc details, as JSON-RPC `error.data` and REST `error.details` carry them. */
function refusedByDetails(code: string, details: unknown): Refused {
  const list = Array.isArray(details) ? (details as any[]) : [];
  const reason = list.find((d) => d?.["@type"] === "type.googleapis.com/google.rpc.ErrorInfo")?.reason;
  const fields = list.filter((d) => d?.["@type"] === "type.googleapis.com/google.rpc.BadRequest").flatMap((d) => d.fieldViolations.map((v: any) => v.field));
  return new Refused(code, reason, fields);
}

function refusedByConnect(e: unknown): unknown {
  if (!(e instanceof ConnectError)) return e;
  const fields = e.findDetails(BadRequestSchema).flatMap((b) => b.fieldViolations.map((v) => v.field));
  return new Refused(`rpc ${Code[e.code]}`, e.findDetails(ErrorInfoSchema)[0]?.reason, fields);
}

const connectUnary =
  (name: TransportName): Sender =>
  async (target, send) => {
    try {
      return responseOutcome(await target.client(name).sendMessage(request(send, target.agent), { headers: keyHeaders(send) }));
    } catch (e) {
      throw refusedByConnect(e);
    }
  };

const connectStreaming =
  (name: TransportName): Sender =>
  async (target, send) => {
    try {
      return streamOutcome(await collect(target.client(name).sendStreamingMessage(request(send, target.agent), { headers: keyHeaders(send) })));
    } catch (e) {
      throw refusedByConnect(e);
    }
  };

/** The data events of an SSE answer, or the refusal it answered with instead of a stream. */
async function sseData(s: SseStream, refusal: (json: any) => Refused): Promise<any[]> {
  if (!s.events) throw refusal(s.json);
  return (await dataEvents(s.events)).map((e) => e.data);
}

const rpcRefusal = (json: any) => refusedByDetails(`jsonrpc ${json?.error?.code}`, json?.error?.data);

const SENDERS = {
  "connect-h1": connectUnary("connect-h1"),
  "connect-h2": connectUnary("connect-h2"),
  grpc: connectUnary("grpc"),
  "grpc-web": connectUnary("grpc-web"),
  jsonrpc: async (target, send) => {
    const r = await post(target.rpcUrl, rpc("SendMessage", toJson(SendMessageRequestSchema, request(send))), { ...target.headers, ...keyHeaders(send) });
    if (r.json?.error) throw rpcRefusal(r.json);
    return responseOutcome(fromJson(SendMessageResponseSchema, r.json.result));
  },
  "jsonrpc-v0.3": async (target, send) => {
    const r = await post(target.rpcUrl, rpc("message/send", v03Params(send)), { ...target.headers, ...keyHeaders(send) });
    if (r.json?.error) throw rpcRefusal(r.json);
    return v03Outcome(r.json.result);
  },
  rest: async (target, send) => {
    const r = await rest(target.restBase, "POST", "/message:send", { body: toJson(SendMessageRequestSchema, request(send)), headers: { ...target.headers, ...keyHeaders(send) } });
    if (r.status !== 200) throw refusedByDetails(`http ${r.status} ${r.json?.error?.status}`, r.json?.error?.details);
    return responseOutcome(fromJson(SendMessageResponseSchema, r.json));
  },
  "grpc-stream": connectStreaming("grpc"),
  "grpc-web-stream": connectStreaming("grpc-web"),
  "jsonrpc-stream": async (target, send) => {
    const s = await openRpcStream(target.rpcUrl, "SendStreamingMessage", toJson(SendMessageRequestSchema, request(send)), { headers: { ...target.headers, ...keyHeaders(send) } });
    const data = await sseData(s, rpcRefusal);
    for (const d of data) if (d.error) throw rpcRefusal(d);
    return streamOutcome(data.map((d) => fromJson(StreamResponseSchema, d.result as JsonValue)));
  },
  "jsonrpc-v0.3-stream": async (target, send) => {
    const s = await openRpcStream(target.rpcUrl, "message/stream", v03Params(send), { headers: { ...target.headers, ...keyHeaders(send) } });
    const data = await sseData(s, rpcRefusal);
    for (const d of data) if (d.error) throw rpcRefusal(d);
    const first = v03Outcome(data[0].result);
    const last = data.at(-1).result;
    return last.kind === "status-update" ? { ...first, state: v03State(last.status.state) } : first;
  },
  "rest-stream": async (target, send) => {
    const s = await openStream(target.restBase, "POST", "/message:stream", { body: toJson(SendMessageRequestSchema, request(send)), headers: { ...target.headers, ...keyHeaders(send) } });
    const data = await sseData(s, (json) => refusedByDetails(`http ${s.status} ${json?.error?.status}`, json?.error?.details));
    for (const d of data) if (d.error) throw refusedByDetails(`http ${d.error.code} ${d.error.status}`, d.error.details);
    return streamOutcome(data.map((d) => fromJson(StreamResponseSchema, d as JsonValue)));
  },
} satisfies Record<string, Sender>;

type SenderName = keyof typeof SENDERS;
const SENDER_NAMES = Object.keys(SENDERS) as SenderName[];
const STREAMING = new Set<SenderName>(["grpc-stream", "grpc-web-stream", "jsonrpc-stream", "jsonrpc-v0.3-stream", "rest-stream"]);

/**
 * How each binding says InvalidParams: gRPC/Connect INVALID_ARGUMENT with the
 * INVALID_PARAMS ErrorInfo, JSON-RPC -32602, REST 400 INVALID_ARGUMENT (a
 * standard error: JSON-RPC and REST carry no ErrorInfo for it); all with a
 * BadRequest naming the field.
 */
const invalidParams = (name: SenderName, field: string) =>
  name.startsWith("jsonrpc")
    ? { code: "jsonrpc -32602", reason: undefined, fields: [field] }
    : name.startsWith("rest")
      ? { code: "http 400 INVALID_ARGUMENT", reason: undefined, fields: [field] }
      : { code: "rpc InvalidArgument", reason: "INVALID_PARAMS", fields: [field] };

/** Runs a send that must be refused, and returns the refusal. */
async function refusal(p: Promise<Outcome>): Promise<Refused> {
  let outcome: Outcome | undefined;
  try {
    outcome = await p;
  } catch (e) {
    if (e instanceof Refused) return e;
    throw e;
  }
  throw new Error(`expected a refusal, got ${JSON.stringify(outcome)}`);
}

const rootTarget = (t: TestHub): Target => ({ rpcUrl: t.url, restBase: t.url, headers: {}, agent: "", client: (name) => t.client(name) });

/** The same hub reached at one agent's own endpoints: /v1/a2a/agents/:id, and `tenant` = the id over gRPC/Connect. */
function agentTarget(t: TestHub, agent: string): Target {
  const base = new URL(`v1/a2a/agents/${agent}`, t.url).href;
  return { rpcUrl: base, restBase: base, headers: {}, agent, client: (name) => t.client(name) };
}

/** Every task of a context, read back over gRPC. */
async function tasksIn(t: TestHub, contextId: string): Promise<Task[]> {
  const page = await t.client("grpc").listTasks({ contextId, pageSize: 100 });
  expect(page.totalSize).toBe(page.tasks.length);
  return page.tasks;
}

/** How many tasks the hub's (only) tenant and agent hold. */
async function taskCount(t: TestHub): Promise<number> {
  return (await t.client("grpc").listTasks({ pageSize: 1 })).totalSize;
}

/** The messageIds of a task's user messages, in history order. */
async function userMessageIds(t: TestHub, taskId: string): Promise<string[]> {
  const task = await t.client("grpc").getTask({ id: taskId });
  return task.history.filter((m) => m.role === Role.USER).map((m) => m.messageId);
}

/** Starts a task the echo agent parks in INPUT_REQUIRED; returns its id and the messageId that started it. */
async function parkedTask(t: TestHub, contextId: string): Promise<{ id: string; messageId: string }> {
  const messageId = randomUUID();
  const parked = await SENDERS.grpc(rootTarget(t), { text: "input-required", messageId, contextId });
  expect(parked.state).toBe(TaskState.INPUT_REQUIRED);
  return { id: parked.taskId!, messageId };
}

/** Polls (bounded) until the context holds a task in `state`; returns it. */
async function waitForTaskIn(t: TestHub, contextId: string, state: TaskState): Promise<Task> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const found = (await tasksIn(t, contextId)).find((task) => task.status?.state === state);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no task reached ${TaskState[state]} in context ${contextId} within 5 s`);
    await delay(20);
  }
}

const newContext = (what: string) => `${what}-${randomUUID()}`;

describe.each(["byMessageId", "idempotencyKey"] as const)("retries keyed by %s", (m) => {
beforeAll(() => {
  mode = m;
});
afterAll(() => {
  mode = "none";
});

let t: TestHub;
beforeAll(async () => {
  t = await startTestHub(modeOptions());
});
afterAll(async () => {
  await t?.stop();
});

describe("a retried send answers with the first attempt's outcome (§3.3.1)", () => {
  it.each(SENDER_NAMES)("a retry over %s with the same messageId returns the first task, and only one task exists", async (name) => {
    const contextId = newContext(name);
    const send: Send = { text: `retry me over ${name}`, messageId: randomUUID(), contextId };
    const first = await SENDERS[name](rootTarget(t), send);
    expect(first).toEqual({ taskId: expect.any(String), contextId, state: TaskState.COMPLETED });
    const retry = await SENDERS[name](rootTarget(t), send);
    expect(retry).toEqual(first);
    expect((await tasksIn(t, contextId)).map((task) => task.id)).toEqual([first.taskId]);
    expect(await userMessageIds(t, first.taskId!)).toEqual([send.messageId]);
  });

  it.each(SENDER_NAMES)("a retry over %s of a message the agent answered directly returns the same Message and creates no task", async (name) => {
    const contextId = newContext(`reply-${name}`);
    const send: Send = { text: "message", messageId: randomUUID(), contextId };
    const first = await SENDERS[name](rootTarget(t), send);
    expect(first).toEqual({ contextId, replyId: expect.any(String) });
    expect(first.replyId).not.toBe(send.messageId);
    const retry = await SENDERS[name](rootTarget(t), send);
    expect(retry).toEqual(first);
    expect(await tasksIn(t, contextId)).toEqual([]);
  });

  it("a retry on any other binding returns the task a gRPC send started, with its server-chosen context", async () => {
    const before = await taskCount(t);
    const send: Send = { text: "first over gRPC, then everywhere", messageId: randomUUID() };
    const first = await SENDERS.grpc(rootTarget(t), send);
    expect(first).toEqual({ taskId: expect.any(String), contextId: expect.any(String), state: TaskState.COMPLETED });
    for (const name of SENDER_NAMES) {
      expect(await SENDERS[name](rootTarget(t), send), `retry over ${name}`).toEqual(first);
    }
    expect(await taskCount(t)).toBe(before + 1);
    expect(await userMessageIds(t, first.taskId!)).toEqual([send.messageId]);
  });

  it("a retry to the hub's only agent at its own endpoints finds the send made at the hub's root", async () => {
    const send: Send = { text: "root first, then the agent's own paths", messageId: randomUUID() };
    const first = await SENDERS.jsonrpc(rootTarget(t), send);
    for (const name of ["grpc", "jsonrpc", "rest", "rest-stream"] as const) {
      expect(await SENDERS[name](agentTarget(t, "echo"), send), `retry over ${name} at /v1/a2a/agents/echo`).toEqual(first);
    }
  });

  it("a retry on any other binding of a message answered directly over REST returns the same Message", async () => {
    const before = await taskCount(t);
    const send: Send = { text: "message", messageId: randomUUID() };
    const first = await SENDERS.rest(rootTarget(t), send);
    expect(first.replyId).toEqual(expect.any(String));
    for (const name of SENDER_NAMES) {
      expect(await SENDERS[name](rootTarget(t), send), `retry over ${name}`).toEqual(first);
    }
    expect(await taskCount(t)).toBe(before);
  });

  it("a non-blocking retry answers the first task as it stands now, and a blocking one waits for it to settle", async () => {
    const contextId = newContext("as-it-stands");
    const send: Send = { text: "slow 600", messageId: randomUUID(), contextId, returnImmediately: true };
    const first = await SENDERS.rest(rootTarget(t), send);
    expect([TaskState.SUBMITTED, TaskState.WORKING]).toContain(first.state);
    const nonBlocking = await SENDERS.grpc(rootTarget(t), send);
    expect(nonBlocking.taskId).toBe(first.taskId);
    const blocking = await SENDERS.jsonrpc(rootTarget(t), { ...send, returnImmediately: false });
    expect(blocking).toEqual({ taskId: first.taskId, contextId, state: TaskState.COMPLETED });
    expect((await tasksIn(t, contextId)).map((task) => task.id)).toEqual([first.taskId]);
  });
});

describe("what counts as the same message", () => {
  it("a retry may carry other message metadata and extensions: only parts, taskId and contextId make the message", async () => {
    const contextId = newContext("metadata");
    const messageId = randomUUID();
    const req = (metadata: JsonObject, extensions: string[]) => {
      const r = textRequest("same parts, other envelope", { messageId, contextId });
      r.message!.metadata = metadata;
      r.message!.extensions = extensions;
      return r;
    };
    const headers = keyHeaders({ text: "", messageId });
    const a = responseOutcome(await t.client("grpc").sendMessage(req({ attempt: 1 }, []), { headers }));
    const b = responseOutcome(await t.client("connect-h1").sendMessage(req({ attempt: 2, retriedBy: "client" }, ["https://example.com/ext/v1"]), { headers }));
    expect(a.state).toBe(TaskState.COMPLETED);
    expect(b).toEqual(a);
    expect((await tasksIn(t, contextId)).map((task) => task.id)).toEqual([a.taskId]);
  });

  // JSON objects are unordered (RFC 8259) and a protobuf map's wire order is
  // undefined: a retry may list the same entries in another order.
  it("a JSON-RPC retry whose data part lists the same object's keys in another order is a retry, not a different message", async () => {
    const messageId = randomUUID();
    const sendData = (data: object) => post(t.url, rpc("SendMessage", { message: { messageId, role: "ROLE_USER", parts: [{ data }] } }), keyHeaders({ text: "", messageId }));
    const first = await sendData({ city: "Paris", days: 3 });
    expect(first.json.result?.task?.id, first.text).toEqual(expect.any(String));
    const retry = await sendData({ days: 3, city: "Paris" });
    expect(retry.json.error, retry.text).toBeUndefined();
    expect(retry.json.result.task.id).toBe(first.json.result.task.id);
  });

  it("a gRPC retry whose part metadata holds the same entries in another order is a retry, not a different message", async () => {
    const messageId = randomUUID();
    const send = async (metadata: JsonObject) => {
      const req = textRequest("same text, same part metadata", { messageId });
      req.message!.parts[0]!.metadata = metadata;
      return responseOutcome(await t.client("grpc").sendMessage(req, { headers: keyHeaders({ text: "", messageId }) }));
    };
    const first = await send({ lang: "en", source: "ui" });
    expect(first.taskId).toEqual(expect.any(String));
    expect(await send({ source: "ui", lang: "en" })).toEqual(first);
  });
});

/**
 * The echo agent, but its first event comes only after START_DELAY_MS: until
 * then no task and no ledger record exist, so sends that race the original
 * all arrive while it is still undecided (the window the ledger's claim covers).
 */
const START_DELAY_MS = 300;
const lateEcho: AgentExecutor = {
  async execute(ctx, events) {
    await delay(START_DELAY_MS, undefined, { signal: ctx.signal }).catch(() => undefined);
    if (!ctx.signal.aborted) await new EchoAgent().execute(ctx, events);
  },
};

describe("retries that race the original", () => {
  let late: TestHub;
  beforeAll(async () => {
    late = await startTestHub({ ...modeOptions(), agents: [{ id: "echo", executor: lateEcho, card: echoCard() }] });
  });
  afterAll(async () => {
    await late?.stop();
  });

  it("ten sends of one message fired at once over mixed bindings, before the agent has answered, all answer one task, and exactly one task exists", async () => {
    const contextId = newContext("race");
    const messageId = randomUUID();
    const senders = Array.from({ length: 10 }, (_, i) => SENDER_NAMES[(i * 5) % SENDER_NAMES.length]!);
    const answers = await Promise.all(
      senders.map(async (name, i) => {
        // Every third unary send is non-blocking: it may answer before the task settles.
        const returnImmediately = !STREAMING.has(name) && i % 3 === 2;
        return { name, returnImmediately, outcome: await SENDERS[name](rootTarget(late), { text: "slow 200", messageId, contextId, returnImmediately }) };
      }),
    );
    const tasks = await tasksIn(late, contextId);
    expect(tasks).toHaveLength(1);
    for (const a of answers) {
      expect(a.outcome.taskId, `${a.name} answered another task`).toBe(tasks[0]!.id);
      expect(a.outcome.contextId).toBe(contextId);
      if (!a.returnImmediately) expect(a.outcome.state, `${a.name} answered before the task settled`).toBe(TaskState.COMPLETED);
    }
    expect(new Set(answers.map((a) => a.name)).size).toBeGreaterThanOrEqual(8);
    expect(await userMessageIds(late, tasks[0]!.id)).toEqual([messageId]);
  });

  it("blocking retries sent while the original is still working wait for it and answer its completed task", async () => {
    const contextId = newContext("while-working");
    const send: Send = { text: "slow 1500", messageId: randomUUID(), contextId };
    const original = SENDERS.grpc(rootTarget(t), send);
    const working = await waitForTaskIn(t, contextId, TaskState.WORKING);
    const retries = SENDER_NAMES.filter((name) => name !== "grpc").map(async (name) => ({ name, outcome: await SENDERS[name](rootTarget(t), send) }));
    const [first, ...others] = await Promise.all([original.then((outcome) => ({ name: "grpc", outcome })), ...retries]);
    expect(first!.outcome).toEqual({ taskId: working.id, contextId, state: TaskState.COMPLETED });
    for (const r of others) expect(r.outcome, `retry over ${r.name}`).toEqual(first!.outcome);
    expect((await tasksIn(t, contextId)).map((task) => task.id)).toEqual([working.id]);
    expect(await userMessageIds(t, working.id)).toEqual([send.messageId]);
  });

  it("a message answered directly, sent ten times at once over mixed bindings before the agent has answered, answers one Message and creates no task", async () => {
    const contextId = newContext("race-reply");
    const send: Send = { text: "message", messageId: randomUUID(), contextId };
    const senders = Array.from({ length: 10 }, (_, i) => SENDER_NAMES[(i * 7) % SENDER_NAMES.length]!);
    const answers = await Promise.all(senders.map((name) => SENDERS[name](rootTarget(late), send)));
    const replyIds = new Set(answers.map((a) => a.replyId));
    expect(replyIds.size).toBe(1);
    expect([...replyIds][0]).toEqual(expect.any(String));
    expect(answers.every((a) => a.taskId === undefined)).toBe(true);
    expect(await tasksIn(late, contextId)).toEqual([]);
  });
});

describe.runIf(m === "idempotencyKey")("an Idempotency-Key reused for a different message", () => {
  it.each(SENDER_NAMES)("over %s, other text under a used key is InvalidParams naming idempotency-key, and nothing stored changes", async (name) => {
    const contextId = newContext(`reuse-${name}`);
    const original: Send = { text: "the original words", messageId: randomUUID(), contextId };
    const first = await SENDERS.grpc(rootTarget(t), original);
    expect(first.state).toBe(TaskState.COMPLETED);
    const before = await t.client("grpc").getTask({ id: first.taskId! });

    const refused = await refusal(SENDERS[name](rootTarget(t), { ...original, text: "some other words" }));
    expect({ code: refused.code, reason: refused.reason, fields: refused.fields }).toEqual(invalidParams(name, "idempotency-key"));

    expect((await tasksIn(t, contextId)).map((task) => task.id)).toEqual([first.taskId]);
    const after = await t.client("grpc").getTask({ id: first.taskId! });
    expect(after).toEqual(before);
    expect(after.history.map(textOf)).toEqual(["the original words"]);
    // The original message is still a retry of the first send.
    expect(await SENDERS[name](rootTarget(t), original)).toEqual(first);
  });

  it("the same text under a used key but with another contextId or taskId is InvalidParams too, and nothing stored changes", async () => {
    const contextId = newContext("reuse-ids");
    const original: Send = { text: "hello once", messageId: randomUUID(), contextId };
    const first = await SENDERS.rest(rootTarget(t), original);
    const otherContext = newContext("reuse-ids-other");
    const byContext = await refusal(SENDERS.jsonrpc(rootTarget(t), { ...original, contextId: otherContext }));
    expect(byContext.code).toBe("jsonrpc -32602");
    expect(byContext.fields).toEqual(["idempotency-key"]);
    expect(await tasksIn(t, otherContext)).toEqual([]);

    const parked = await parkedTask(t, newContext("reuse-ids-parked"));
    const byTask = await refusal(SENDERS.grpc(rootTarget(t), { ...original, contextId: undefined, taskId: parked.id }));
    expect(byTask.code).toBe("rpc InvalidArgument");
    expect(byTask.fields).toEqual(["idempotency-key"]);
    const untouched = await t.client("grpc").getTask({ id: parked.id });
    expect(untouched.status?.state).toBe(TaskState.INPUT_REQUIRED);
    expect(untouched.history.filter((m) => m.role === Role.USER).map((m) => m.messageId)).toEqual([parked.messageId]);
    expect((await tasksIn(t, contextId)).map((task) => task.id)).toEqual([first.taskId]);
  });

  it("a key first used by a follow-up cannot start a new task", async () => {
    const parked = await parkedTask(t, newContext("reuse-follow-up"));
    const followUp: Send = { text: "the answer", messageId: randomUUID(), taskId: parked.id };
    expect(await SENDERS.grpc(rootTarget(t), followUp)).toMatchObject({ taskId: parked.id, state: TaskState.COMPLETED });
    const before = await taskCount(t);
    const refused = await refusal(SENDERS.rest(rootTarget(t), { ...followUp, taskId: undefined }));
    expect(refused.code).toBe("http 400 INVALID_ARGUMENT");
    expect(refused.fields).toEqual(["idempotency-key"]);
    expect(await taskCount(t)).toBe(before);
  });
});

describe.runIf(m === "byMessageId")("a messageId reused for a different message is a new message, not an error", () => {
  it.each(SENDER_NAMES)("over %s, other text under a used messageId starts its own task, and the original stays a retry of the first send", async (name) => {
    const contextId = newContext(`reuse-${name}`);
    const original: Send = { text: "the original words", messageId: randomUUID(), contextId };
    const first = await SENDERS.grpc(rootTarget(t), original);
    const before = await t.client("grpc").getTask({ id: first.taskId! });

    const other = await SENDERS[name](rootTarget(t), { ...original, text: "some other words" });
    expect(other).toEqual({ taskId: expect.any(String), contextId, state: TaskState.COMPLETED });
    expect(other.taskId).not.toBe(first.taskId);
    expect((await t.client("grpc").getTask({ id: other.taskId! })).history.map(textOf)[0]).toBe("some other words");

    expect(await t.client("grpc").getTask({ id: first.taskId! })).toEqual(before);
    expect(await SENDERS[name](rootTarget(t), original)).toEqual(first);
    expect(new Set((await tasksIn(t, contextId)).map((task) => task.id))).toEqual(new Set([first.taskId, other.taskId]));
  });

  it("the same text under a used messageId but with another taskId joins that task, and the first task is untouched", async () => {
    const original: Send = { text: "hello once", messageId: randomUUID(), contextId: newContext("reuse-ids") };
    const first = await SENDERS.rest(rootTarget(t), original);
    const parked = await parkedTask(t, newContext("reuse-ids-parked"));
    const joined = await SENDERS.grpc(rootTarget(t), { ...original, contextId: undefined, taskId: parked.id });
    expect(joined).toMatchObject({ taskId: parked.id, state: TaskState.COMPLETED });
    expect(await userMessageIds(t, parked.id)).toEqual([parked.messageId, original.messageId]);
    expect(await SENDERS.jsonrpc(rootTarget(t), original)).toEqual(first);
  });
});

describe("follow-ups (§3.4.3) retried", () => {
  it.each(SENDER_NAMES)("a follow-up retried over %s after it completed the task answers the task and joins its history once", async (name) => {
    const parked = await parkedTask(t, newContext(`follow-up-${name}`));
    const followUp: Send = { text: "the answer", messageId: randomUUID(), taskId: parked.id };
    const first = await SENDERS[name](rootTarget(t), followUp);
    expect(first).toMatchObject({ taskId: parked.id, state: TaskState.COMPLETED });
    // The task is terminal now: a new message would be UnsupportedOperation, a retry is not.
    const retry = await SENDERS[name](rootTarget(t), followUp);
    expect(retry).toEqual(first);
    expect(await userMessageIds(t, parked.id)).toEqual([parked.messageId, followUp.messageId]);
  });

  it("follow-ups with one messageId racing over mixed bindings continue the task once", async () => {
    const parked = await parkedTask(t, newContext("follow-up-race"));
    const followUp: Send = { text: "the racing answer", messageId: randomUUID(), taskId: parked.id };
    const senders = Array.from({ length: 8 }, (_, i) => SENDER_NAMES[(i * 5) % SENDER_NAMES.length]!);
    const answers = await Promise.all(senders.map(async (name) => ({ name, outcome: await SENDERS[name](rootTarget(t), followUp) })));
    for (const a of answers) expect(a.outcome.taskId, `${a.name}`).toBe(parked.id);
    expect(await userMessageIds(t, parked.id)).toEqual([parked.messageId, followUp.messageId]);
    expect((await t.client("grpc").getTask({ id: parked.id })).status?.state).toBe(TaskState.COMPLETED);
  });
});

describe("tenants and agents", () => {
  const TOKENS = { t1: "idempotent-sends-tenant-one", t2: "idempotent-sends-tenant-two" } as const;
  type Tenant = keyof typeof TOKENS;
  const TENANT_SENDERS = ["grpc", "jsonrpc", "jsonrpc-v0.3", "rest", "rest-stream"] as const satisfies readonly SenderName[];
  let th: TestHub;

  beforeAll(async () => {
    th = await startTestHub({ ...modeOptions(), ...tenantHubOptions(TOKENS, [{ id: "alpha" }, { id: "beta" }]) });
  });
  afterAll(async () => {
    await th?.stop();
  });

  /** One tenant calling one agent: its own endpoints, its bearer token; gRPC only among the connect transports. */
  function tenantTarget(tenant: Tenant, agent: string): Target {
    const auth: Interceptor = (next) => (req) => {
      req.header.set("authorization", `Bearer ${TOKENS[tenant]}`);
      return next(req);
    };
    const grpc = createClient(A2AService, createGrpcTransport({ baseUrl: th.url.replace(/\/$/, ""), interceptors: [auth] }));
    const base = new URL(`v1/a2a/agents/${agent}`, th.url).href;
    return {
      rpcUrl: base,
      restBase: base,
      headers: { authorization: `Bearer ${TOKENS[tenant]}` },
      agent,
      client: (name) => {
        if (name !== "grpc") throw new Error(`tenant targets use gRPC only, not ${name}`);
        return grpc;
      },
    };
  }

  it.each(TENANT_SENDERS)("over %s, two tenants sending the same messageId each get their own task, and neither sees the other's", async (name) => {
    const send: Send = { text: "same words, same id", messageId: randomUUID() };
    const one = await SENDERS[name](tenantTarget("t1", "alpha"), send);
    const two = await SENDERS[name](tenantTarget("t2", "alpha"), send);
    expect(one).toMatchObject({ taskId: expect.any(String), state: TaskState.COMPLETED });
    expect(two).toMatchObject({ taskId: expect.any(String), state: TaskState.COMPLETED });
    expect(two.taskId).not.toBe(one.taskId);
    // Each tenant's retry still finds its own task.
    expect(await SENDERS[name](tenantTarget("t1", "alpha"), send)).toEqual(one);
    expect(await SENDERS[name](tenantTarget("t2", "alpha"), send)).toEqual(two);

    const c1 = await hubClient(hubCardOf(th.url, "alpha"), "grpc", { token: TOKENS.t1 });
    const c2 = await hubClient(hubCardOf(th.url, "alpha"), "grpc", { token: TOKENS.t2 });
    const listed1 = await listedIds(c1);
    const listed2 = await listedIds(c2);
    expect(listed1).toContain(one.taskId);
    expect(listed1).not.toContain(two.taskId);
    expect(listed2).toContain(two.taskId);
    expect(listed2).not.toContain(one.taskId);
    expect(await outcomeOf(() => c1.get(two.taskId!))).toBe("not-found");
    expect(await outcomeOf(() => c2.get(one.taskId!))).toBe("not-found");
    c1.close();
    c2.close();
  });

  it("a second tenant reusing another tenant's key with other text is not refused: the ledger is per tenant", async () => {
    const messageId = randomUUID();
    const one = await SENDERS.rest(tenantTarget("t1", "alpha"), { text: "tenant one's words", messageId });
    const two = await SENDERS.rest(tenantTarget("t2", "alpha"), { text: "tenant two's words", messageId });
    expect(two.state).toBe(TaskState.COMPLETED);
    expect(two.taskId).not.toBe(one.taskId);
  });

  it("one tenant sending the same messageId to two agents gets a task from each", async () => {
    const send: Send = { text: "to both agents", messageId: randomUUID() };
    const alpha = await SENDERS.grpc(tenantTarget("t1", "alpha"), send);
    const beta = await SENDERS.grpc(tenantTarget("t1", "beta"), send);
    expect(beta.state).toBe(TaskState.COMPLETED);
    expect(beta.taskId).not.toBe(alpha.taskId);
    expect(await SENDERS.jsonrpc(tenantTarget("t1", "beta"), send)).toEqual(beta);
    const overRest = await hubClient(hubCardOf(th.url, "beta"), "rest", { token: TOKENS.t1 });
    expect(await outcomeOf(() => overRest.get(alpha.taskId!))).toBe("not-found");
  });
});

describe("the ledger is durable", () => {
  it("after a restart on the same data, retries return the task and the direct reply the first process gave, and a changed message is judged alike", async () => {
    const dataDir = tempDataDir();
    let first: TestHub | undefined;
    let second: TestHub | undefined;
    try {
      first = await startTestHub({ ...modeOptions(), dataDir });
      const done: Send = { text: "remember me", messageId: randomUUID(), contextId: newContext("durable") };
      const reply: Send = { text: "message", messageId: randomUUID() };
      const inFlight: Send = { text: "slow 60000", messageId: randomUUID(), returnImmediately: true };
      const doneOutcome = await SENDERS.rest(rootTarget(first), done);
      const replyOutcome = await SENDERS.jsonrpc(rootTarget(first), reply);
      const inFlightOutcome = await SENDERS.grpc(rootTarget(first), inFlight);
      expect(doneOutcome.state).toBe(TaskState.COMPLETED);
      expect(replyOutcome.replyId).toEqual(expect.any(String));
      expect([TaskState.SUBMITTED, TaskState.WORKING]).toContain(inFlightOutcome.state);
      await first.stop();
      first = undefined;

      second = await startTestHub({ ...modeOptions(), dataDir });
      expect(await SENDERS.grpc(rootTarget(second), done)).toEqual(doneOutcome);
      expect(await SENDERS["jsonrpc-stream"](rootTarget(second), done)).toEqual(doneOutcome);
      expect(await SENDERS.rest(rootTarget(second), reply)).toEqual(replyOutcome);
      // The task the first process left working ended FAILED at the restart; its retry answers it, not a new run.
      expect(await SENDERS["jsonrpc-v0.3"](rootTarget(second), { ...inFlight, returnImmediately: false })).toEqual({ ...inFlightOutcome, state: TaskState.FAILED });
      expect(await taskCount(second)).toBe(2);
      if (mode === "idempotencyKey") {
        const refused = await refusal(SENDERS["connect-h2"](rootTarget(second), { ...done, text: "not what I said" }));
        expect(refused.fields).toEqual(["idempotency-key"]);
      } else {
        expect((await SENDERS["connect-h2"](rootTarget(second), { ...done, text: "not what I said" })).taskId).not.toBe(doneOutcome.taskId);
      }
    } finally {
      await first?.stop();
      await second?.stop();
      removeDir(dataDir);
    }
  });
});
});

describe("by default every send is a new message (§3.3.1 dedupe is a MAY)", () => {
  let d: TestHub;
  beforeAll(async () => {
    mode = "none";
    d = await startTestHub();
  });
  afterAll(async () => {
    await d?.stop();
  });

  it.each(SENDER_NAMES)("over %s, ten sends sharing one messageId, identical and different, are ten tasks", async (name) => {
    const contextId = newContext(`default-${name}`);
    const messageId = randomUUID();
    const outcomes: Outcome[] = [];
    for (let i = 0; i < 10; i++) {
      // Even sends repeat one message word for word; odd ones say something new under the same id.
      outcomes.push(await SENDERS[name](rootTarget(d), { text: i % 2 === 0 ? "the same words" : `words number ${i}`, messageId, contextId }));
    }
    for (const o of outcomes) expect(o).toEqual({ taskId: expect.any(String), contextId, state: TaskState.COMPLETED });
    expect(new Set(outcomes.map((o) => o.taskId)).size).toBe(10);
    expect(await tasksIn(d, contextId)).toHaveLength(10);
  });

  it("an Idempotency-Key still dedupes the one request that carries it, whatever the retries setting", async () => {
    const send: Send = { text: "keyed once", messageId: randomUUID() };
    const key = { "idempotency-key": `"${randomUUID()}"` };
    const first = await SENDERS.rest({ ...rootTarget(d), headers: key }, send);
    expect(await SENDERS.jsonrpc({ ...rootTarget(d), headers: key }, send)).toEqual(first);
    const unkeyed = await SENDERS.rest(rootTarget(d), send);
    expect(unkeyed.taskId).not.toBe(first.taskId);
  });
});

describe("an agent's own retries setting overrides the hub's (config agents[].retries)", () => {
  let off: TestHub;
  let on: TestHub;
  const agents = (retries: Partial<{ byMessageId: boolean }>) => [
    { id: "own", executor: new EchoAgent(), card: echoCard(), retries },
    { id: "hubs", executor: new EchoAgent(), card: echoCard() },
  ];
  beforeAll(async () => {
    mode = "none";
    // Hub-wide off, one agent opted in; and hub-wide on, one agent opted out.
    off = await startTestHub({ agents: agents({ byMessageId: true }) });
    on = await startTestHub({ retries: { byMessageId: true }, agents: agents({ byMessageId: false }) });
  });
  afterAll(async () => {
    await off?.stop();
    await on?.stop();
  });

  /** Sends one message twice to an agent's own endpoints; true when the resend answered the first task. */
  async function resendIsRetry(hub: TestHub, agent: string, name: SenderName): Promise<boolean> {
    const send: Send = { text: "said twice", messageId: randomUUID() };
    const first = await SENDERS[name](agentTarget(hub, agent), send);
    const second = await SENDERS[name](agentTarget(hub, agent), send);
    expect(first).toMatchObject({ taskId: expect.any(String), state: TaskState.COMPLETED });
    expect(second).toMatchObject({ taskId: expect.any(String), state: TaskState.COMPLETED });
    return second.taskId === first.taskId;
  }

  it.each(["grpc", "connect-h1", "jsonrpc", "jsonrpc-v0.3", "rest", "rest-stream"] as const)("over %s, the agent that opts in dedupes, its neighbour does not; and the reverse on a hub that opts in", async (name) => {
    expect(await resendIsRetry(off, "own", name)).toBe(true);
    expect(await resendIsRetry(off, "hubs", name)).toBe(false);
    expect(await resendIsRetry(on, "own", name)).toBe(false);
    expect(await resendIsRetry(on, "hubs", name)).toBe(true);
  });
});
