/**
 * The v0.3 dialect (kind-tagged JSON) of task states, roles, parts and
 * messages, both directions. What v0.3 cannot carry is dropped on the way
 * out: a text or data part's mediaType and filename. A v1.0 data part whose
 * value is not an object is wrapped for v0.3, whose DataPart allows only objects.
 */
import { toJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { base64Encode } from "@bufbuild/protobuf/wire";
import { Role, TaskState, type Message, type Part } from "../../gen/a2a/v1/a2a_pb.js";
import type { V03Message, V03Part, V03Role, V03TaskState } from "./v03-types.js";
import { compact, isObject, nonEmpty } from "./v03-json.js";

const V03_STATES: Readonly<Record<V03TaskState, TaskState>> = {
  unknown: TaskState.UNSPECIFIED,
  submitted: TaskState.SUBMITTED,
  working: TaskState.WORKING,
  "input-required": TaskState.INPUT_REQUIRED,
  completed: TaskState.COMPLETED,
  canceled: TaskState.CANCELED,
  failed: TaskState.FAILED,
  rejected: TaskState.REJECTED,
  "auth-required": TaskState.AUTH_REQUIRED,
};

/** v0.3 "input-required" → "TASK_STATE_INPUT_REQUIRED"; anything else is returned unchanged. */
export function v03ToV1State(state: unknown): unknown {
  if (typeof state !== "string" || !(state in V03_STATES)) return state;
  return `TASK_STATE_${TaskState[V03_STATES[state as V03TaskState]]}`;
}

/** v0.3 "user"/"agent" → "ROLE_USER"/"ROLE_AGENT"; anything else is returned unchanged. */
export function v03ToV1Role(role: unknown): unknown {
  if (role === "user") return "ROLE_USER";
  if (role === "agent") return "ROLE_AGENT";
  return role;
}

/**
 * A kind-tagged v0.3 Part → a v1.0 Part: text stays text, a file becomes
 * `raw` (bytes) or `url` (uri) with mediaType and filename, data stays data.
 * A part without a v0.3 kind is returned unchanged.
 */
export function v03ToV1Part(part: unknown): unknown {
  if (!isObject(part)) return part;
  const { kind, metadata } = part;
  switch (kind) {
    case "text":
      return compact({ text: part.text, metadata });
    case "data":
      return compact({ data: part.data, metadata });
    case "file": {
      const file = isObject(part.file) ? part.file : {};
      return compact({ raw: file.bytes, url: file.uri, mediaType: file.mimeType, filename: file.name, metadata });
    }
    default:
      return part;
  }
}

/** A v0.3 Message → a v1.0 Message: role and parts translated, `kind` dropped. */
export function v03ToV1Message(message: unknown): unknown {
  if (!isObject(message)) return message;
  const { kind: _kind, ...rest } = message;
  return compact({ ...rest, role: v03ToV1Role(message.role), parts: Array.isArray(message.parts) ? message.parts.map(v03ToV1Part) : message.parts });
}

const V1_STATES: Readonly<Record<TaskState, V03TaskState>> = {
  [TaskState.UNSPECIFIED]: "unknown",
  [TaskState.SUBMITTED]: "submitted",
  [TaskState.WORKING]: "working",
  [TaskState.INPUT_REQUIRED]: "input-required",
  [TaskState.COMPLETED]: "completed",
  [TaskState.CANCELED]: "canceled",
  [TaskState.FAILED]: "failed",
  [TaskState.REJECTED]: "rejected",
  [TaskState.AUTH_REQUIRED]: "auth-required",
};

/** TaskState → v0.3 kebab-case state. */
export function v1ToV03State(state: TaskState): V03TaskState {
  return V1_STATES[state] ?? "unknown";
}

/** Role → v0.3 role; only the client writes "user". */
export function v1ToV03Role(role: Role): V03Role {
  return role === Role.USER ? "user" : "agent";
}

/** Part → kind-tagged v0.3 Part: raw and url become a file part with mimeType and name. */
export function v1ToV03Part(part: Part): V03Part {
  const metadata = part.metadata;
  const c = part.content;
  switch (c.case) {
    case "raw":
      return compact({ kind: "file" as const, file: compact({ bytes: base64Encode(c.value), mimeType: part.mediaType || undefined, name: part.filename || undefined }), metadata });
    case "url":
      return compact({ kind: "file" as const, file: compact({ uri: c.value, mimeType: part.mediaType || undefined, name: part.filename || undefined }), metadata });
    case "data":
      return compact({ kind: "data" as const, data: v03Data(toJson(ValueSchema, c.value)), metadata });
    case "text":
      return compact({ kind: "text" as const, text: c.value, metadata });
    default:
      return compact({ kind: "text" as const, text: "", metadata });
  }
}

/** Message → v0.3 Message. */
export function v1ToV03Message(message: Message): V03Message {
  return compact({
    kind: "message" as const,
    messageId: message.messageId,
    role: v1ToV03Role(message.role),
    parts: message.parts.map(v1ToV03Part),
    contextId: message.contextId || undefined,
    taskId: message.taskId || undefined,
    referenceTaskIds: nonEmpty(message.referenceTaskIds),
    extensions: nonEmpty(message.extensions),
    metadata: message.metadata,
  });
}

/**
 * v0.3's DataPart carries only an object (its schema: `data: object`); v1.0
 * allows any JSON value. A value that is not an object is wrapped as
 * `{"value": …}` so that v0.3 clients and validators accept the part.
 */
function v03Data(data: JsonValue): JsonObject {
  return typeof data === "object" && data !== null && !Array.isArray(data) ? data : { value: data };
}
