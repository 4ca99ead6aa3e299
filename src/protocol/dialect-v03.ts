/**
 * The A2A v0.3 JSON dialect, both directions, in one place:
 * `v03ToV1…` turn v0.3 JSON into v1.0 ProtoJSON (which is then read with
 * fromJson), `v1ToV03…` turn v1.0 messages into the v0.3 shapes of the
 * v0.3.0 schema. The server needs requests in and results out; the other
 * two directions (results in, requests out) serve clients of v0.3 agents
 * and make every shape testable by round trip.
 *
 * What v0.3 cannot carry is dropped on the way out: a text or data part's
 * mediaType and filename, an AgentInterface's tenant and protocolVersion.
 */
import { toJson, type JsonObject } from "@bufbuild/protobuf";
import { TimestampSchema, ValueSchema, type Timestamp } from "@bufbuild/protobuf/wkt";
import { base64Encode } from "@bufbuild/protobuf/wire";
import {
  Role,
  TaskState,
  type AgentCard,
  type CancelTaskRequest,
  type DeleteTaskPushNotificationConfigRequest,
  type GetTaskPushNotificationConfigRequest,
  type GetTaskRequest,
  type ListTaskPushNotificationConfigsRequest,
  type SendMessageRequest,
  type SubscribeToTaskRequest,
  type AgentSkill,
  type Artifact,
  type Message,
  type OAuthFlows,
  type Part,
  type SecurityRequirement,
  type SecurityScheme,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
  type TaskArtifactUpdateEvent,
  type TaskPushNotificationConfig,
  type TaskStatus,
  type TaskStatusUpdateEvent,
} from "../../gen/a2a/v1/a2a_pb.js";
import { invalidParams } from "./a2a-error.js";
import { isSettled } from "./task-state.js";
import type {
  V03AgentCard,
  V03Artifact,
  V03ArtifactUpdate,
  V03Message,
  V03Part,
  V03Role,
  V03SecurityScheme,
  V03SendParams,
  V03StatusUpdate,
  V03StreamResult,
  V03Task,
  V03TaskPushConfig,
  V03TaskState,
  V03TaskStatus,
} from "./v03-types.js";

/** The protocolVersion a v0.3 agent card names. */
export const V03_PROTOCOL_VERSION = "0.3.0";

// ---------------------------------------------------------------------------
// v0.3 → v1.0 (request params; JSON in, ProtoJSON out)

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

/**
 * A v0.3 PushNotificationConfig → a v1.0 TaskPushNotificationConfig. v0.3
 * clients address "the" config of a task without an id, so a config set
 * without one gets the task id as its id (and `get` without one asks for it).
 */
export function v03ToV1PushConfig(config: unknown, taskId: unknown): unknown {
  if (!isObject(config)) return config;
  const auth = config.authentication;
  const authentication = isObject(auth)
    ? compact({ scheme: Array.isArray(auth.schemes) ? auth.schemes[0] : auth.scheme, credentials: auth.credentials })
    : auth;
  const id = config.id ?? (typeof taskId === "string" && taskId !== "" ? taskId : undefined);
  return compact({ taskId, id, url: config.url, token: config.token, authentication });
}

/** v0.3 MessageSendConfiguration → v1.0 SendMessageConfiguration; `blocking: false` is `returnImmediately: true`. */
export function v03ToV1SendConfiguration(config: unknown): unknown {
  if (!isObject(config)) return config;
  const { blocking } = config;
  if (blocking !== undefined && blocking !== null && typeof blocking !== "boolean") {
    throw invalidParams("configuration.blocking", "must be a boolean");
  }
  return compact({
    acceptedOutputModes: config.acceptedOutputModes,
    historyLength: config.historyLength,
    // v0.3: absent means blocking, like v1.0's returnImmediately unset (§3.2.2).
    returnImmediately: blocking === false ? true : undefined,
    taskPushNotificationConfig: config.pushNotificationConfig === undefined ? undefined : v03ToV1PushConfig(config.pushNotificationConfig, undefined),
  });
}

/** v0.3 MessageSendParams → v1.0 SendMessageRequest. */
export function v03ToV1SendParams(params: unknown): unknown {
  if (!isObject(params)) return params;
  return compact({ message: v03ToV1Message(params.message), configuration: v03ToV1SendConfiguration(params.configuration), metadata: params.metadata });
}

/** v0.3 TaskQueryParams → v1.0 GetTaskRequest. */
export function v03ToV1TaskQuery(params: unknown): unknown {
  if (!isObject(params)) return params;
  return compact({ id: params.id, historyLength: params.historyLength });
}

/** v0.3 TaskIdParams (tasks/cancel) → v1.0 CancelTaskRequest. */
export function v03ToV1CancelParams(params: unknown): unknown {
  if (!isObject(params)) return params;
  return compact({ id: params.id, metadata: params.metadata });
}

/** v0.3 TaskIdParams (tasks/resubscribe) → v1.0 SubscribeToTaskRequest. */
export function v03ToV1SubscribeParams(params: unknown): unknown {
  if (!isObject(params)) return params;
  return compact({ id: params.id });
}

/** v0.3 TaskPushNotificationConfig (tasks/pushNotificationConfig/set) → v1.0 TaskPushNotificationConfig. */
export function v03ToV1PushSetParams(params: unknown): unknown {
  if (!isObject(params)) return params;
  if (params.pushNotificationConfig === undefined) return compact({ taskId: params.taskId });
  return v03ToV1PushConfig(params.pushNotificationConfig, params.taskId);
}

/** v0.3 GetTaskPushNotificationConfigParams → v1.0 GetTaskPushNotificationConfigRequest. */
export function v03ToV1PushGetParams(params: unknown): unknown {
  if (!isObject(params)) return params;
  return compact({ taskId: params.id, id: params.pushNotificationConfigId ?? params.id });
}

/** v0.3 ListTaskPushNotificationConfigParams → v1.0 ListTaskPushNotificationConfigsRequest. */
export function v03ToV1PushListParams(params: unknown): unknown {
  if (!isObject(params)) return params;
  return compact({ taskId: params.id });
}

/** v0.3 DeleteTaskPushNotificationConfigParams → v1.0 DeleteTaskPushNotificationConfigRequest. */
export function v03ToV1PushDeleteParams(params: unknown): unknown {
  if (!isObject(params)) return params;
  return compact({ taskId: params.id, id: params.pushNotificationConfigId });
}

/** v0.3 TaskStatus → v1.0 TaskStatus. */
export function v03ToV1Status(status: unknown): unknown {
  if (!isObject(status)) return status;
  return compact({ state: v03ToV1State(status.state), message: v03ToV1Message(status.message), timestamp: status.timestamp });
}

/** v0.3 Artifact → v1.0 Artifact. */
export function v03ToV1Artifact(artifact: unknown): unknown {
  if (!isObject(artifact)) return artifact;
  return compact({ ...artifact, parts: Array.isArray(artifact.parts) ? artifact.parts.map(v03ToV1Part) : artifact.parts });
}

/** v0.3 Task → v1.0 Task. */
export function v03ToV1Task(task: unknown): unknown {
  if (!isObject(task)) return task;
  return compact({
    id: task.id,
    contextId: task.contextId,
    status: v03ToV1Status(task.status),
    artifacts: Array.isArray(task.artifacts) ? task.artifacts.map(v03ToV1Artifact) : task.artifacts,
    history: Array.isArray(task.history) ? task.history.map(v03ToV1Message) : task.history,
    metadata: task.metadata,
  });
}

/** v0.3 status-update → v1.0 TaskStatusUpdateEvent (v1.0 has no `final`: the stream's end says it). */
export function v03ToV1StatusUpdate(event: unknown): unknown {
  if (!isObject(event)) return event;
  return compact({ taskId: event.taskId, contextId: event.contextId, status: v03ToV1Status(event.status), metadata: event.metadata });
}

/** v0.3 artifact-update → v1.0 TaskArtifactUpdateEvent. */
export function v03ToV1ArtifactUpdate(event: unknown): unknown {
  if (!isObject(event)) return event;
  return compact({
    taskId: event.taskId,
    contextId: event.contextId,
    artifact: v03ToV1Artifact(event.artifact),
    append: event.append,
    lastChunk: event.lastChunk,
    metadata: event.metadata,
  });
}

/** A kind-tagged v0.3 streaming result → a v1.0 StreamResponse. */
export function v03ToV1StreamResult(result: unknown): unknown {
  if (!isObject(result)) return result;
  switch (result.kind) {
    case "task":
      return { task: v03ToV1Task(result) };
    case "message":
      return { message: v03ToV1Message(result) };
    case "status-update":
      return { statusUpdate: v03ToV1StatusUpdate(result) };
    case "artifact-update":
      return { artifactUpdate: v03ToV1ArtifactUpdate(result) };
    default:
      return result;
  }
}

/** A v0.3 message/send result (Task or Message) → a v1.0 SendMessageResponse. */
export function v03ToV1SendResult(result: unknown): unknown {
  if (!isObject(result)) return result;
  if (result.kind === "task") return { task: v03ToV1Task(result) };
  if (result.kind === "message") return { message: v03ToV1Message(result) };
  return result;
}

/** A v0.3 TaskPushNotificationConfig (a result, or the set params) → a v1.0 TaskPushNotificationConfig. */
export function v03ToV1TaskPushConfig(config: unknown): unknown {
  return v03ToV1PushSetParams(config);
}

/**
 * A v0.3 AgentCard → a v1.0 AgentCard: `url` + `preferredTransport` and
 * `additionalInterfaces` become supportedInterfaces (each with the card's
 * Major.Minor protocolVersion), security schemes lose their `type` tag.
 */
export function v03ToV1AgentCard(card: unknown): unknown {
  if (!isObject(card)) return card;
  const version = typeof card.protocolVersion === "string" ? card.protocolVersion.split(".").slice(0, 2).join(".") : undefined;
  const interfaces: Array<Record<string, unknown>> = [];
  const add = (url: unknown, binding: unknown): void => {
    if (typeof url !== "string") return;
    const protocolBinding = typeof binding === "string" ? binding : "JSONRPC";
    if (!interfaces.some((i) => i.url === url && i.protocolBinding === protocolBinding)) interfaces.push(compact({ url, protocolBinding, protocolVersion: version }));
  };
  add(card.url, card.preferredTransport);
  if (Array.isArray(card.additionalInterfaces)) for (const i of card.additionalInterfaces) if (isObject(i)) add(i.url, i.transport);
  const caps = isObject(card.capabilities) ? card.capabilities : {};
  const schemes: Record<string, unknown> = {};
  if (isObject(card.securitySchemes)) {
    for (const [name, scheme] of Object.entries(card.securitySchemes)) schemes[name] = v03ToV1SecurityScheme(scheme);
  }
  return compact({
    name: card.name,
    description: card.description,
    supportedInterfaces: interfaces,
    provider: card.provider,
    version: card.version,
    documentationUrl: card.documentationUrl,
    capabilities: compact({ streaming: caps.streaming, pushNotifications: caps.pushNotifications, extensions: caps.extensions, extendedAgentCard: card.supportsAuthenticatedExtendedCard }),
    securitySchemes: Object.keys(schemes).length > 0 ? schemes : undefined,
    securityRequirements: Array.isArray(card.security) ? card.security.map(v03ToV1Security) : undefined,
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: Array.isArray(card.skills)
      ? card.skills.map((skill: unknown) => {
          if (!isObject(skill)) return skill;
          const { security, ...rest } = skill;
          return compact({ ...rest, securityRequirements: Array.isArray(security) ? security.map(v03ToV1Security) : undefined });
        })
      : card.skills,
    signatures: card.signatures,
    iconUrl: card.iconUrl,
  });
}

function v03ToV1Security(requirement: unknown): unknown {
  if (!isObject(requirement)) return requirement;
  const schemes: Record<string, unknown> = {};
  for (const [name, scopes] of Object.entries(requirement)) schemes[name] = { list: scopes };
  return { schemes };
}

function v03ToV1SecurityScheme(scheme: unknown): unknown {
  if (!isObject(scheme)) return scheme;
  const { type, ...rest } = scheme;
  switch (type) {
    case "apiKey":
      return { apiKeySecurityScheme: compact({ description: rest.description, location: rest.in, name: rest.name }) };
    case "http":
      return { httpAuthSecurityScheme: compact({ description: rest.description, scheme: rest.scheme, bearerFormat: rest.bearerFormat }) };
    case "oauth2": {
      const flows = isObject(rest.flows) ? rest.flows : {};
      const [flowName, flow] = Object.entries(flows)[0] ?? [];
      return { oauth2SecurityScheme: compact({ description: rest.description, flows: flowName ? { [flowName]: flow } : undefined, oauth2MetadataUrl: rest.oauth2MetadataUrl }) };
    }
    case "openIdConnect":
      return { openIdConnectSecurityScheme: compact({ description: rest.description, openIdConnectUrl: rest.openIdConnectUrl }) };
    case "mutualTLS":
      return { mtlsSecurityScheme: compact({ description: rest.description }) };
    default:
      return scheme;
  }
}

// ---------------------------------------------------------------------------
// v1.0 → v0.3 (results; messages in, v0.3 JSON out)

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
      return compact({ kind: "data" as const, data: toJson(ValueSchema, c.value), metadata });
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

/** TaskStatus → v0.3 TaskStatus. */
export function v1ToV03Status(status: TaskStatus | undefined): V03TaskStatus {
  if (!status) return { state: "unknown" };
  return compact({
    state: v1ToV03State(status.state),
    message: status.message ? v1ToV03Message(status.message) : undefined,
    timestamp: status.timestamp ? timestampJson(status.timestamp) : undefined,
  });
}

/** Artifact → v0.3 Artifact. */
export function v1ToV03Artifact(artifact: Artifact): V03Artifact {
  return compact({
    artifactId: artifact.artifactId,
    parts: artifact.parts.map(v1ToV03Part),
    name: artifact.name || undefined,
    description: artifact.description || undefined,
    extensions: nonEmpty(artifact.extensions),
    metadata: artifact.metadata,
  });
}

/** Task → v0.3 Task; empty artifacts and history stay absent, as in v1.0 (§3.1.4, §3.2.4). */
export function v1ToV03Task(task: Task): V03Task {
  return compact({
    kind: "task" as const,
    id: task.id,
    contextId: task.contextId,
    status: v1ToV03Status(task.status),
    artifacts: task.artifacts.length > 0 ? task.artifacts.map(v1ToV03Artifact) : undefined,
    history: task.history.length > 0 ? task.history.map(v1ToV03Message) : undefined,
    metadata: task.metadata,
  });
}

/**
 * TaskStatusUpdateEvent → v0.3 status-update. v0.3 marks the last event of
 * a stream with `final: true`; streams end once the task is terminal or
 * interrupted (§3.1.2, §3.2.2), so that is when an update is final.
 */
export function v1ToV03StatusUpdate(event: TaskStatusUpdateEvent): V03StatusUpdate {
  return compact({
    kind: "status-update" as const,
    taskId: event.taskId,
    contextId: event.contextId,
    status: v1ToV03Status(event.status),
    final: isSettled(event.status?.state ?? TaskState.UNSPECIFIED),
    metadata: event.metadata,
  });
}

/** TaskArtifactUpdateEvent → v0.3 artifact-update. */
export function v1ToV03ArtifactUpdate(event: TaskArtifactUpdateEvent): V03ArtifactUpdate {
  return compact({
    kind: "artifact-update" as const,
    taskId: event.taskId,
    contextId: event.contextId,
    artifact: event.artifact ? v1ToV03Artifact(event.artifact) : { artifactId: "", parts: [] },
    append: event.append || undefined,
    lastChunk: event.lastChunk || undefined,
    metadata: event.metadata,
  });
}

/** StreamResponse → the kind-tagged v0.3 streaming result. */
export function v1ToV03StreamResult(event: StreamResponse): V03StreamResult {
  const p = event.payload;
  switch (p.case) {
    case "task":
      return v1ToV03Task(p.value);
    case "message":
      return v1ToV03Message(p.value);
    case "statusUpdate":
      return v1ToV03StatusUpdate(p.value);
    case "artifactUpdate":
      return v1ToV03ArtifactUpdate(p.value);
    default:
      throw new Error("a StreamResponse without a payload");
  }
}

/** SendMessageResponse → the v0.3 message/send result: a Task or a Message. */
export function v1ToV03SendResult(response: SendMessageResponse): V03Task | V03Message {
  const p = response.payload;
  if (p.case === "task") return v1ToV03Task(p.value);
  if (p.case === "message") return v1ToV03Message(p.value);
  throw new Error("a SendMessageResponse without a payload");
}

/** TaskPushNotificationConfig → v0.3 TaskPushNotificationConfig. */
export function v1ToV03PushConfig(config: TaskPushNotificationConfig): V03TaskPushConfig {
  return {
    taskId: config.taskId,
    pushNotificationConfig: compact({
      id: config.id || undefined,
      url: config.url,
      token: config.token || undefined,
      authentication: config.authentication
        ? compact({ schemes: config.authentication.scheme ? [config.authentication.scheme] : [], credentials: config.authentication.credentials || undefined })
        : undefined,
    }),
  };
}

/**
 * AgentCard → v0.3 AgentCard. The main `url` is the first JSON-RPC
 * interface (this dialect only exists on JSON-RPC), every interface is
 * listed in additionalInterfaces, security schemes get their v0.3 `type`.
 */
export function v1ToV03AgentCard(card: AgentCard): V03AgentCard {
  const interfaces = card.supportedInterfaces;
  const main = interfaces.find((i) => i.protocolBinding.toUpperCase() === "JSONRPC") ?? interfaces[0];
  const schemes: Record<string, V03SecurityScheme> = {};
  for (const [name, scheme] of Object.entries(card.securitySchemes)) {
    const s = v1ToV03SecurityScheme(scheme);
    if (s) schemes[name] = s;
  }
  const caps = card.capabilities;
  return compact({
    protocolVersion: V03_PROTOCOL_VERSION,
    name: card.name,
    description: card.description,
    url: main?.url ?? "",
    preferredTransport: main?.protocolBinding,
    additionalInterfaces: interfaces.length > 0 ? interfaces.map((i) => ({ url: i.url, transport: i.protocolBinding })) : undefined,
    version: card.version,
    provider: card.provider ? { organization: card.provider.organization, url: card.provider.url } : undefined,
    documentationUrl: card.documentationUrl,
    iconUrl: card.iconUrl,
    capabilities: compact({
      streaming: caps?.streaming,
      pushNotifications: caps?.pushNotifications,
      extensions:
        caps && caps.extensions.length > 0
          ? caps.extensions.map((e) => compact({ uri: e.uri, description: e.description || undefined, required: e.required || undefined, params: e.params }))
          : undefined,
    }),
    securitySchemes: Object.keys(schemes).length > 0 ? schemes : undefined,
    security: card.securityRequirements.length > 0 ? card.securityRequirements.map(v1ToV03Security) : undefined,
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map(v1ToV03Skill),
    supportsAuthenticatedExtendedCard: caps?.extendedAgentCard,
    signatures: card.signatures.length > 0 ? card.signatures.map((s) => compact({ protected: s.protected, signature: s.signature, header: s.header })) : undefined,
  });
}

function v1ToV03Skill(skill: AgentSkill): V03AgentCard["skills"][number] {
  return compact({
    id: skill.id,
    name: skill.name,
    description: skill.description,
    tags: skill.tags,
    examples: nonEmpty(skill.examples),
    inputModes: nonEmpty(skill.inputModes),
    outputModes: nonEmpty(skill.outputModes),
    security: skill.securityRequirements.length > 0 ? skill.securityRequirements.map(v1ToV03Security) : undefined,
  });
}

function v1ToV03Security(req: SecurityRequirement): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, list] of Object.entries(req.schemes)) out[name] = [...list.list];
  return out;
}

function v1ToV03SecurityScheme(scheme: SecurityScheme): V03SecurityScheme | undefined {
  const s = scheme.scheme;
  switch (s.case) {
    case "apiKeySecurityScheme":
      return compact({ type: "apiKey", in: s.value.location, name: s.value.name, description: s.value.description || undefined });
    case "httpAuthSecurityScheme":
      return compact({ type: "http", scheme: s.value.scheme, bearerFormat: s.value.bearerFormat || undefined, description: s.value.description || undefined });
    case "oauth2SecurityScheme":
      return compact({
        type: "oauth2",
        flows: v1ToV03Flows(s.value.flows),
        oauth2MetadataUrl: s.value.oauth2MetadataUrl || undefined,
        description: s.value.description || undefined,
      });
    case "openIdConnectSecurityScheme":
      return compact({ type: "openIdConnect", openIdConnectUrl: s.value.openIdConnectUrl, description: s.value.description || undefined });
    case "mtlsSecurityScheme":
      return compact({ type: "mutualTLS", description: s.value.description || undefined });
    default:
      return undefined;
  }
}

function v1ToV03Flows(flows: OAuthFlows | undefined): JsonObject {
  const f = flows?.flow;
  if (!f || f.case === undefined) return {};
  const v = f.value as unknown as Record<string, unknown>;
  const flow: JsonObject = {};
  for (const key of ["authorizationUrl", "deviceAuthorizationUrl", "tokenUrl", "refreshUrl"]) {
    if (typeof v[key] === "string" && v[key] !== "") flow[key] = v[key] as string;
  }
  flow.scopes = { ...(v.scopes as Record<string, string>) };
  return { [f.case]: flow };
}

/** SendMessageRequest → v0.3 MessageSendParams; `blocking` is written whenever there is a configuration. */
export function v1ToV03SendParams(req: SendMessageRequest): V03SendParams {
  const c = req.configuration;
  return compact({
    message: req.message ? v1ToV03Message(req.message) : undefined,
    configuration: c
      ? compact({
          acceptedOutputModes: nonEmpty(c.acceptedOutputModes),
          historyLength: c.historyLength,
          blocking: !c.returnImmediately,
          pushNotificationConfig: c.taskPushNotificationConfig ? v1ToV03PushConfig(c.taskPushNotificationConfig).pushNotificationConfig : undefined,
        })
      : undefined,
    metadata: req.metadata,
  });
}

/** GetTaskRequest → v0.3 TaskQueryParams. */
export function v1ToV03TaskQuery(req: GetTaskRequest): { id: string; historyLength?: number } {
  return compact({ id: req.id, historyLength: req.historyLength });
}

/** CancelTaskRequest → v0.3 TaskIdParams. */
export function v1ToV03CancelParams(req: CancelTaskRequest): { id: string; metadata?: JsonObject } {
  return compact({ id: req.id, metadata: req.metadata });
}

/** SubscribeToTaskRequest → v0.3 TaskIdParams (tasks/resubscribe). */
export function v1ToV03SubscribeParams(req: SubscribeToTaskRequest): { id: string } {
  return { id: req.id };
}

/** GetTaskPushNotificationConfigRequest → v0.3 GetTaskPushNotificationConfigParams. */
export function v1ToV03PushGetParams(req: GetTaskPushNotificationConfigRequest): { id: string; pushNotificationConfigId?: string } {
  return compact({ id: req.taskId, pushNotificationConfigId: req.id || undefined });
}

/** ListTaskPushNotificationConfigsRequest → v0.3 ListTaskPushNotificationConfigParams. */
export function v1ToV03PushListParams(req: ListTaskPushNotificationConfigsRequest): { id: string } {
  return { id: req.taskId };
}

/** DeleteTaskPushNotificationConfigRequest → v0.3 DeleteTaskPushNotificationConfigParams. */
export function v1ToV03PushDeleteParams(req: DeleteTaskPushNotificationConfigRequest): { id: string; pushNotificationConfigId: string } {
  return { id: req.taskId, pushNotificationConfigId: req.id };
}

// ---------------------------------------------------------------------------

function timestampJson(ts: Timestamp): string {
  return toJson(TimestampSchema, ts) as string;
}

function nonEmpty<T>(list: readonly T[]): T[] | undefined {
  return list.length > 0 ? [...list] : undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Drops undefined members, which are not JSON and which fromJson refuses. */
function compact<T extends object>(o: T): T {
  const out = {} as T;
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
