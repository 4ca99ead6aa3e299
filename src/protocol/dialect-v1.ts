/**
 * The A2A v1.0 JSON dialect: ProtoJSON (§5.5). Requests are read leniently
 * (the `lenient…` functions rewrite other spellings into v1.0 ProtoJSON
 * before fromJson): enum values in either spelling ("completed",
 * "TASK_STATE_COMPLETED", "user"), v0.3 kind-tagged parts, the v1.0 draft's
 * `{"file":{"fileWithBytes"|"fileWithUri",…}}` and `{"data":{"data":…}}`
 * parts, `blocking` and `pushNotificationConfig` in the send configuration.
 * Results are always written as v1.0 ProtoJSON.
 */
import type { DescEnum, DescMessage, JsonObject, MessageShape } from "@bufbuild/protobuf";
import { RoleSchema, TaskStateSchema } from "../../gen/a2a/v1/a2a_pb.js";
import { readProtoJson, writeProtoJson } from "./proto-json.js";
import { v03ToV1Part, v03ToV1Role, v03ToV1State } from "./dialect-v03.js";

/** Reads v1.0 params: absent params are `{}`, `normalize` applies the lenient spellings, then ProtoJSON. */
export function readV1<Desc extends DescMessage>(schema: Desc, params: unknown, normalize: (json: unknown) => unknown = (j) => j): MessageShape<Desc> {
  return readProtoJson(schema, normalize(params === undefined ? {} : params));
}

/** Writes a v1.0 result: ProtoJSON with the required fields always present. */
export function writeV1<Desc extends DescMessage>(schema: Desc, message: MessageShape<Desc>): JsonObject {
  return writeProtoJson(schema, message);
}

/**
 * An enum value in any accepted spelling → its ProtoJSON name, when that
 * names a value of `desc`; anything else is left for fromJson to refuse.
 */
export function lenientEnum(desc: DescEnum, value: unknown, legacy: (v: unknown) => unknown = (v) => v): unknown {
  if (typeof value !== "string") return value;
  const names = new Set(desc.values.map((v) => v.name));
  const trimmed = value.trim();
  if (names.has(trimmed)) return trimmed;
  const fromLegacy = legacy(trimmed);
  if (typeof fromLegacy === "string" && names.has(fromLegacy)) return fromLegacy;
  // "INPUT_REQUIRED", "input_required", "Completed" → with the enum's prefix.
  const prefix = (desc.sharedPrefix ?? "").toUpperCase();
  const upper = trimmed.replace(/[-\s]/g, "_").toUpperCase();
  const candidate = upper.startsWith(prefix) ? upper : `${prefix}${upper}`;
  return names.has(candidate) ? candidate : value;
}

/** A TaskState in any accepted spelling. */
export function lenientTaskState(value: unknown): unknown {
  return lenientEnum(TaskStateSchema, value === "cancelled" ? "canceled" : value, v03ToV1State);
}

/** A Role in any accepted spelling. */
export function lenientRole(value: unknown): unknown {
  return lenientEnum(RoleSchema, value, v03ToV1Role);
}

/** A Part in any accepted shape → a v1.0 Part. */
export function lenientPart(part: unknown): unknown {
  if (!isObject(part)) return part;
  const kind = part.kind;
  if (kind === "text" || kind === "file" || kind === "data") return v03ToV1Part(part);
  const { kind: _kind, ...rest } = part;
  // The v1.0 draft's inline legacy form: {"kind":"FilePart","fileWithBytes"…}.
  if (kind === "FilePart" || rest.fileWithBytes !== undefined || rest.fileWithUri !== undefined) {
    const { fileWithBytes, fileWithUri, mimeType, name, ...others } = rest;
    return compact({ ...others, raw: fileWithBytes, url: fileWithUri, mediaType: others.mediaType ?? mimeType, filename: others.filename ?? name });
  }
  // The v1.0 draft's FilePart: {"file":{"fileWithBytes"|"fileWithUri","mediaType","name"}}; or v0.3's file without kind.
  if (isObject(rest.file)) {
    const { file, ...others } = rest;
    return compact({
      ...others,
      raw: file.fileWithBytes ?? file.bytes,
      url: file.fileWithUri ?? file.uri,
      mediaType: others.mediaType ?? file.mediaType ?? file.mimeType,
      filename: others.filename ?? file.name ?? file.filename,
    });
  }
  // The v1.0 draft's DataPart: {"data":{"data":{…}}}.
  if (isObject(rest.data) && Object.keys(rest.data).length === 1 && "data" in rest.data) {
    return { ...rest, data: rest.data.data };
  }
  return rest;
}

/** A Message in any accepted shape → a v1.0 Message. */
export function lenientMessage(message: unknown): unknown {
  if (!isObject(message)) return message;
  const { kind: _kind, ...rest } = message;
  return compact({ ...rest, role: lenientRole(rest.role), parts: Array.isArray(rest.parts) ? rest.parts.map(lenientPart) : rest.parts });
}

/**
 * A push config in any accepted shape → a v1.0 TaskPushNotificationConfig:
 * the v0.3 wrapper {taskId, pushNotificationConfig:{…}} is flattened and
 * `authentication.schemes` (v0.3 and the draft) gives `scheme`.
 */
export function lenientPushConfig(config: unknown): unknown {
  if (!isObject(config)) return config;
  let flat: Record<string, unknown> = config;
  if (isObject(config.pushNotificationConfig)) {
    const { pushNotificationConfig: inner, ...outer } = config;
    flat = { ...outer, ...inner };
  }
  const auth = flat.authentication;
  if (isObject(auth) && auth.scheme === undefined && Array.isArray(auth.schemes)) {
    const { schemes, ...restAuth } = auth;
    flat = { ...flat, authentication: compact({ ...restAuth, scheme: schemes[0] }) };
  }
  return flat;
}

/** SendMessageConfiguration: `blocking` (v0.3, draft) → returnImmediately; `pushNotificationConfig` → taskPushNotificationConfig. */
export function lenientSendConfiguration(config: unknown): unknown {
  if (!isObject(config)) return config;
  const { blocking, pushNotificationConfig, ...rest } = config;
  const out: Record<string, unknown> = { ...rest };
  if (out.returnImmediately === undefined && typeof blocking === "boolean") out.returnImmediately = !blocking;
  const push = out.taskPushNotificationConfig ?? pushNotificationConfig;
  if (push !== undefined) out.taskPushNotificationConfig = lenientPushConfig(push);
  return out;
}

/** SendMessageRequest params, leniently. */
export function lenientSendRequest(params: unknown): unknown {
  if (!isObject(params)) return params;
  const out: Record<string, unknown> = { ...params, message: lenientMessage(params.message) };
  if (params.configuration !== undefined) out.configuration = lenientSendConfiguration(params.configuration);
  return compact(out);
}

/** ListTasksRequest params, leniently (the status filter's spelling). */
export function lenientListTasksRequest(params: unknown): unknown {
  if (!isObject(params) || params.status === undefined) return params;
  return { ...params, status: lenientTaskState(params.status) };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function compact<T extends object>(o: T): T {
  const out = {} as T;
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
