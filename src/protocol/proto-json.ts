import { fromJson, type DescEnum, type DescField, type DescMessage, type JsonObject, type JsonValue, type MessageShape } from "@bufbuild/protobuf";
import { AlwaysEmitted, isWellKnown, jsonFromBinary } from "../codec/index.js";
import { A2AError, type FieldViolation } from "./a2a-error.js";

/**
 * Fields that appear in every ProtoJSON answer even when they hold their
 * zero value (which toJson leaves out): the fields the spec marks REQUIRED
 * (wire contract, §5.7) plus Task.context_id, which §3.4.1 says is always
 * returned, and ListTaskPushNotificationConfigsResponse.configs, so that an
 * empty list reads as `[]`. Everything else keeps toJson's omission of
 * defaults: ListTasks without includeArtifacts has no `artifacts` (§3.1.4)
 * and historyLength 0 has no `history` (§3.2.4).
 */
const ALWAYS_EMITTED = new AlwaysEmitted(
  [
    "Task.id", "Task.context_id", "Task.status",
    "TaskStatus.state",
    "Message.message_id", "Message.role", "Message.parts",
    "Artifact.artifact_id", "Artifact.parts",
    "TaskStatusUpdateEvent.task_id", "TaskStatusUpdateEvent.context_id", "TaskStatusUpdateEvent.status",
    "TaskArtifactUpdateEvent.task_id", "TaskArtifactUpdateEvent.context_id", "TaskArtifactUpdateEvent.artifact",
    "ListTasksResponse.tasks", "ListTasksResponse.next_page_token", "ListTasksResponse.page_size", "ListTasksResponse.total_size",
    "TaskPushNotificationConfig.url",
    "ListTaskPushNotificationConfigsResponse.configs",
    "AuthenticationInfo.scheme",
    "AgentCard.name", "AgentCard.description", "AgentCard.supported_interfaces", "AgentCard.version", "AgentCard.capabilities",
    "AgentCard.default_input_modes", "AgentCard.default_output_modes", "AgentCard.skills",
    "AgentInterface.url", "AgentInterface.protocol_binding", "AgentInterface.protocol_version",
    "AgentProvider.url", "AgentProvider.organization",
    "AgentSkill.id", "AgentSkill.name", "AgentSkill.description", "AgentSkill.tags",
    "AgentCardSignature.protected", "AgentCardSignature.signature",
    "APIKeySecurityScheme.location", "APIKeySecurityScheme.name",
    "HTTPAuthSecurityScheme.scheme",
    "OAuth2SecurityScheme.flows",
    "OpenIdConnectSecurityScheme.open_id_connect_url",
    "AuthorizationCodeOAuthFlow.authorization_url", "AuthorizationCodeOAuthFlow.token_url", "AuthorizationCodeOAuthFlow.scopes",
    "ClientCredentialsOAuthFlow.token_url", "ClientCredentialsOAuthFlow.scopes",
    "DeviceCodeOAuthFlow.device_authorization_url", "DeviceCodeOAuthFlow.token_url", "DeviceCodeOAuthFlow.scopes",
    "ImplicitOAuthFlow.authorization_url", "ImplicitOAuthFlow.scopes",
    "PasswordOAuthFlow.token_url", "PasswordOAuthFlow.scopes",
  ].map((f) => `lf.a2a.v1.${f}`),
);

/** §5.7: unknown fields are ignored, for forward compatibility. */
const READ_OPTIONS = { ignoreUnknownFields: true } as const;

/**
 * ProtoJSON of a message as the A2A bindings answer it (§5.5): toJson's
 * camelCase names and enum names, with the always-emitted fields above
 * present even when they hold a default.
 */
export function writeProtoJson<Desc extends DescMessage>(schema: Desc, message: MessageShape<Desc>): JsonObject {
  return ALWAYS_EMITTED.toJson(schema, message);
}

/** Whether the A2A bindings' always-emitted fields (above) are written. */
export interface WireJsonOptions {
  /** true: as writeProtoJson (JSON-RPC, REST); false: as toJson alone (Connect's JSON codec). */
  readonly required: boolean;
}

/**
 * ProtoJSON text of a message given in protobuf binary, the same to the
 * character as `JSON.stringify(writeProtoJson(schema, fromBinary(schema,
 * bytes)))` (or of toJson, without `required`), read straight off the
 * wire (src/codec/json-from-binary.ts).
 */
export function wireJson(schema: DescMessage, bytes: Uint8Array, options: WireJsonOptions): string {
  return jsonFromBinary(schema, bytes, options.required ? ALWAYS_EMITTED : undefined);
}

/**
 * Parses ProtoJSON into a message. A value of the wrong shape is
 * InvalidParams naming the offending field by its dotted JSON path under
 * `prefix` (e.g. "message.parts[0].raw"), as §3.3.2 asks.
 */
export function readProtoJson<Desc extends DescMessage>(schema: Desc, json: unknown, prefix = ""): MessageShape<Desc> {
  if (!isObject(json)) {
    throw invalidShape(prefix || "params", `must be a JSON object, got ${describe(json)}`);
  }
  let message: MessageShape<Desc>;
  try {
    message = fromJson(schema, json as JsonValue, READ_OPTIONS);
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    const located = locateFault(schema, json, prefix);
    throw invalidShape(located.field, located.description ?? cleanReason(reason));
  }
  // ignoreUnknownFields also drops enum names fromJson does not know; a misspelt filter must not widen a query.
  checkEnumNames(schema, json, prefix);
  return message;
}

/**
 * Per message type: its fields by JSON and proto name, when an enum can be
 * reached from it (else there is nothing to check below it). Built once per
 * type: every JSON request is checked, SendMessage's Role among them.
 */
const enumFieldMaps = new Map<DescMessage, ReadonlyMap<string, DescField> | null>();

function enumFieldsOf(desc: DescMessage): ReadonlyMap<string, DescField> | null {
  let fields = enumFieldMaps.get(desc);
  if (fields === undefined) {
    fields = reachesEnum(desc, new Set()) ? new Map(desc.fields.flatMap((f) => [[f.jsonName, f] as const, [f.name, f] as const])) : null;
    enumFieldMaps.set(desc, fields);
  }
  return fields;
}

function reachesEnum(desc: DescMessage, seen: Set<DescMessage>): boolean {
  if (seen.has(desc) || isWellKnown(desc)) return false;
  seen.add(desc);
  return desc.fields.some((f) => {
    const kind = f.fieldKind === "list" ? f.listKind : f.fieldKind === "map" ? f.mapKind : f.fieldKind;
    if (kind === "enum") return true;
    return kind === "message" && reachesEnum((f as { message: DescMessage }).message, seen);
  });
}

function isEnumName(e: DescEnum, v: JsonValue): boolean {
  return typeof v !== "string" || e.values.some((x) => x.name === v);
}

function unknownEnumName(e: DescEnum, v: JsonValue, at: string): A2AError {
  return invalidShape(at, `${JSON.stringify(v)} is not one of ${e.values.map((x) => x.name).join(", ")}`);
}

/** Finds enum values given as names that the enum does not have. A path is built only for an error or a level below. */
function checkEnumNames(desc: DescMessage, json: JsonObject, path: string): void {
  const fields = enumFieldsOf(desc);
  if (!fields) return;
  for (const key in json) {
    const field = fields.get(key);
    const value = json[key];
    if (!field || value === null || value === undefined) continue;
    if (field.fieldKind === "enum") {
      if (!isEnumName(field.enum, value)) throw unknownEnumName(field.enum, value, joinPath(path, key));
    } else if (field.fieldKind === "list" && Array.isArray(value)) {
      if (field.listKind === "enum") {
        for (let i = 0; i < value.length; i++) if (!isEnumName(field.enum, value[i]!)) throw unknownEnumName(field.enum, value[i]!, `${joinPath(path, key)}[${i}]`);
      } else if (field.listKind === "message" && enumFieldsOf(field.message)) {
        for (let i = 0; i < value.length; i++) if (isObject(value[i])) checkEnumNames(field.message, value[i] as JsonObject, `${joinPath(path, key)}[${i}]`);
      }
    } else if (field.fieldKind === "map" && isObject(value)) {
      if (field.mapKind === "enum") {
        for (const k in value) if (!isEnumName(field.enum, value[k]!)) throw unknownEnumName(field.enum, value[k]!, `${joinPath(path, key)}.${k}`);
      } else if (field.mapKind === "message" && enumFieldsOf(field.message)) {
        for (const k in value) if (isObject(value[k])) checkEnumNames(field.message, value[k] as JsonObject, `${joinPath(path, key)}.${k}`);
      }
    } else if (field.fieldKind === "message" && isObject(value) && enumFieldsOf(field.message)) {
      checkEnumNames(field.message, value, joinPath(path, key));
    }
  }
}

function joinPath(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function invalidShape(field: string, description: string): A2AError {
  const violation: FieldViolation = { field, description };
  return new A2AError("InvalidParams", `${field}: ${description}`, { violations: [violation] });
}

/**
 * Finds the innermost field whose JSON fromJson refuses, by decoding one
 * member at a time. Only called once a decode failed, so its cost does not
 * matter.
 */
function locateFault(desc: DescMessage, json: JsonObject, path: string): { field: string; description?: string } {
  for (const [key, value] of Object.entries(json)) {
    const field = desc.fields.find((f) => f.jsonName === key || f.name === key);
    if (!field || value === null) continue;
    const fieldPath = joinPath(path, key);
    const problem = decodeProblem(desc, { [key]: value });
    if (problem === undefined) continue;
    if (field.fieldKind === "message" && !isWellKnown(field.message)) {
      if (!isObject(value)) return { field: fieldPath, description: `must be a JSON object, got ${describe(value)}` };
      return locateFault(field.message, value, fieldPath);
    }
    if (field.fieldKind === "list") {
      if (!Array.isArray(value)) return { field: fieldPath, description: `must be an array, got ${describe(value)}` };
      if (field.listKind === "message" && !isWellKnown(field.message)) {
        for (let i = 0; i < value.length; i++) {
          const item = value[i];
          if (decodeProblem(field.message, item) === undefined) continue;
          const itemPath = `${fieldPath}[${i}]`;
          if (!isObject(item)) return { field: itemPath, description: `must be a JSON object, got ${describe(item)}` };
          return locateFault(field.message, item, itemPath);
        }
      }
    }
    return { field: fieldPath, description: cleanReason(problem) };
  }
  // Every member decodes alone: the conflict is between members (a oneof set twice).
  return { field: path || "params" };
}

function decodeProblem(desc: DescMessage, json: unknown): string | undefined {
  try {
    fromJson(desc, json as JsonValue, READ_OPTIONS);
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/** "cannot decode field lf.a2a.v1.GetTaskRequest.id from JSON: expected string, got object" → "expected string, got object". */
function cleanReason(reason: string): string {
  const i = reason.indexOf("from JSON: ");
  return i >= 0 ? reason.slice(i + "from JSON: ".length) : reason;
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "string") return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  return typeof v === "object" ? "an object" : `${typeof v} ${String(v)}`;
}
