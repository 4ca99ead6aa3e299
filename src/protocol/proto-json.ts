import {
  create,
  fromJson,
  ScalarType,
  toJson,
  type DescEnum,
  type DescField,
  type DescMessage,
  type JsonObject,
  type JsonValue,
  type MessageShape,
} from "@bufbuild/protobuf";
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
const ALWAYS_EMITTED = new Set<string>(
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
  const json = toJson(schema, message) as JsonObject;
  emitRequired(schema, json);
  return json;
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

/**
 * Puts the ALWAYS_EMITTED fields toJson left out back into `json`. It walks
 * the JSON, not the message: the JSON has every value that is set, and a
 * missing key is a field at its default. Only the types that can hold such
 * a field are walked (a stream sends thousands of artifact chunks whose
 * parts hold none).
 */
function emitRequired(desc: DescMessage, json: JsonObject): void {
  const plan = emissionPlan(desc);
  for (const field of plan.required) if (json[field.jsonName] === undefined) json[field.jsonName] = zeroJson(field);
  for (const field of plan.nested) {
    const value = json[field.jsonName];
    if (value === undefined) continue;
    const child = (field as DescField & { message: DescMessage }).message;
    if (field.fieldKind === "message") {
      if (isObject(value)) emitRequired(child, value);
    } else if (field.fieldKind === "list") {
      if (Array.isArray(value)) for (const item of value) if (isObject(item)) emitRequired(child, item);
    } else if (isObject(value)) {
      for (const item of Object.values(value)) if (isObject(item)) emitRequired(child, item);
    }
  }
}

/** The ALWAYS_EMITTED fields of a message type, in declaration order (the order emitRequired adds them in). */
export function requiredFields(desc: DescMessage): readonly DescField[] {
  return emissionPlan(desc).required;
}

/** The ProtoJSON text of a field holding its zero value, as emitRequired writes it. */
export function zeroJsonText(field: DescField): string {
  return JSON.stringify(zeroJson(field));
}

/** Which fields of a message emitRequired fills in, and which it walks into. */
interface EmissionPlan {
  /** Fields of ALWAYS_EMITTED. */
  readonly required: readonly DescField[];
  /** Message, list-of-message and map-of-message fields whose type holds an ALWAYS_EMITTED field somewhere below. */
  readonly nested: readonly DescField[];
}

/**
 * Worked out once per message type, so that writing an event costs one
 * walk of the JSON where a required field can be missing, and nothing
 * below a type that has none (an artifact's parts, say).
 */
const plans = new Map<string, EmissionPlan>();

function emissionPlan(desc: DescMessage): EmissionPlan {
  let plan = plans.get(desc.typeName);
  if (plan) return plan;
  const required = desc.fields.filter((f) => ALWAYS_EMITTED.has(`${desc.typeName}.${f.name}`));
  const nested = desc.fields.filter((f) => {
    const child = messageOf(f);
    return child !== undefined && !isWellKnown(child) && holdsRequired(child, new Set());
  });
  plan = { required, nested };
  plans.set(desc.typeName, plan);
  return plan;
}

/** Whether a message type or one below it has an ALWAYS_EMITTED field; a type met again on the way down adds nothing new. */
function holdsRequired(desc: DescMessage, seen: Set<string>): boolean {
  if (seen.has(desc.typeName)) return false;
  seen.add(desc.typeName);
  for (const f of desc.fields) {
    if (ALWAYS_EMITTED.has(`${desc.typeName}.${f.name}`)) return true;
    const child = messageOf(f);
    if (child && !isWellKnown(child) && holdsRequired(child, seen)) return true;
  }
  return false;
}

/** The message type a field holds, alone, in a list or as map values. */
function messageOf(f: DescField): DescMessage | undefined {
  if (f.fieldKind === "message") return f.message;
  if (f.fieldKind === "list" && f.listKind === "message") return f.message;
  if (f.fieldKind === "map" && f.mapKind === "message") return f.message;
  return undefined;
}

/** The ProtoJSON of a field holding its zero value. */
function zeroJson(field: DescField): JsonValue {
  switch (field.fieldKind) {
    case "list":
      return [];
    case "map":
      return {};
    case "enum":
      return field.enum.values.find((v) => v.number === 0)?.name ?? 0;
    case "message":
      return writeProtoJson(field.message, create(field.message));
    case "scalar":
      switch (field.scalar) {
        case ScalarType.STRING:
        case ScalarType.BYTES:
          return "";
        case ScalarType.BOOL:
          return false;
        case ScalarType.INT64:
        case ScalarType.UINT64:
        case ScalarType.SINT64:
        case ScalarType.FIXED64:
        case ScalarType.SFIXED64:
          return "0";
        default:
          return 0;
      }
  }
}

/** google.protobuf.* types have their own JSON forms (Struct, Value, Timestamp…): not walked. */
function isWellKnown(desc: DescMessage): boolean {
  return desc.typeName.startsWith("google.protobuf.");
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
