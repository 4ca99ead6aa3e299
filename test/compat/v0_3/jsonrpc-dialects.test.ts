import { describe, expect, it } from "vitest";
import { create, equals, fromJson, toJson, type DescMessage, type JsonValue, type MessageShape } from "@bufbuild/protobuf";
import { timestampFromMs, ValueSchema } from "@bufbuild/protobuf/wkt";
import {
  AgentCardSchema,
  ArtifactSchema,
  CancelTaskRequestSchema,
  DeleteTaskPushNotificationConfigRequestSchema,
  GetTaskPushNotificationConfigRequestSchema,
  GetTaskRequestSchema,
  ListTaskPushNotificationConfigsRequestSchema,
  ListTasksRequestSchema,
  MessageSchema,
  PartSchema,
  Role,
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  SubscribeToTaskRequestSchema,
  TaskArtifactUpdateEventSchema,
  TaskPushNotificationConfigSchema,
  TaskSchema,
  TaskState,
  TaskStatusSchema,
  TaskStatusUpdateEventSchema,
  type Part,
} from "../../../gen/a2a/v1/a2a_pb.js";
import { dialectV03 as d, dialectV1 } from "../../../src/bindings/jsonrpc/index.js";
import { readProtoJson } from "../../../src/bindings/http/index.js";

/** Reads v1.0 ProtoJSON the way the facade does (fromJson, unknown fields ignored). */
function read<Desc extends DescMessage>(schema: Desc, json: unknown): MessageShape<Desc> {
  return readProtoJson(schema, json);
}

/** JSON as it travels: what JSON.stringify keeps. */
function wire(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v));
}

function expectSame<Desc extends DescMessage>(schema: Desc, a: MessageShape<Desc>, b: MessageShape<Desc>): void {
  expect(equals(schema, a, b), `${JSON.stringify(toJson(schema, a))}\n!=\n${JSON.stringify(toJson(schema, b))}`).toBe(true);
}

const value = (v: JsonValue) => fromJson(ValueSchema, v);

const PARTS: Record<string, Part> = {
  text: create(PartSchema, { content: { case: "text", value: "hello" }, metadata: { lang: "en" } }),
  raw: create(PartSchema, { content: { case: "raw", value: new Uint8Array([0, 1, 2, 250, 255]) }, mediaType: "image/png", filename: "a.png" }),
  url: create(PartSchema, { content: { case: "url", value: "https://example.com/f.pdf" }, mediaType: "application/pdf", filename: "f.pdf" }),
  data: create(PartSchema, { content: { case: "data", value: value({ n: 1, list: ["a", true, null], nested: { x: 2.5 } }) } }),
};

const agentMessage = create(MessageSchema, {
  messageId: "m-2",
  contextId: "c-1",
  taskId: "t-1",
  role: Role.AGENT,
  parts: Object.values(PARTS),
  metadata: { k: "v" },
  extensions: ["urn:ext:a"],
  referenceTaskIds: ["t-0"],
});
const userMessage = create(MessageSchema, { messageId: "m-1", role: Role.USER, parts: [PARTS.text!] });
const artifact = create(ArtifactSchema, { artifactId: "a-1", name: "out", description: "the output", parts: [PARTS.text!, PARTS.data!], metadata: { size: 2 }, extensions: ["urn:ext:b"] });
const status = create(TaskStatusSchema, { state: TaskState.INPUT_REQUIRED, message: agentMessage, timestamp: timestampFromMs(Date.UTC(2025, 0, 2, 3, 4, 5, 678)) });
const task = create(TaskSchema, { id: "t-1", contextId: "c-1", status, artifacts: [artifact], history: [userMessage, agentMessage], metadata: { origin: "test" } });

describe("v0.3 dialect: every message type survives v1.0 → v0.3 → v1.0", () => {
  it.each(Object.entries(PARTS))("Part %s", (_name, part) => {
    const back = read(PartSchema, d.v03ToV1Part(wire(d.v1ToV03Part(part))));
    expectSame(PartSchema, back, part);
  });

  it.each([["a string", "hello"], ["a number", 42], ["an array", [1, "two"]], ["null", null], ["a boolean", false]] as Array<[string, JsonValue]>)(
    "a data part holding %s is wrapped as {value} for v0.3, whose DataPart allows only objects",
    (_name, value) => {
      const part = create(PartSchema, { content: { case: "data", value: fromJson(ValueSchema, value) } });
      expect(wire(d.v1ToV03Part(part))).toEqual({ kind: "data", data: { value } });
    },
  );

  it("an object data part is not wrapped", () => {
    const part = create(PartSchema, { content: { case: "data", value: fromJson(ValueSchema, { value: 1, b: [2] }) } });
    expect(wire(d.v1ToV03Part(part))).toEqual({ kind: "data", data: { value: 1, b: [2] } });
  });

  it("Message", () => {
    const out = wire(d.v1ToV03Message(agentMessage));
    expect(out).toMatchObject({ kind: "message", role: "agent", messageId: "m-2" });
    expectSame(MessageSchema, read(MessageSchema, d.v03ToV1Message(out)), agentMessage);
  });

  it.each(Object.values(TaskState).filter((s): s is TaskState => typeof s === "number"))("TaskStatus in state %s", (state) => {
    const s = create(TaskStatusSchema, { ...status, state });
    expectSame(TaskStatusSchema, read(TaskStatusSchema, d.v03ToV1Status(wire(d.v1ToV03Status(s)))), s);
  });

  it("Artifact", () => {
    expectSame(ArtifactSchema, read(ArtifactSchema, d.v03ToV1Artifact(wire(d.v1ToV03Artifact(artifact)))), artifact);
  });

  it("Task", () => {
    const out = wire(d.v1ToV03Task(task));
    expect(out).toMatchObject({ kind: "task", id: "t-1", status: { state: "input-required", timestamp: "2025-01-02T03:04:05.678Z" } });
    expectSame(TaskSchema, read(TaskSchema, d.v03ToV1Task(out)), task);
  });

  it("Task without artifacts or history has neither member", () => {
    const bare = create(TaskSchema, { id: "t", contextId: "c", status: { state: TaskState.WORKING } });
    expect(wire(d.v1ToV03Task(bare))).toEqual({ kind: "task", id: "t", contextId: "c", status: { state: "working" } });
  });

  it("status-update, with final set once the task is terminal or interrupted", () => {
    for (const [state, final] of [
      [TaskState.WORKING, false],
      [TaskState.COMPLETED, true],
      [TaskState.INPUT_REQUIRED, true],
      [TaskState.CANCELED, true],
    ] as const) {
      const ev = create(TaskStatusUpdateEventSchema, { taskId: "t", contextId: "c", status: { state }, metadata: { a: 1 } });
      const out = wire(d.v1ToV03StatusUpdate(ev));
      expect(out).toMatchObject({ kind: "status-update", final });
      expectSame(TaskStatusUpdateEventSchema, read(TaskStatusUpdateEventSchema, d.v03ToV1StatusUpdate(out)), ev);
    }
  });

  it("artifact-update", () => {
    const ev = create(TaskArtifactUpdateEventSchema, { taskId: "t", contextId: "c", artifact, append: true, lastChunk: true, metadata: { b: 2 } });
    const out = wire(d.v1ToV03ArtifactUpdate(ev));
    expect(out).toMatchObject({ kind: "artifact-update", append: true, lastChunk: true });
    expectSame(TaskArtifactUpdateEventSchema, read(TaskArtifactUpdateEventSchema, d.v03ToV1ArtifactUpdate(out)), ev);
  });

  it.each([
    ["task", { case: "task", value: task }],
    ["message", { case: "message", value: agentMessage }],
    ["statusUpdate", { case: "statusUpdate", value: create(TaskStatusUpdateEventSchema, { taskId: "t", contextId: "c", status: { state: TaskState.WORKING } }) }],
    ["artifactUpdate", { case: "artifactUpdate", value: create(TaskArtifactUpdateEventSchema, { taskId: "t", contextId: "c", artifact }) }],
  ] as const)("StreamResponse carrying a %s", (_name, payload) => {
    const ev = create(StreamResponseSchema, { payload });
    expectSame(StreamResponseSchema, read(StreamResponseSchema, d.v03ToV1StreamResult(wire(d.v1ToV03StreamResult(ev)))), ev);
  });

  it("SendMessageResponse with a task and with a message", () => {
    for (const payload of [{ case: "task", value: task }, { case: "message", value: agentMessage }] as const) {
      const res = create(SendMessageResponseSchema, { payload });
      expectSame(SendMessageResponseSchema, read(SendMessageResponseSchema, d.v03ToV1SendResult(wire(d.v1ToV03SendResult(res)))), res);
    }
  });

  it("TaskPushNotificationConfig", () => {
    const config = create(TaskPushNotificationConfigSchema, { id: "p-1", taskId: "t-1", url: "https://hook.example/x", token: "tok", authentication: { scheme: "Bearer", credentials: "secret" } });
    const out = wire(d.v1ToV03PushConfig(config));
    expect(out).toEqual({ taskId: "t-1", pushNotificationConfig: { id: "p-1", url: "https://hook.example/x", token: "tok", authentication: { schemes: ["Bearer"], credentials: "secret" } } });
    expectSame(TaskPushNotificationConfigSchema, read(TaskPushNotificationConfigSchema, d.v03ToV1TaskPushConfig(out)), config);
  });

  it("AgentCard, except what v0.3 cannot say (interface versions and tenants)", () => {
    const card = create(AgentCardSchema, {
      name: "n",
      description: "d",
      version: "1.2.3",
      supportedInterfaces: [
        { url: "https://a.example/", protocolBinding: "JSONRPC", protocolVersion: "0.3" },
        { url: "https://a.example/grpc", protocolBinding: "GRPC", protocolVersion: "0.3" },
      ],
      provider: { organization: "o", url: "https://o.example" },
      capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: true, extensions: [{ uri: "urn:e", required: true, description: "e", params: { p: 1 } }] },
      securitySchemes: {
        key: { scheme: { case: "apiKeySecurityScheme", value: { location: "header", name: "X-Key", description: "k" } } },
        bearer: { scheme: { case: "httpAuthSecurityScheme", value: { scheme: "Bearer", bearerFormat: "JWT" } } },
        oauth: { scheme: { case: "oauth2SecurityScheme", value: { flows: { flow: { case: "clientCredentials", value: { tokenUrl: "https://t", scopes: { read: "r" } } } } } } },
        oidc: { scheme: { case: "openIdConnectSecurityScheme", value: { openIdConnectUrl: "https://oidc" } } },
        mtls: { scheme: { case: "mtlsSecurityScheme", value: {} } },
      },
      securityRequirements: [{ schemes: { bearer: { list: [] }, oauth: { list: ["read"] } } }],
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [{ id: "s", name: "S", description: "sd", tags: ["t"], examples: ["e"], inputModes: ["text/plain"], outputModes: ["application/json"], securityRequirements: [{ schemes: { key: { list: [] } } }] }],
      signatures: [{ protected: "p", signature: "s", header: { kid: "1" } }],
      iconUrl: "https://i.example/icon.png",
      documentationUrl: "https://docs.example",
    });
    const out = wire(d.v1ToV03AgentCard(card)) as Record<string, unknown>;
    expect(out).toMatchObject({
      protocolVersion: "0.3.0",
      url: "https://a.example/",
      preferredTransport: "JSONRPC",
      supportsAuthenticatedExtendedCard: true,
      securitySchemes: { key: { type: "apiKey", in: "header", name: "X-Key" }, mtls: { type: "mutualTLS" }, oauth: { type: "oauth2", flows: { clientCredentials: { tokenUrl: "https://t" } } } },
      security: [{ bearer: [], oauth: ["read"] }],
    });
    expectSame(AgentCardSchema, read(AgentCardSchema, d.v03ToV1AgentCard(out)), card);
  });
});

describe("v0.3 dialect: every request shape survives v0.3 → v1.0 → v0.3", () => {
  const message = { kind: "message", messageId: "m", role: "user", parts: [{ kind: "text", text: "hi" }, { kind: "file", file: { uri: "https://f", mimeType: "text/csv", name: "f.csv" } }, { kind: "file", file: { bytes: "AAEC" } }, { kind: "data", data: { a: [1, 2] } }], contextId: "c", taskId: "t" };

  it("message/send params, configuration included", () => {
    const params = {
      message,
      configuration: { acceptedOutputModes: ["text/plain"], historyLength: 3, blocking: false, pushNotificationConfig: { id: "p", url: "https://hook", token: "x", authentication: { schemes: ["Bearer"], credentials: "c" } } },
      metadata: { m: 1 },
    };
    const req = read(SendMessageRequestSchema, d.v03ToV1SendParams(params));
    expect(req.configuration?.returnImmediately).toBe(true);
    expect(req.message?.role).toBe(Role.USER);
    expect(wire(d.v1ToV03SendParams(req))).toEqual(params);
  });

  it("blocking absent or true is a blocking send", () => {
    for (const configuration of [{}, { blocking: true }]) {
      expect(read(SendMessageRequestSchema, d.v03ToV1SendParams({ message, configuration })).configuration?.returnImmediately).toBe(false);
    }
  });

  it("tasks/get, tasks/cancel and tasks/resubscribe params", () => {
    const q = { id: "t", historyLength: 2 };
    expect(d.v1ToV03TaskQuery(read(GetTaskRequestSchema, d.v03ToV1TaskQuery(q)))).toEqual(q);
    const c = { id: "t", metadata: { why: "done" } };
    expect(wire(d.v1ToV03CancelParams(read(CancelTaskRequestSchema, d.v03ToV1CancelParams(c))))).toEqual(c);
    expect(d.v1ToV03SubscribeParams(read(SubscribeToTaskRequestSchema, d.v03ToV1SubscribeParams({ id: "t" })))).toEqual({ id: "t" });
  });

  it("tasks/pushNotificationConfig/set, get, list and delete params", () => {
    const set = { taskId: "t", pushNotificationConfig: { id: "p", url: "https://hook", token: "x", authentication: { schemes: ["Basic"] } } };
    expect(wire(d.v1ToV03PushConfig(read(TaskPushNotificationConfigSchema, d.v03ToV1PushSetParams(set))))).toEqual(set);
    const get = { id: "t", pushNotificationConfigId: "p" };
    expect(d.v1ToV03PushGetParams(read(GetTaskPushNotificationConfigRequestSchema, d.v03ToV1PushGetParams(get)))).toEqual(get);
    expect(d.v1ToV03PushListParams(read(ListTaskPushNotificationConfigsRequestSchema, d.v03ToV1PushListParams({ id: "t" })))).toEqual({ id: "t" });
    const del = { id: "t", pushNotificationConfigId: "p" };
    expect(d.v1ToV03PushDeleteParams(read(DeleteTaskPushNotificationConfigRequestSchema, d.v03ToV1PushDeleteParams(del)))).toEqual(del);
  });

  it("a config set without an id is the task's own: its id is the task id, which get without an id asks for", () => {
    const set = read(TaskPushNotificationConfigSchema, d.v03ToV1PushSetParams({ taskId: "t-9", pushNotificationConfig: { url: "https://hook" } }));
    expect(set.id).toBe("t-9");
    expect(read(GetTaskPushNotificationConfigRequestSchema, d.v03ToV1PushGetParams({ id: "t-9" }))).toMatchObject({ taskId: "t-9", id: "t-9" });
  });

  it("a non-boolean blocking is InvalidParams naming configuration.blocking", () => {
    expect(() => d.v03ToV1SendParams({ message, configuration: { blocking: "yes" } })).toThrowError(
      expect.objectContaining({ a2a: "InvalidParams", violations: [expect.objectContaining({ field: "configuration.blocking" })] }) as never,
    );
  });
});

describe("v1.0 lenient reading", () => {
  const read1 = (params: unknown) => dialectV1.readV1(SendMessageRequestSchema, params, dialectV1.lenientSendRequest);

  it("reads every part shape into the same v1.0 Part", () => {
    const shapes: Array<[unknown, Part]> = [
      [{ text: "t" }, create(PartSchema, { content: { case: "text", value: "t" } })],
      [{ kind: "text", text: "t" }, create(PartSchema, { content: { case: "text", value: "t" } })],
      [{ raw: "AAE=", mediaType: "image/png", filename: "x.png" }, PARTS.rawSmall!],
      [{ kind: "file", file: { bytes: "AAE=", mimeType: "image/png", name: "x.png" } }, PARTS.rawSmall!],
      [{ file: { fileWithBytes: "AAE=", mediaType: "image/png", name: "x.png" } }, PARTS.rawSmall!],
      [{ kind: "FilePart", fileWithBytes: "AAE=", mimeType: "image/png", name: "x.png" }, PARTS.rawSmall!],
      [{ file: { fileWithUri: "https://u", mimeType: "text/csv" } }, create(PartSchema, { content: { case: "url", value: "https://u" }, mediaType: "text/csv" })],
      [{ kind: "file", file: { uri: "https://u", mimeType: "text/csv" } }, create(PartSchema, { content: { case: "url", value: "https://u" }, mediaType: "text/csv" })],
      [{ data: { a: 1 } }, create(PartSchema, { content: { case: "data", value: value({ a: 1 }) } })],
      [{ kind: "data", data: { a: 1 } }, create(PartSchema, { content: { case: "data", value: value({ a: 1 }) } })],
      [{ data: { data: { a: 1 } } }, create(PartSchema, { content: { case: "data", value: value({ a: 1 }) } })],
    ];
    for (const [json, part] of shapes) {
      const req = read1({ message: { messageId: "m", role: "ROLE_USER", parts: [json] } });
      expectSame(PartSchema, req.message!.parts[0]!, part);
    }
  });

  it("reads roles and states in either spelling", () => {
    for (const role of ["ROLE_USER", "user", "USER", "User"]) expect(read1({ message: { messageId: "m", role, parts: [{ text: "x" }] } }).message?.role).toBe(Role.USER);
    for (const status of ["TASK_STATE_INPUT_REQUIRED", "input-required", "INPUT_REQUIRED", "input_required"]) {
      expect(dialectV1.readV1(ListTasksRequestSchema, { status }, dialectV1.lenientListTasksRequest).status).toBe(TaskState.INPUT_REQUIRED);
    }
    expect(dialectV1.readV1(ListTasksRequestSchema, { status: "cancelled" }, dialectV1.lenientListTasksRequest).status).toBe(TaskState.CANCELED);
  });

  it("refuses an unknown enum spelling with the value the client sent", () => {
    expect(() => dialectV1.readV1(ListTasksRequestSchema, { status: "finished" }, dialectV1.lenientListTasksRequest)).toThrowError(/status.*finished/);
  });

  it("reads blocking and pushNotificationConfig in a v1.0 configuration", () => {
    const req = read1({ message: { messageId: "m", role: "user", parts: [{ text: "x" }] }, configuration: { blocking: false, pushNotificationConfig: { url: "https://h", authentication: { schemes: ["Bearer"] } } } });
    expect(req.configuration?.returnImmediately).toBe(true);
    expect(req.configuration?.taskPushNotificationConfig).toMatchObject({ url: "https://h", authentication: { scheme: "Bearer" } });
  });

  it("reads the v0.3 wrapper of a push config in CreateTaskPushNotificationConfig", () => {
    const c = dialectV1.readV1(TaskPushNotificationConfigSchema, { taskId: "t", pushNotificationConfig: { id: "p", url: "https://h" } }, dialectV1.lenientPushConfig);
    expect(c).toMatchObject({ taskId: "t", id: "p", url: "https://h" });
  });
});

PARTS.rawSmall = create(PartSchema, { content: { case: "raw", value: new Uint8Array([0, 1]) }, mediaType: "image/png", filename: "x.png" });
