import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fromJson, toJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { A2AService, SendMessageRequestSchema, StreamResponseSchema, TaskState, type SendMessageRequest, type StreamResponse } from "../../gen/a2a/v1/a2a_pb.js";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { hashToken } from "../../src/auth/index.js";
import type { CoreLimits } from "../../src/core/index.js";
import { buildConfig, hubOptionsFromConfig, readConfigFile, type HubOptions } from "../../src/server/index.js";
import { expectA2AError, violatedFields } from "../helpers/errors.js";
import { userMessage } from "../helpers/json-messages.js";
import { openRpcStream, post, rpc } from "../helpers/jsonrpc-requests.js";
import { taskOf, textRequest } from "../helpers/messages.js";
import { expectStatusError, openStream, rest, violatedFields as restViolatedFields, type RestReply } from "../helpers/rest.js";
import { killAllServers, removeDir, sleep, spawnServer, tempDataDir } from "../helpers/server-process.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";

/**
 * "Limits with clear errors": every core limit set small through
 * HubOptions.limits; a request exactly at a limit is served, one over it is
 * refused on gRPC, JSON-RPC and REST with a protocol error naming
 * `limits.<key>`, and stores nothing. The transport limits (body size, JSON
 * depth) have their own files; here they are only set through the config
 * route, which must reach the running hub.
 */

/** The message limits of the open hub. */
const MESSAGE_LIMITS = { maxParts: 3, maxTextPartBytes: 16, maxMetadataBytes: 32, maxHistoryMessages: 2, pushConfigsPerTask: 2 } satisfies Partial<CoreLimits>;
/** The per-tenant limits of the hub with two tenants. */
const TENANT_LIMITS = { maxStreamsPerTenant: 2, maxTasksInFlightPerTenant: 2 } satisfies Partial<CoreLimits>;

const TOKENS = { t1: "limits-test-token-one", t2: "limits-test-token-two" } as const;
type Tenant = keyof typeof TOKENS;

const BINDINGS = ["grpc", "jsonrpc", "rest"] as const;
type Binding = (typeof BINDINGS)[number];

const ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo";
const BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest";

let open: TestHub;
let tenants: TestHub;
beforeAll(async () => {
  open = await startTestHub({ limits: MESSAGE_LIMITS, push: { allowPrivateNetworks: true } });
  tenants = await startTestHub({
    limits: TENANT_LIMITS,
    access: {
      tenants: [
        { tenant: "t1", tokenHashes: [hashToken(TOKENS.t1)] },
        { tenant: "t2", tokenHashes: [hashToken(TOKENS.t2)] },
      ],
      agentTenants: new Map(),
    },
  });
});
afterAll(async () => {
  await open?.stop();
  await tenants?.stop();
});

/** A fresh context id, so ListTasks can tell whether a request stored a task. */
const newContext = (what: string) => `limits-${what}-${randomUUID()}`;

/** Tasks the open hub holds in a context. */
async function tasksIn(contextId: string): Promise<string[]> {
  return (await open.client("grpc").listTasks({ contextId })).tasks.map((t) => t.id);
}

/** The fields a JSON-RPC error's google.rpc.BadRequest details name. */
function rpcViolatedFields(error: any): string[] {
  return (error?.data ?? []).filter((d: any) => d["@type"] === BAD_REQUEST).flatMap((d: any) => d.fieldViolations.map((v: any) => v.field));
}

/** Sends a ProtoJSON SendMessageRequest to the open hub over one binding; returns the stored task's state name. */
async function sendOn(binding: Binding, body: JsonObject): Promise<string> {
  if (binding === "grpc") {
    const task = taskOf(await open.client("grpc").sendMessage(fromJson(SendMessageRequestSchema, body)));
    return TaskState[task.status!.state];
  }
  if (binding === "jsonrpc") {
    const r = await post(open.url, rpc("SendMessage", body));
    expect(r.json.error, r.text).toBeUndefined();
    return String(r.json.result.task.status.state).replace(/^TASK_STATE_/, "");
  }
  const r = await rest(open.url, "POST", "/message:send", { body });
  expect(r.status, r.text).toBe(200);
  return String(r.json.task.status.state).replace(/^TASK_STATE_/, "");
}

/**
 * Expects the open hub to refuse `body` on every binding with InvalidParams
 * on `field`, the message naming `limits.<key>`.
 */
async function expectInvalidParamsEverywhere(body: () => JsonObject, field: string, key: keyof CoreLimits): Promise<void> {
  const named = `(limits.${key})`;
  const err = await expectA2AError(() => open.client("grpc").sendMessage(fromJson(SendMessageRequestSchema, body())), Code.InvalidArgument, "INVALID_PARAMS");
  expect(violatedFields(err)).toEqual([field]);
  expect(err.rawMessage).toContain(named);

  const r = await post(open.url, rpc("SendMessage", body()));
  expect(r.json.error, r.text).toMatchObject({ code: -32602, message: expect.stringContaining(named) });
  expect(r.json.result).toBeUndefined();
  expect(rpcViolatedFields(r.json.error)).toEqual([field]);

  const reply = await rest(open.url, "POST", "/message:send", { body: body() });
  expect(reply.status, reply.text).toBe(400);
  expect(reply.type).toBe("application/json");
  expect(reply.json.error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT", message: expect.stringContaining(named) });
  expect(restViolatedFields(reply)).toEqual([field]);
}

/** JSON metadata of exactly 32 bytes (`{"k":"…"}` is 8 + 24), or 33 when `over`. */
const metadataOf = (over: boolean): JsonObject => ({ k: "x".repeat(over ? 25 : 24) });

interface MessageLimitCase {
  readonly key: "maxParts" | "maxTextPartBytes" | "maxMetadataBytes";
  readonly what: string;
  /** The field a refusal names. */
  readonly field: string;
  /** A send in `contextId` exactly at the limit, or one over it. */
  readonly send: (contextId: string, over: boolean) => JsonObject;
}

const MESSAGE_CASES: MessageLimitCase[] = [
  {
    key: "maxParts",
    what: "the parts of one message",
    field: "message.parts",
    send: (contextId, over) => ({ message: userMessage("", { contextId, parts: Array.from({ length: MESSAGE_LIMITS.maxParts + (over ? 1 : 0) }, (_, i) => ({ text: `part ${i}` })) }) }),
  },
  {
    key: "maxTextPartBytes",
    // Eight two-byte characters are 16 bytes: counted in bytes, not characters.
    what: "the UTF-8 bytes of one text part",
    field: "message.parts[1].text",
    send: (contextId, over) => ({ message: userMessage("", { contextId, parts: [{ text: "ok" }, { text: "é".repeat(8) + (over ? "!" : "") }] }) }),
  },
  {
    key: "maxMetadataBytes",
    what: "the request's metadata",
    field: "metadata",
    send: (contextId, over) => ({ message: userMessage("hello", { contextId }), metadata: metadataOf(over) }),
  },
  {
    key: "maxMetadataBytes",
    what: "the message's metadata",
    field: "message.metadata",
    send: (contextId, over) => ({ message: userMessage("hello", { contextId, metadata: metadataOf(over) }) }),
  },
  {
    key: "maxMetadataBytes",
    what: "a part's metadata",
    field: "message.parts[0].metadata",
    send: (contextId, over) => ({ message: userMessage("hello", { contextId, parts: [{ text: "hello", metadata: metadataOf(over) }] }) }),
  },
];

describe.each(MESSAGE_CASES.map((c) => [`limits.${c.key} on ${c.what}`, c] as const))("%s", (_title, c) => {
  it("a send exactly at the limit is served on gRPC, JSON-RPC and REST", async () => {
    for (const binding of BINDINGS) {
      const contextId = newContext(`at-${c.key}-${binding}`);
      expect(await sendOn(binding, c.send(contextId, false)), binding).toBe("COMPLETED");
      expect(await tasksIn(contextId), binding).toHaveLength(1);
    }
  });

  it("a send one over is InvalidParams on gRPC, JSON-RPC and REST, naming the field and the limit, and stores no task", async () => {
    const contextId = newContext(`over-${c.key}`);
    await expectInvalidParamsEverywhere(() => c.send(contextId, true), c.field, c.key);
    expect(await tasksIn(contextId)).toEqual([]);
  });
});

describe("message limits on streaming sends", () => {
  it("SendStreamingMessage over the part limit is refused before any event, on gRPC, JSON-RPC and REST, and stores no task", async () => {
    const contextId = newContext("over-streaming");
    const body = () => MESSAGE_CASES[0]!.send(contextId, true);
    const err = await expectA2AError(
      async () => {
        for await (const _ of open.client("grpc").sendStreamingMessage(fromJson(SendMessageRequestSchema, body()))) break;
      },
      Code.InvalidArgument,
      "INVALID_PARAMS",
    );
    expect(err.rawMessage).toContain("(limits.maxParts)");
    const rpcStream = await openRpcStream(open.url, "SendStreamingMessage", body());
    expect(rpcStream.events).toBeUndefined();
    expect(rpcStream.json.error).toMatchObject({ code: -32602, message: expect.stringContaining("(limits.maxParts)") });
    const restStream = await openStream(open.url, "POST", "/message:stream", { body: body() });
    expect(restStream.events).toBeUndefined();
    expect(restStream.status).toBe(400);
    expect(restStream.json.error).toMatchObject({ status: "INVALID_ARGUMENT", message: expect.stringContaining("(limits.maxParts)") });
    expect(await tasksIn(contextId)).toEqual([]);
  });
});

describe("limits.maxHistoryMessages", () => {
  it("a task keeps every message up to the limit, then only its newest ones, on every binding's GetTask", async () => {
    const client = open.client("grpc");
    const first = taskOf(await client.sendMessage(textRequest("input-required")));
    expect(first.status?.state).toBe(TaskState.INPUT_REQUIRED);
    // At the limit: the user's message and the agent's question, both kept.
    const question = first.status!.message!;
    expect(first.history.map((m) => m.messageId)).toEqual([expect.any(String), question.messageId]);
    const userFirst = first.history[0]!.messageId;

    const followUp = textRequest("here is more", { taskId: first.id });
    const done = taskOf(await client.sendMessage(followUp));
    expect(done.status?.state).toBe(TaskState.COMPLETED);
    // Three messages for two places: the oldest (the first user message) is gone.
    const newest = [question.messageId, followUp.message!.messageId];
    expect(done.history.map((m) => m.messageId)).toEqual(newest);

    const grpcTask = await client.getTask({ id: first.id, historyLength: 10 });
    expect(grpcTask.history.map((m) => m.messageId), "gRPC").toEqual(newest);
    const rpcTask = await post(open.url, rpc("GetTask", { id: first.id, historyLength: 10 }));
    expect(rpcTask.json.result.history.map((m: any) => m.messageId), "JSON-RPC").toEqual(newest);
    const restTask = await rest(open.url, "GET", `/tasks/${first.id}?historyLength=10`);
    expect(restTask.json.history.map((m: any) => m.messageId), "REST").toEqual(newest);
    expect(newest).not.toContain(userFirst);
  });
});

describe("limits.pushConfigsPerTask", () => {
  const hook = (n: number) => `http://127.0.0.1:9/hook-${n}`;

  it("a task takes configs up to the limit (and a replacement at it); one more is InvalidParams on every binding naming the limit, and is not stored", async () => {
    const client = open.client("grpc");
    const taskId = taskOf(await client.sendMessage(textRequest("input-required"))).id;
    const created = [];
    for (let i = 0; i < MESSAGE_LIMITS.pushConfigsPerTask; i++) created.push(await client.createTaskPushNotificationConfig({ taskId, url: hook(i) }));
    // Replacing a config the task holds is not one more.
    const replaced = await client.createTaskPushNotificationConfig({ taskId, id: created[0]!.id, url: hook(99) });
    expect(replaced.url).toBe(hook(99));

    const grpcErr = await expectA2AError(() => client.createTaskPushNotificationConfig({ taskId, url: hook(100) }), Code.InvalidArgument, "INVALID_PARAMS");
    const rpcReply = await post(open.url, rpc("CreateTaskPushNotificationConfig", { taskId, url: hook(101) }));
    const restReply = await rest(open.url, "POST", `/tasks/${taskId}/pushNotificationConfigs`, { body: { url: hook(102) } });
    expect(violatedFields(grpcErr)).toEqual(["taskId"]);
    expect(rpcReply.json.error, rpcReply.text).toMatchObject({ code: -32602 });
    expect(rpcViolatedFields(rpcReply.json.error)).toEqual(["taskId"]);
    expect(restReply.status, restReply.text).toBe(400);
    expect(restReply.json.error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
    expect(restViolatedFields(restReply)).toEqual(["taskId"]);
    const listed = await client.listTaskPushNotificationConfigs({ taskId });
    expect(listed.configs.map((c) => c.url).sort()).toEqual([hook(1), hook(99)]);

    // The refusal names the limit's key, like every other limit's.
    expect(grpcErr.rawMessage).toContain("(limits.pushConfigsPerTask)");
    expect(rpcReply.json.error.message).toContain("(limits.pushConfigsPerTask)");
    expect(restReply.json.error.message).toContain("(limits.pushConfigsPerTask)");
  });
});

// ---------------------------------------------------------------------------
// Per-tenant limits: a hub with two tenants.

/** A gRPC client of the two-tenant hub, authenticated as `tenant`. */
function grpcAs(tenant: Tenant): Client<typeof A2AService> {
  return createClient(
    A2AService,
    createGrpcTransport({
      baseUrl: tenants.url.replace(/\/$/, ""),
      interceptors: [
        (next) => (req) => {
          req.header.set("authorization", `Bearer ${TOKENS[tenant]}`);
          return next(req);
        },
      ],
    }),
  );
}

const authOf = (tenant: Tenant) => ({ authorization: `Bearer ${TOKENS[tenant]}` });

/** Expects gRPC ResourceExhausted whose ErrorInfo and message name `limits.<key>`. */
async function expectLimitReachedGrpc(fn: () => Promise<unknown>, key: keyof typeof TENANT_LIMITS): Promise<void> {
  const err = await expectA2AError(fn, Code.ResourceExhausted, "RESOURCE_EXHAUSTED");
  expect(err.findDetails(ErrorInfoSchema)[0]!.metadata).toEqual({ limit: key, value: String(TENANT_LIMITS[key]) });
  expect(err.rawMessage).toContain(`at most ${TENANT_LIMITS[key]}`);
  expect(err.rawMessage).toContain(`(limits.${key})`);
}

/** Expects a JSON-RPC error body -32000 whose message and ErrorInfo name `limits.<key>`. */
function expectLimitReachedJsonRpc(json: any, key: keyof typeof TENANT_LIMITS): void {
  expect(json?.error, JSON.stringify(json)).toMatchObject({ code: -32000, message: expect.stringContaining(`(limits.${key})`) });
  expect(json.result).toBeUndefined();
  expect(json.error.data).toEqual([
    { "@type": ERROR_INFO, reason: "RESOURCE_EXHAUSTED", domain: "a2a-protocol.org", metadata: { limit: key, value: String(TENANT_LIMITS[key]) } },
  ]);
}

/** Expects REST 429 with a google.rpc.Status RESOURCE_EXHAUSTED body whose message names `limits.<key>`. */
function expectLimitReachedRest(r: { status: number; type: string; json?: any; text?: string }, key: keyof typeof TENANT_LIMITS): void {
  expectStatusError({ text: JSON.stringify(r.json), ...r } as RestReply, 429, "RESOURCE_EXHAUSTED", "RESOURCE_EXHAUSTED");
  expect(r.json.error.message).toContain(`(limits.${key})`);
}

/** A task of `tenant` waiting for input: something to subscribe to that stays open. */
async function waitingTask(tenant: Tenant): Promise<string> {
  const task = taskOf(await grpcAs(tenant).sendMessage(textRequest("input-required")));
  expect(task.status?.state).toBe(TaskState.INPUT_REQUIRED);
  return task.id;
}

/** A stream held open after its first event; `close` ends it from the client's side. */
interface HeldStream {
  readonly first: StreamResponse;
  close(): void;
}

/** Subscribes over gRPC and reads the first event (the server has counted the stream by then). */
async function holdGrpcSubscription(client: Client<typeof A2AService>, id: string): Promise<HeldStream> {
  const abort = new AbortController();
  const events = client.subscribeToTask({ id }, { signal: abort.signal })[Symbol.asyncIterator]();
  const first = await events.next();
  if (first.done) throw new Error("the subscription ended before its first event");
  return { first: first.value, close: () => abort.abort() };
}

/** Subscribes over REST (SSE) and reads the first event. */
async function holdRestSubscription(tenant: Tenant, id: string): Promise<HeldStream> {
  const s = await openStream(tenants.url, "POST", `/tasks/${id}:subscribe`, { headers: authOf(tenant) });
  if (!s.events) throw new Error(`REST subscribe was refused: ${JSON.stringify(s.json)}`);
  const first = await s.events.next();
  if (first.done) throw new Error("the subscription ended before its first event");
  return { first: fromJson(StreamResponseSchema, first.value.data), close: () => s.abort.abort() };
}

/** Reads a gRPC subscription's first event and leaves; throws its refusal. */
async function firstGrpcEvent(client: Client<typeof A2AService>, id: string): Promise<void> {
  for await (const _ of client.subscribeToTask({ id })) break;
}

/** Retries `fn` while it is refused with ResourceExhausted: a slot freed by a client is released when the server sees the stream end. */
async function onceAccepted<T>(fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    try {
      return await fn();
    } catch (e) {
      if (!(e instanceof ConnectError) || e.code !== Code.ResourceExhausted || Date.now() > deadline) throw e;
      await sleep(25);
    }
  }
}

describe("limits.maxStreamsPerTenant", () => {
  it("the stream past the limit is ResourceExhausted on gRPC, JSON-RPC and REST naming the limit; another tenant is unaffected; closing one frees exactly one slot", async () => {
    const t1 = grpcAs("t1");
    const t2 = grpcAs("t2");
    const mine = await waitingTask("t1");
    const theirs = await waitingTask("t2");
    const held: HeldStream[] = [];
    try {
      // At the limit: two streams, over two bindings, both served.
      held.push(await holdGrpcSubscription(t1, mine));
      held.push(await holdRestSubscription("t1", mine));
      for (const h of held) expect(h.first.payload.case === "task" && h.first.payload.value.id).toBe(mine);

      await expectLimitReachedGrpc(() => firstGrpcEvent(t1, mine), "maxStreamsPerTenant");
      const rpcSub = await openRpcStream(tenants.url, "SubscribeToTask", { id: mine }, { headers: authOf("t1") });
      expect(rpcSub.events).toBeUndefined();
      expectLimitReachedJsonRpc(rpcSub.json, "maxStreamsPerTenant");
      const restSub = await openStream(tenants.url, "POST", `/tasks/${mine}:subscribe`, { headers: authOf("t1") });
      expect(restSub.events).toBeUndefined();
      expectLimitReachedRest(restSub, "maxStreamsPerTenant");

      // A streaming send is a stream too: refused before it makes a task.
      const contextId = newContext("over-streams");
      const rpcSend = await openRpcStream(tenants.url, "SendStreamingMessage", { message: userMessage("hello", { contextId }) }, { headers: authOf("t1") });
      expectLimitReachedJsonRpc(rpcSend.json, "maxStreamsPerTenant");
      expect((await t1.listTasks({ contextId })).tasks).toEqual([]);

      // The other tenant's streams are its own.
      const other = await holdGrpcSubscription(t2, theirs);
      held.push(other);
      expect(other.first.payload.case === "task" && other.first.payload.value.id).toBe(theirs);

      // Closing one of t1's frees one slot, not more.
      held[0]!.close();
      held.push(await onceAccepted(() => holdGrpcSubscription(t1, mine)));
      await expectLimitReachedGrpc(() => firstGrpcEvent(t1, mine), "maxStreamsPerTenant");
    } finally {
      for (const h of held) h.close();
    }
  });
});

/** Polls GetTask until the task reaches `state`. */
async function waitForState(client: Client<typeof A2AService>, id: string, state: TaskState): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const task = await client.getTask({ id, historyLength: 0 });
    if (task.status?.state === state) return;
    if (Date.now() > deadline) throw new Error(`task ${id} is ${TaskState[task.status?.state ?? 0]}, not ${TaskState[state]}`);
    await sleep(50);
  }
}

describe("limits.maxTasksInFlightPerTenant", () => {
  it("with the limit of slow tasks running, the next send is ResourceExhausted on gRPC, JSON-RPC and REST naming the limit and stores nothing; another tenant is unaffected; once one finishes the same send is served", async () => {
    const t1 = grpcAs("t1");
    const running = { returnImmediately: true };
    const long = taskOf(await t1.sendMessage(textRequest("slow 600000", { configuration: running })));
    try {
      const short = taskOf(await t1.sendMessage(textRequest("slow 2000", { configuration: running })));
      expect([long.status?.state, short.status?.state]).toEqual([TaskState.WORKING, TaskState.WORKING]);

      // One request, refused over each binding: a refusal records nothing, not even its messageId.
      const contextId = newContext("over-in-flight");
      const refused: SendMessageRequest = textRequest("hello", { contextId });
      const refusedJson = toJson(SendMessageRequestSchema, refused) as JsonValue;
      await expectLimitReachedGrpc(() => t1.sendMessage(refused), "maxTasksInFlightPerTenant");
      const rpcReply = await post(tenants.url, rpc("SendMessage", refusedJson), authOf("t1"));
      expectLimitReachedJsonRpc(rpcReply.json, "maxTasksInFlightPerTenant");
      expectLimitReachedRest(await rest(tenants.url, "POST", "/message:send", { body: refusedJson, headers: authOf("t1") }), "maxTasksInFlightPerTenant");
      expect((await t1.listTasks({ contextId })).tasks).toEqual([]);

      // The other tenant's runs are counted apart.
      expect(taskOf(await grpcAs("t2").sendMessage(textRequest("hello"))).status?.state).toBe(TaskState.COMPLETED);

      await waitForState(t1, short.id, TaskState.COMPLETED);
      const served = taskOf(await t1.sendMessage(refused));
      expect(served.contextId).toBe(contextId);
      expect(served.status?.state).toBe(TaskState.COMPLETED);
      expect((await t1.listTasks({ contextId })).tasks.map((t) => t.id)).toEqual([served.id]);
    } finally {
      await t1.cancelTask({ id: long.id });
    }
  });
});

// ---------------------------------------------------------------------------
// The config route: the limits: section and A2A_HUB_LIMIT_* reach the hub.

/** `{"a":{"a":…1…}}`: `levels` nested objects. */
const nestedObjects = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
/** A JSON-RPC SendMessage nested exactly `depth` levels (envelope, params and metadata are three). */
const rpcBodyOfDepth = (depth: number) => JSON.stringify(rpc("SendMessage", { message: userMessage("hello"), metadata: "@" })).replace('"@"', `{"a":${nestedObjects(depth - 3)}}`);
/** A REST send nested exactly `depth` levels (body and metadata are two). */
const restBodyOfDepth = (depth: number) => JSON.stringify({ message: userMessage("hello"), metadata: "@" }).replace('"@"', `{"a":${nestedObjects(depth - 2)}}`);
/** A JSON-RPC SendMessage of more than `bytes` bytes. */
const rpcBodyOver = (bytes: number) => JSON.stringify(rpc("SendMessage", { message: userMessage("x".repeat(bytes)) }));
/** A send with `n` text parts. */
const partsRequest = (n: number) => fromJson(SendMessageRequestSchema, { message: userMessage("", { parts: Array.from({ length: n }, (_, i) => ({ text: `p${i}` })) }) });

const configDir = mkdtempSync(join(tmpdir(), "a2a-hub-limits-"));
afterAll(() => rmSync(configDir, { recursive: true, force: true }));

/** A config file with a limits: section. */
function configFile(name: string, limits: string): string {
  const file = join(configDir, name);
  writeFileSync(file, `agents:\n  - id: echo\n    kind: echo\nlimits:\n${limits}`);
  return file;
}

describe("limits set through the configuration", () => {
  const BODY = 4096;
  const DEPTH = 8;
  let configured: TestHub | undefined;
  afterEach(async () => {
    await configured?.stop();
    configured = undefined;
    await killAllServers();
  });

  it("the limits: section and A2A_HUB_LIMIT_* (which wins over the file) reach a hub built by hubOptionsFromConfig: body size, JSON depth and parts are enforced", async () => {
    const file = configFile("hub.yaml", `  maxBodyBytes: ${BODY}\n  maxJsonDepth: ${DEPTH}\n  maxParts: 5\n`);
    const source = readConfigFile(file);
    const { dataDir: _dataDir, port: _port, host: _host, ...options }: HubOptions = hubOptionsFromConfig(buildConfig(source, { A2A_HUB_LIMIT_MAX_PARTS: "2" }), source);
    configured = await startTestHub(options);
    const url = configured.url;

    // maxBodyBytes: under it served, over it refused on JSON-RPC, REST and gRPC.
    const small = await post(url, rpcBodyOver(BODY / 2));
    expect(small.json.result?.task?.status?.state, small.text).toBe("TASK_STATE_COMPLETED");
    const big = await post(url, rpcBodyOver(BODY));
    expect(big.json).toMatchObject({ id: null, error: { code: -32600, message: expect.stringContaining("(limits.maxBodyBytes)") } });
    expect(big.json.error.message).toContain(String(BODY));
    const bigRest = await rest(url, "POST", "/message:send", { body: { message: userMessage("x".repeat(BODY)) } });
    expect(bigRest.status, bigRest.text).toBe(413);
    const grpcErr = await configured
      .client("grpc")
      .sendMessage(textRequest("x".repeat(BODY)))
      .then(
        () => undefined,
        (e: unknown) => ConnectError.from(e),
      );
    expect(grpcErr?.code).toBe(Code.ResourceExhausted);
    expect(grpcErr?.rawMessage).toContain(String(BODY));

    // maxJsonDepth: at it served, one more refused on JSON-RPC and REST.
    expect((await post(url, rpcBodyOfDepth(DEPTH))).json.result?.task).toBeDefined();
    const deep = await post(url, rpcBodyOfDepth(DEPTH + 1));
    expect(deep.json).toMatchObject({ id: 1, error: { code: -32600, message: expect.stringContaining(`limit of ${DEPTH} (limits.maxJsonDepth)`) } });
    expect((await rest(url, "POST", "/message:send", { raw: restBodyOfDepth(DEPTH) })).status).toBe(200);
    const deepRest = await rest(url, "POST", "/message:send", { raw: restBodyOfDepth(DEPTH + 1) });
    expectStatusError(deepRest, 400, "INVALID_ARGUMENT");
    expect(deepRest.json.error.message).toContain(`limit of ${DEPTH} (limits.maxJsonDepth)`);

    // maxParts: the variable's 2, not the file's 5.
    expect(taskOf(await configured.client("grpc").sendMessage(partsRequest(2))).status?.state).toBe(TaskState.COMPLETED);
    const parts = await expectA2AError(() => configured!.client("grpc").sendMessage(partsRequest(3)), Code.InvalidArgument, "INVALID_PARAMS");
    expect(parts.rawMessage).toContain("limit of 2 (limits.maxParts)");
  });

  it("the served hub (npm start with A2A_HUB_CONFIG and A2A_HUB_LIMIT_*) enforces the file's and the variables' limits", async () => {
    const file = configFile("served.yaml", `  maxJsonDepth: ${DEPTH}\n  maxParts: 5\n`);
    const dataDir = tempDataDir();
    try {
      const server = await spawnServer(dataDir, {
        env: { A2A_HUB_CONFIG: file, A2A_HUB_LIMIT_MAX_PARTS: "2", A2A_HUB_LIMIT_MAX_BODY_BYTES: String(BODY) },
      });
      // From the file.
      const deep = await post(server.url, rpcBodyOfDepth(DEPTH + 1));
      expect(deep.json?.error?.message, deep.text).toContain(`limit of ${DEPTH} (limits.maxJsonDepth)`);
      expect((await post(server.url, rpcBodyOfDepth(DEPTH))).json.result?.task).toBeDefined();
      // From the environment.
      const big = await post(server.url, rpcBodyOver(BODY));
      expect(big.json?.error?.message, big.text).toContain("(limits.maxBodyBytes)");
      const parts = await expectA2AError(() => server.client("grpc").sendMessage(partsRequest(3)), Code.InvalidArgument, "INVALID_PARAMS");
      expect(parts.rawMessage).toContain("limit of 2 (limits.maxParts)");
      expect(taskOf(await server.client("grpc").sendMessage(partsRequest(2))).status?.state).toBe(TaskState.COMPLETED);
    } finally {
      await killAllServers();
      removeDir(dataDir);
    }
  });
});
