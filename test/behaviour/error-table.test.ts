import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { AgentCardSchema, PartSchema } from "../../gen/a2a/v1/a2a_pb.js";
import { BadRequestSchema, ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { EchoAgent, echoCard } from "../../src/agents/index.js";
import { A2AError, ERROR_TABLE, silentLogger, type A2AErrorName } from "../../src/core/index.js";
import { toConnectError } from "../../src/bindings/rpc/index.js";
import { toJsonRpcError } from "../../src/bindings/jsonrpc/index.js";
import { grpcStatusName, problemBody, statusBody, toRestFailure } from "../../src/bindings/rest/index.js";
import { expectA2AError } from "../helpers/errors.js";
import { v03Message } from "../helpers/json-messages.js";
import { openRpcStream, post, rpc } from "../helpers/jsonrpc-requests.js";
import { collect, textRequest } from "../helpers/messages.js";
import { dataEvents, type SseStream } from "../helpers/sse.js";
import { openStream, rest, sendText, userMessage } from "../helpers/rest.js";
import { A2A_SPECIFIC, SPEC_ERRORS, upperSnake } from "../helpers/spec-errors.js";
import { tenantHubOptions } from "../helpers/tenant-hub.js";
import { startTestHub, type TestHub, type TransportName } from "../helpers/test-hub.js";

const SPEC = SPEC_ERRORS;

const errorInfos = (details: unknown) => (Array.isArray(details) ? details : []).filter((d) => d?.["@type"] === "type.googleapis.com/google.rpc.ErrorInfo");

describe("one table maps every A2A error on all three bindings (§5.4)", () => {
  it("has exactly the rows the spec names", () => {
    expect(Object.keys(ERROR_TABLE).sort()).toEqual(Object.keys(SPEC).sort());
  });

  describe.each(Object.keys(SPEC) as A2AErrorName[])("%s", (name) => {
    const spec = SPEC[name];
    const row = ERROR_TABLE[name];
    const violations = name === "InvalidParams" || name === "ContentTypeNotSupported" ? [{ field: "message.parts[0]", description: "is wrong" }] : [];
    const error = () => new A2AError(name, `a ${name}`, { metadata: { taskId: "t-1" }, violations });

    it("has the spec's codes and an UPPER_SNAKE reason", () => {
      expect(row.reason).toBe(upperSnake(name));
      expect(row.jsonRpcCode).toBe(spec.jsonRpc);
      expect(grpcStatusName(row.grpcCode)).toBe(spec.grpc);
      expect(row.httpStatus).toBe(spec.http);
    });

    it("Connect/gRPC: the status code with an ErrorInfo (§10.6)", () => {
      const e = toConnectError(error(), silentLogger);
      expect(e).toBeInstanceOf(ConnectError);
      expect(grpcStatusName(e.code)).toBe(spec.grpc);
      if (A2A_SPECIFIC.includes(name)) {
        expect(e.findDetails(ErrorInfoSchema).map((i) => [i.reason, i.domain, i.metadata.taskId])).toEqual([[row.reason, "a2a-protocol.org", "t-1"]]);
      }
      if (violations.length > 0) expect(e.findDetails(BadRequestSchema)[0]!.fieldViolations.map((v) => v.field)).toEqual(["message.parts[0]"]);
    });

    it("JSON-RPC: the error code with the details in data (§9.5)", () => {
      const e = toJsonRpcError(error(), silentLogger);
      expect(e.code).toBe(spec.jsonRpc);
      if (A2A_SPECIFIC.includes(name)) {
        expect(errorInfos(e.data)).toEqual([{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: row.reason, domain: "a2a-protocol.org", metadata: { taskId: "t-1" } }]);
      }
      if (name === "InvalidParams") expect(e.data).toEqual([expect.objectContaining({ "@type": "type.googleapis.com/google.rpc.BadRequest" })]);
    });

    it("HTTP+JSON: the HTTP status with a google.rpc.Status body (§11.6), or problem details", () => {
      const f = toRestFailure(error(), silentLogger);
      expect(f.httpStatus).toBe(spec.http);
      const body = statusBody(f) as any;
      expect(body.error).toMatchObject({ code: spec.http, status: spec.grpc, message: expect.any(String) });
      if (A2A_SPECIFIC.includes(name)) {
        expect(errorInfos(body.error.details)).toEqual([{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: row.reason, domain: "a2a-protocol.org", metadata: { taskId: "t-1" } }]);
      }
      expect(problemBody(f)).toMatchObject({ type: `https://a2a-protocol.org/errors/${row.reason.toLowerCase().replaceAll("_", "-")}`, status: spec.http, reason: row.reason });
    });
  });

  it("maps an unexpected exception to Internal everywhere, without its message", () => {
    const boom = new Error("secret at /srv/x.ts:1");
    expect(toConnectError(boom, silentLogger).code).toBe(Code.Internal);
    expect(toJsonRpcError(boom, silentLogger)).toEqual({ code: -32603, message: "Internal error" });
    const f = toRestFailure(boom, silentLogger);
    expect(statusBody(f)).toEqual({ error: { code: 500, status: "INTERNAL", message: "Internal error", details: [] } });
  });
});

// ---------------------------------------------------------------------------
// End to end: real errors from one hub, over gRPC, JSON-RPC and REST alike.

/** A card with one capability changed. */
function cardWith(capabilities: { extendedAgentCard?: boolean; pushNotifications?: boolean; extensions?: Array<{ uri: string; required: boolean }> }) {
  const { $typeName: _, capabilities: base, ...card } = echoCard();
  const { $typeName: __, ...caps } = base!;
  return create(AgentCardSchema, { ...card, capabilities: { ...caps, ...capabilities } });
}

/** An agent that answers nothing at all: its first event never comes (§3.3.2 InvalidAgentResponse). */
const silent = { execute: async () => {} };

const SEND_ONLY = "acme-send-only-token";
let t: TestHub;
let required: TestHub;
let limited: TestHub;
let guarded: TestHub;
let scoped: TestHub;
let completedId = "";
let pushlessTaskId = "";
beforeAll(async () => {
  // One hub, several agents picked by the request's tenant (§8.3.2), so each binding reaches each case.
  t = await startTestHub({
    agents: [
      { id: "echo", executor: new EchoAgent(), card: echoCard() },
      { id: "pushless", executor: new EchoAgent(), card: echoCard({ pushNotifications: false }) },
      { id: "extended", executor: new EchoAgent(), card: cardWith({ extendedAgentCard: true }) },
      { id: "silent", executor: silent, card: echoCard() },
    ],
  });
  // Extension negotiation reads the endpoint's card, the default agent's: a hub of its own.
  required = await startTestHub({ agents: [{ id: "echo", executor: new EchoAgent(), card: cardWith({ extensions: [{ uri: "urn:x:required", required: true }] }) }] });
  // One run in flight per tenant, taken by a long task: the next send finds the limit reached.
  limited = await startTestHub({ limits: { maxTasksInFlightPerTenant: 1 } });
  // Tenants configured: a call without a token is refused before any service code runs (§7.4).
  guarded = await startTestHub(tenantHubOptions({ acme: "acme-error-table-token" }, [{ id: "echo" }]));
  // A token that may send but not read (§7.5): reading is refused after authentication.
  scoped = await startTestHub(tenantHubOptions({ acme: SEND_ONLY }, [{ id: "echo" }], { acme: ["a2a.send"] }));
  await limited.client("grpc").sendMessage(textRequest("slow 60000", { configuration: { returnImmediately: true } }));
  completedId = (await sendText(t.url, "done")).id;
  pushlessTaskId = (await sendText(t.url, "input-required", { prefix: "/pushless" })).id;
});
afterAll(async () => {
  await t.stop();
  await required.stop();
  await limited.stop();
  await guarded.stop();
  await scoped.stop();
});

/** One A2A error provoked over each binding. */
interface Provocation {
  readonly error: A2AErrorName;
  readonly why: string;
  readonly hub?: () => TestHub;
  /** The service call over gRPC, Connect or gRPC-Web. */
  readonly grpc: (hub: TestHub, transport: TransportName) => Promise<unknown>;
  readonly jsonRpc: { method: string; params: () => unknown; headers?: Record<string, string> };
  readonly rest: { method: string; path: () => string; body?: () => unknown; headers?: Record<string, string> };
}

const pngMessage = () => ({ messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ raw: "AQI=", mediaType: "image/png" }] });

const PROVOCATIONS: Provocation[] = [
  {
    error: "TaskNotFound",
    why: "GetTask of an unknown id",
    grpc: (h, tr) => h.client(tr).getTask({ tenant: "echo", id: "no-such-task" }),
    jsonRpc: { method: "GetTask", params: () => ({ id: "no-such-task" }) },
    rest: { method: "GET", path: () => "/tasks/no-such-task" },
  },
  {
    error: "AgentNotFound",
    why: "GetTask addressed to an agent this hub does not host",
    grpc: (h, tr) => h.client(tr).getTask({ tenant: "nobody", id: "any" }),
    jsonRpc: { method: "GetTask", params: () => ({ tenant: "nobody", id: "any" }) },
    rest: { method: "GET", path: () => "/nobody/tasks/any" },
  },
  {
    error: "TaskNotCancelable",
    why: "CancelTask of a completed task",
    grpc: (h, tr) => h.client(tr).cancelTask({ tenant: "echo", id: completedId }),
    jsonRpc: { method: "CancelTask", params: () => ({ id: completedId }) },
    rest: { method: "POST", path: () => `/tasks/${completedId}:cancel` },
  },
  {
    error: "UnsupportedOperation",
    why: "a message to a completed task",
    grpc: (h, tr) => h.client(tr).sendMessage({ ...textRequest("again", { taskId: completedId }), tenant: "echo" }),
    jsonRpc: { method: "SendMessage", params: () => ({ message: userMessage("again", { taskId: completedId }) }) },
    rest: { method: "POST", path: () => "/message:send", body: () => ({ message: userMessage("again", { taskId: completedId }) }) },
  },
  {
    error: "UnsupportedOperation",
    why: "GetExtendedAgentCard when the card does not declare one",
    grpc: (h, tr) => h.client(tr).getExtendedAgentCard({ tenant: "echo" }),
    jsonRpc: { method: "GetExtendedAgentCard", params: () => ({}) },
    rest: { method: "GET", path: () => "/extendedAgentCard" },
  },
  {
    error: "PushNotificationNotSupported",
    why: "push configs of an agent whose card has pushNotifications false",
    grpc: (h, tr) => h.client(tr).listTaskPushNotificationConfigs({ tenant: "pushless", taskId: pushlessTaskId }),
    jsonRpc: { method: "ListTaskPushNotificationConfigs", params: () => ({ tenant: "pushless", taskId: pushlessTaskId }) },
    rest: { method: "GET", path: () => `/pushless/tasks/${pushlessTaskId}/pushNotificationConfigs` },
  },
  {
    error: "ExtendedAgentCardNotConfigured",
    why: "GetExtendedAgentCard declared but not configured",
    grpc: (h, tr) => h.client(tr).getExtendedAgentCard({ tenant: "extended" }),
    jsonRpc: { method: "GetExtendedAgentCard", params: () => ({ tenant: "extended" }) },
    rest: { method: "GET", path: () => "/extended/extendedAgentCard" },
  },
  {
    error: "ContentTypeNotSupported",
    why: "a part of a media type the agent does not accept",
    grpc: (h, tr) => {
      const req = { ...textRequest("x"), tenant: "echo" };
      req.message!.parts = [create(PartSchema, { content: { case: "raw", value: new Uint8Array([1, 2]) }, mediaType: "image/png" })];
      return h.client(tr).sendMessage(req);
    },
    jsonRpc: { method: "SendMessage", params: () => ({ message: pngMessage() }) },
    rest: { method: "POST", path: () => "/message:send", body: () => ({ message: pngMessage() }) },
  },
  {
    error: "InvalidAgentResponse",
    why: "an agent that finishes without answering",
    grpc: (h, tr) => h.client(tr).sendMessage({ ...textRequest("hello?"), tenant: "silent" }),
    jsonRpc: { method: "SendMessage", params: () => ({ tenant: "silent", message: userMessage("hello?") }) },
    rest: { method: "POST", path: () => "/silent/message:send", body: () => ({ message: userMessage("hello?") }) },
  },
  {
    error: "InvalidParams",
    why: "a negative historyLength",
    grpc: (h, tr) => h.client(tr).getTask({ id: completedId, historyLength: -1 }),
    jsonRpc: { method: "GetTask", params: () => ({ id: completedId, historyLength: -1 }) },
    rest: { method: "GET", path: () => `/tasks/${completedId}?historyLength=-1` },
  },
  {
    error: "VersionNotSupported",
    why: "A2A-Version 9.9",
    grpc: (h, tr) => h.client(tr).getTask({ id: completedId }, { headers: { "A2A-Version": "9.9" } }),
    jsonRpc: { method: "GetTask", params: () => ({ id: completedId }), headers: { "A2A-Version": "9.9" } },
    rest: { method: "GET", path: () => `/tasks/${completedId}`, headers: { "A2A-Version": "9.9" } },
  },
  {
    error: "ExtensionSupportRequired",
    why: "a call without the card's required extension",
    hub: () => required,
    grpc: (h, tr) => h.client(tr).listTasks({}),
    jsonRpc: { method: "ListTasks", params: () => ({}) },
    rest: { method: "GET", path: () => "/tasks" },
  },
  {
    error: "ResourceExhausted",
    why: "a send while the tenant's runs in flight are at limits.maxTasksInFlightPerTenant",
    hub: () => limited,
    grpc: (h, tr) => h.client(tr).sendMessage(textRequest("one too many")),
    jsonRpc: { method: "SendMessage", params: () => ({ message: userMessage("one too many") }) },
    rest: { method: "POST", path: () => "/message:send", body: () => ({ message: userMessage("one too many") }) },
  },
  {
    error: "Unauthenticated",
    why: "a call without a bearer token on a hub with tenants",
    hub: () => guarded,
    grpc: (h, tr) => h.client(tr).getTask({ id: "any" }),
    jsonRpc: { method: "GetTask", params: () => ({ id: "any" }) },
    rest: { method: "GET", path: () => "/tasks/any" },
  },
  {
    error: "PermissionDenied",
    why: "a GetTask with a token that holds a2a.send only",
    hub: () => scoped,
    grpc: (h, tr) => h.client(tr).getTask({ id: "any" }, { headers: { authorization: `Bearer ${SEND_ONLY}` } }),
    jsonRpc: { method: "GetTask", params: () => ({ id: "any" }), headers: { authorization: `Bearer ${SEND_ONLY}` } },
    rest: { method: "GET", path: () => "/tasks/any", headers: { authorization: `Bearer ${SEND_ONLY}` } },
  },
];

describe("the end-to-end walk covers the table", () => {
  it("provokes every row of ERROR_TABLE except Internal (which no well-formed request can reach) and Unavailable (a stopped database: the PostgreSQL outage test)", () => {
    const provoked = new Set(PROVOCATIONS.map((p) => p.error));
    expect((Object.keys(ERROR_TABLE) as A2AErrorName[]).filter((n) => !provoked.has(n))).toEqual(["Unavailable", "Internal"]);
  });
});

describe("a request body that is not JSON is ContentTypeNotSupported, judged before the body is read (§9.1, §11.1)", () => {
  const row = ERROR_TABLE.ContentTypeNotSupported;
  it.each(["text/plain", "application/x-www-form-urlencoded", "application/xml; charset=utf-8"])("JSON-RPC with Content-Type %s: -32005 with id null", async (type) => {
    const res = await fetch(t.url, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "GetTask", params: { id: completedId } }), headers: { "content-type": type } });
    expect(res.status).toBe(200);
    const json = (await res.json()) as any;
    expect(json).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32005 } });
    expect(errorInfos(json.error.data).map((i) => i.reason)).toEqual([row.reason]);
  });

  it.each(["text/plain", "application/x-www-form-urlencoded", "application/xml; charset=utf-8"])("REST with Content-Type %s: 400 with a google.rpc.Status body", async (type) => {
    const r = await rest(t.url, "POST", "/message:send", { body: { message: userMessage("hi") }, headers: { "content-type": type } });
    expect(r.status, r.text).toBe(400);
    expect(r.json.error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
    expect(errorInfos(r.json.error.details).map((i) => i.reason)).toEqual([row.reason]);
  });

  it("application/json, application/a2a+json and no Content-Type at all are read as JSON", async () => {
    for (const headers of [{ "content-type": "application/json" }, { "content-type": "application/a2a+json; charset=utf-8" }, {}] as Record<string, string>[]) {
      // Bytes, not a string: fetch labels a string body text/plain by itself.
      const body = new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: completedId } }));
      const res = await fetch(t.url, { method: "POST", body, headers });
      expect(((await res.json()) as any).result?.id, JSON.stringify(headers)).toBe(completedId);
    }
  });
});

describe("a part of a media type the agent does not accept is ContentTypeNotSupported on the other sends too (§3.3.2)", () => {
  const row = ERROR_TABLE.ContentTypeNotSupported;
  /** The first JSON-RPC error of a stream's answer: the refusal before it, or its first event. */
  const firstRpcError = async (s: SseStream) => (s.events ? (await dataEvents(s.events))[0]?.data : s.json)?.error;

  it("JSON-RPC v0.3 message/send and message/stream: -32005 with the ErrorInfo", async () => {
    const filePart = { kind: "file", file: { bytes: "AQI=", mimeType: "image/png" } };
    const params = () => ({ message: { ...v03Message("x"), parts: [filePart] } });
    const unary = (await post(t.url, rpc("message/send", params()))).json;
    const stream = await firstRpcError(await openRpcStream(t.url, "message/stream", params()));
    for (const error of [unary.error, stream]) {
      expect(error?.code, JSON.stringify(error)).toBe(row.jsonRpcCode);
      expect(errorInfos(error.data).map((i) => i.reason)).toEqual([row.reason]);
    }
  });

  it("SendStreamingMessage over JSON-RPC, REST and gRPC: the table's code, status and reason", async () => {
    const rpcError = await firstRpcError(await openRpcStream(t.url, "SendStreamingMessage", { tenant: "echo", message: pngMessage() }));
    expect(rpcError?.code, JSON.stringify(rpcError)).toBe(row.jsonRpcCode);
    expect(errorInfos(rpcError.data).map((i) => i.reason)).toEqual([row.reason]);

    const r = await openStream(t.url, "POST", "/echo/message:stream", { body: { message: pngMessage() } });
    const restError = r.events ? (await dataEvents(r.events))[0]?.data.error : r.json.error;
    expect(r.events ? restError?.code : r.status, JSON.stringify(restError)).toBe(row.httpStatus);
    expect(errorInfos(restError.details).map((i) => i.reason)).toEqual([row.reason]);

    const req = { ...textRequest("x"), tenant: "echo" };
    req.message!.parts = [create(PartSchema, { content: { case: "raw", value: new Uint8Array([1, 2]) }, mediaType: "image/png" })];
    await expectA2AError(() => collect(t.client("grpc").sendStreamingMessage(req)), row.grpcCode, row.reason);
  });
});

/** The connect Code whose google.rpc.Code name is `name` ("FAILED_PRECONDITION" → Code.FailedPrecondition). */
const codeNamed = (name: string): Code => (Object.values(Code).filter((c) => typeof c === "number") as Code[]).find((c) => grpcStatusName(c) === name)!;

describe.each(PROVOCATIONS)("$error end to end ($why)", (p) => {
  // The expected codes come from SPEC, written out from §5.4, never from ERROR_TABLE.
  const spec = SPEC[p.error];
  const reason = upperSnake(p.error);
  const hub = () => (p.hub ?? (() => t))();

  // One service, three protocols on the one port: each says the row's status its own way.
  it.each(["grpc", "connect-h1", "connect-h2", "grpc-web"] as const)("over %s: the spec's status code and ErrorInfo reason", async (transport) => {
    await expectA2AError(() => p.grpc(hub(), transport), codeNamed(spec.grpc), reason);
  });

  it("over JSON-RPC: the spec's error code", async () => {
    const res = await fetch(hub().url, {
      method: "POST",
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: p.jsonRpc.method, params: p.jsonRpc.params() }),
      headers: { "content-type": "application/json", ...p.jsonRpc.headers },
    });
    const json = (await res.json()) as any;
    expect(json.error?.code, JSON.stringify(json)).toBe(spec.jsonRpc);
    if (p.error !== "InvalidParams") expect(errorInfos(json.error.data).map((i) => i.reason)).toEqual([reason]);
  });

  it("over HTTP+JSON (application/json): the spec's HTTP status and ErrorInfo reason in a google.rpc.Status", async () => {
    const r = await rest(hub().url, p.rest.method, p.rest.path(), { body: p.rest.body?.(), headers: p.rest.headers });
    expect(r.status, r.text).toBe(spec.http);
    expect(r.json.error).toMatchObject({ code: spec.http, status: spec.grpc });
    if (p.error === "InvalidParams") expect(r.json.error.details[0]["@type"]).toBe("type.googleapis.com/google.rpc.BadRequest");
    else expect(errorInfos(r.json.error.details).map((i) => i.reason)).toEqual([reason]);
  });

  // A refusal of the credentials is answered before the binding reads Accept; every other row honours it.
  it.skipIf(p.error === "Unauthenticated")("over HTTP+JSON (application/problem+json): the spec's HTTP status and the reason as a problem member", async () => {
    const r = await rest(hub().url, p.rest.method, p.rest.path(), { body: p.rest.body?.(), headers: { ...p.rest.headers, accept: "application/problem+json" } });
    expect(r.status, r.text).toBe(spec.http);
    expect(r.json).toMatchObject({ status: spec.http, type: `https://a2a-protocol.org/errors/${reason.toLowerCase().replaceAll("_", "-")}` });
    if (p.error !== "InvalidParams") expect(r.json.reason).toBe(reason);
  });
});
