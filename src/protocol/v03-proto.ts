/**
 * The v0.3 proto (package a2a.v1) and the v0.3 JSON-RPC dialect hold the same
 * v0.3 objects in two shapes: ProtoJSON (`content` parts tagged by their
 * oneof, `TASK_STATE_CANCELLED`, `ROLE_USER`, resource names such as
 * `tasks/{id}`) and kind-tagged JSON (`parts`, `canceled`, `user`, ids).
 * These functions move between the two shapes only; the translation between
 * v0.3 and v1.0 is the JSON-RPC dialect's (v03-parts, v03-tasks,
 * v03-requests, v03-card), so the three legacy bindings share one copy of it.
 */
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { invalidParams } from "./a2a-error.js";
import { compact, isObject } from "./v03-json.js";
import type { V03AgentCard, V03TaskState } from "./v03-types.js";

/** v0.3 JSON state ↔ the v0.3 proto's TaskState name (which spells CANCELLED with two Ls). */
const PROTO_STATES: Readonly<Record<V03TaskState, string>> = {
  unknown: "TASK_STATE_UNSPECIFIED",
  submitted: "TASK_STATE_SUBMITTED",
  working: "TASK_STATE_WORKING",
  completed: "TASK_STATE_COMPLETED",
  failed: "TASK_STATE_FAILED",
  canceled: "TASK_STATE_CANCELLED",
  "input-required": "TASK_STATE_INPUT_REQUIRED",
  rejected: "TASK_STATE_REJECTED",
  "auth-required": "TASK_STATE_AUTH_REQUIRED",
};

/** A JSON object without its undefined members. */
const obj = (o: Record<string, unknown>): JsonObject => compact(o) as JsonObject;
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const orUndefined = (v: unknown): JsonValue | undefined => (v === undefined || v === "" ? undefined : (v as JsonValue));

// ---------------------------------------------------------------------------
// Resource names of the v0.3 proto (`tasks/{id}`, `tasks/{id}/pushNotificationConfigs/{configId}`).

/** `tasks/{id}` of a task id. */
export function v03TaskName(id: string): string {
  return `tasks/${id}`;
}

/** The task id of `tasks/{id}`; anything else is InvalidParams naming `field`. */
export function v03TaskIdOf(name: unknown, field = "name"): string {
  const m = typeof name === "string" ? /^tasks\/([^/]+)$/.exec(name) : null;
  if (!m) throw invalidParams(field, `must be "tasks/{id}", not ${JSON.stringify(name ?? "")}`);
  return m[1]!;
}

/** The task id and config id of `tasks/{id}/pushNotificationConfigs/{configId}` (the config id may be empty). */
export function v03ConfigIdsOf(name: unknown): { taskId: string; configId: string } {
  const m = typeof name === "string" ? /^tasks\/([^/]+)\/pushNotificationConfigs(?:\/([^/]*))?$/.exec(name) : null;
  if (!m) throw invalidParams("name", `must be "tasks/{id}/pushNotificationConfigs/{configId}", not ${JSON.stringify(name ?? "")}`);
  return { taskId: m[1]!, configId: m[2] ?? "" };
}

// ---------------------------------------------------------------------------
// ProtoJSON of the v0.3 proto → kind-tagged v0.3 JSON (requests the hub reads).

/** A v0.3 proto Part → a kind-tagged v0.3 Part. */
export function v03PartFromProto(part: unknown): unknown {
  if (!isObject(part)) return part;
  if (part.text !== undefined) return { kind: "text", text: part.text };
  if (isObject(part.file)) {
    const f = part.file;
    return { kind: "file", file: obj({ uri: f.fileWithUri, bytes: f.fileWithBytes, mimeType: orUndefined(f.mimeType) }) };
  }
  if (isObject(part.data)) return { kind: "data", data: part.data.data ?? {} };
  return part;
}

/** A v0.3 proto Message → a kind-tagged v0.3 Message. */
export function v03MessageFromProto(message: unknown): unknown {
  if (!isObject(message)) return message;
  const role = message.role === "ROLE_USER" ? "user" : message.role === "ROLE_AGENT" ? "agent" : message.role;
  return obj({
    kind: "message",
    messageId: message.messageId,
    contextId: orUndefined(message.contextId),
    taskId: orUndefined(message.taskId),
    role,
    parts: list(message.content).map(v03PartFromProto),
    metadata: message.metadata,
    extensions: message.extensions,
  });
}

/** A v0.3 proto SendMessageRequest → v0.3 MessageSendParams. */
export function v03SendParamsFromProto(request: JsonObject): unknown {
  const c = request.configuration;
  return obj({
    message: v03MessageFromProto(request.message),
    configuration: isObject(c)
      ? obj({
          acceptedOutputModes: c.acceptedOutputModes,
          pushNotificationConfig: c.pushNotification,
          // proto3: 0 is "not set", which v0.3 JSON says by leaving the field out.
          historyLength: c.historyLength === 0 ? undefined : c.historyLength,
          // proto3: an absent bool is false, and a v0.3 configuration without `blocking` is not blocking.
          blocking: c.blocking === true,
        })
      : undefined,
    metadata: request.metadata,
  });
}

/** A v0.3 proto TaskPushNotificationConfig (with the task it belongs to) → the v0.3 JSON one. */
export function v03PushConfigFromProto(taskId: string, config: unknown, configId = ""): unknown {
  const inner = isObject(config) && isObject(config.pushNotificationConfig) ? config.pushNotificationConfig : undefined;
  if (!inner) throw invalidParams("config.pushNotificationConfig", "is required");
  return { taskId, pushNotificationConfig: obj({ ...inner, id: orUndefined(inner.id) ?? orUndefined(configId) }) };
}

// ---------------------------------------------------------------------------
// Kind-tagged v0.3 JSON → ProtoJSON of the v0.3 proto (answers the hub writes).

/** A kind-tagged v0.3 Part → a v0.3 proto Part (a file's name has no place there). */
export function v03PartToProto(part: unknown): JsonObject {
  if (!isObject(part)) return {};
  if (part.kind === "text") return { text: (part.text as string) ?? "" };
  if (part.kind === "data") return { data: { data: (part.data as JsonObject) ?? {} } };
  const file = isObject(part.file) ? part.file : {};
  return { file: obj({ fileWithUri: file.uri as string | undefined, fileWithBytes: file.bytes as string | undefined, mimeType: file.mimeType as string | undefined }) };
}

/** A kind-tagged v0.3 Message → a v0.3 proto Message. */
export function v03MessageToProto(message: unknown): JsonObject | undefined {
  if (!isObject(message)) return undefined;
  return obj({
    messageId: message.messageId as string,
    contextId: message.contextId as string | undefined,
    taskId: message.taskId as string | undefined,
    role: message.role === "user" ? "ROLE_USER" : message.role === "agent" ? "ROLE_AGENT" : "ROLE_UNSPECIFIED",
    content: list(message.parts).map(v03PartToProto),
    metadata: message.metadata as JsonObject | undefined,
    extensions: message.extensions as string[] | undefined,
  });
}

function statusToProto(status: unknown): JsonObject | undefined {
  if (!isObject(status)) return undefined;
  return obj({
    state: PROTO_STATES[status.state as V03TaskState] ?? "TASK_STATE_UNSPECIFIED",
    message: v03MessageToProto(status.message),
    timestamp: status.timestamp as string | undefined,
  });
}

function artifactToProto(artifact: unknown): JsonObject | undefined {
  if (!isObject(artifact)) return undefined;
  return obj({
    artifactId: artifact.artifactId as string,
    name: artifact.name as string | undefined,
    description: artifact.description as string | undefined,
    parts: list(artifact.parts).map(v03PartToProto),
    metadata: artifact.metadata as JsonObject | undefined,
    extensions: artifact.extensions as string[] | undefined,
  });
}

/** A kind-tagged v0.3 Task → a v0.3 proto Task. */
export function v03TaskToProto(task: unknown): JsonObject {
  if (!isObject(task)) return {};
  return obj({
    id: task.id as string,
    contextId: task.contextId as string,
    status: statusToProto(task.status),
    artifacts: list(task.artifacts).map((a) => artifactToProto(a)!),
    history: list(task.history).map((m) => v03MessageToProto(m)!),
    metadata: task.metadata as JsonObject | undefined,
  });
}

/** A kind-tagged v0.3 stream result → a v0.3 proto StreamResponse (also a SendMessageResponse for a task or message). */
export function v03StreamResultToProto(result: unknown): JsonObject {
  if (!isObject(result)) return {};
  switch (result.kind) {
    case "task":
      return { task: v03TaskToProto(result) };
    case "message":
      return { message: v03MessageToProto(result)! };
    case "status-update":
      return {
        statusUpdate: obj({ taskId: result.taskId as string, contextId: result.contextId as string, status: statusToProto(result.status), final: result.final as boolean, metadata: result.metadata as JsonObject | undefined }),
      };
    case "artifact-update":
      return {
        artifactUpdate: obj({
          taskId: result.taskId as string,
          contextId: result.contextId as string,
          artifact: artifactToProto(result.artifact),
          append: result.append as boolean | undefined,
          lastChunk: result.lastChunk as boolean | undefined,
          metadata: result.metadata as JsonObject | undefined,
        }),
      };
    default:
      return {};
  }
}

/** A v0.3 JSON TaskPushNotificationConfig → the v0.3 proto one, named by its resource name. */
export function v03PushConfigToProto(config: unknown): JsonObject {
  if (!isObject(config)) return {};
  const inner = isObject(config.pushNotificationConfig) ? config.pushNotificationConfig : {};
  return { name: `tasks/${config.taskId as string}/pushNotificationConfigs/${(inner.id as string | undefined) ?? ""}`, pushNotificationConfig: inner as JsonObject };
}

/** The v0.3 proto's SecurityScheme oneof member for each v0.3 JSON `type`. */
const SCHEME_CASES: Readonly<Record<string, string>> = {
  apiKey: "apiKeySecurityScheme",
  http: "httpAuthSecurityScheme",
  oauth2: "oauth2SecurityScheme",
  openIdConnect: "openIdConnectSecurityScheme",
  mutualTLS: "mtlsSecurityScheme",
};

function securityToProto(requirements: unknown): JsonObject[] {
  return list(requirements).map((r) => ({
    schemes: Object.fromEntries(Object.entries(isObject(r) ? r : {}).map(([name, scopes]) => [name, { list: list(scopes) as JsonValue[] }])),
  }));
}

/** A v0.3 JSON AgentCard → a v0.3 proto AgentCard (fields the proto lacks, such as iconUrl, stay out). */
export function v03CardToProto(card: V03AgentCard): JsonObject {
  const schemes: JsonObject = {};
  for (const [name, scheme] of Object.entries(card.securitySchemes ?? {})) {
    const member = SCHEME_CASES[scheme.type];
    if (!member) continue;
    const { type: _type, in: location, ...rest } = scheme;
    schemes[name] = { [member]: obj({ ...rest, location }) as JsonObject };
  }
  const { iconUrl: _icon, securitySchemes: _s, security, skills, ...plain } = card as V03AgentCard & { iconUrl?: string };
  return obj({
    ...(plain as unknown as JsonObject),
    securitySchemes: Object.keys(schemes).length > 0 ? schemes : undefined,
    security: security ? securityToProto(security) : undefined,
    skills: skills.map((s) => obj({ ...(s as unknown as JsonObject), security: s.security ? securityToProto(s.security) : undefined })),
  });
}
