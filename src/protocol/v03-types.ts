import type { JsonObject, JsonValue } from "@bufbuild/protobuf";

/*
 * The JSON shapes of the A2A v0.3 dialect, as the v0.3.0 JSON schema
 * (specification/json/a2a.json of the A2A repository at v0.3.0) defines them: objects tagged
 * with `kind`, lowercase kebab-case states and roles. Only what the hub
 * writes is typed; what it reads stays `unknown` until translated.
 */

/** v0.3 TaskState. */
export type V03TaskState =
  | "submitted"
  | "working"
  | "input-required"
  | "completed"
  | "canceled"
  | "failed"
  | "rejected"
  | "auth-required"
  | "unknown";

/** v0.3 Message.role. */
export type V03Role = "user" | "agent";

/** v0.3 TextPart. */
export interface V03TextPart {
  kind: "text";
  text: string;
  metadata?: JsonObject;
}

/** v0.3 FileWithBytes / FileWithUri. */
export interface V03File {
  bytes?: string;
  uri?: string;
  mimeType?: string;
  name?: string;
}

/** v0.3 FilePart. */
export interface V03FilePart {
  kind: "file";
  file: V03File;
  metadata?: JsonObject;
}

/** v0.3 DataPart. */
export interface V03DataPart {
  kind: "data";
  /** v0.3 schema: an object (v1.0 values of other kinds are wrapped as {"value": …}). */
  data: JsonObject;
  metadata?: JsonObject;
}

/** v0.3 Part. */
export type V03Part = V03TextPart | V03FilePart | V03DataPart;

/** v0.3 Message. */
export interface V03Message {
  kind: "message";
  messageId: string;
  role: V03Role;
  parts: V03Part[];
  contextId?: string;
  taskId?: string;
  referenceTaskIds?: string[];
  extensions?: string[];
  metadata?: JsonObject;
}

/** v0.3 TaskStatus. */
export interface V03TaskStatus {
  state: V03TaskState;
  message?: V03Message;
  timestamp?: string;
}

/** v0.3 Artifact. */
export interface V03Artifact {
  artifactId: string;
  parts: V03Part[];
  name?: string;
  description?: string;
  extensions?: string[];
  metadata?: JsonObject;
}

/** v0.3 Task. */
export interface V03Task {
  kind: "task";
  id: string;
  contextId: string;
  status: V03TaskStatus;
  artifacts?: V03Artifact[];
  history?: V03Message[];
  metadata?: JsonObject;
}

/** v0.3 TaskStatusUpdateEvent: `final` marks the last event of a stream. */
export interface V03StatusUpdate {
  kind: "status-update";
  taskId: string;
  contextId: string;
  status: V03TaskStatus;
  final: boolean;
  metadata?: JsonObject;
}

/** v0.3 TaskArtifactUpdateEvent. */
export interface V03ArtifactUpdate {
  kind: "artifact-update";
  taskId: string;
  contextId: string;
  artifact: V03Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: JsonObject;
}

/** A v0.3 streaming result (SendStreamingMessageSuccessResponse.result). */
export type V03StreamResult = V03Task | V03Message | V03StatusUpdate | V03ArtifactUpdate;

/** v0.3 PushNotificationAuthenticationInfo. */
export interface V03PushAuthentication {
  schemes: string[];
  credentials?: string;
}

/** v0.3 PushNotificationConfig. */
export interface V03PushConfig {
  id?: string;
  url: string;
  token?: string;
  authentication?: V03PushAuthentication;
}

/** v0.3 TaskPushNotificationConfig. */
export interface V03TaskPushConfig {
  taskId: string;
  pushNotificationConfig: V03PushConfig;
}

/** v0.3 AgentInterface. */
export interface V03AgentInterface {
  url: string;
  transport: string;
}

/** v0.3 AgentExtension. */
export interface V03AgentExtension {
  uri: string;
  description?: string;
  required?: boolean;
  params?: JsonObject;
}

/** v0.3 AgentSkill. */
export interface V03AgentSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  examples?: string[];
  inputModes?: string[];
  outputModes?: string[];
  security?: Array<Record<string, string[]>>;
}

/** v0.3 SecurityScheme (a `type`-tagged union, kept loose). */
export interface V03SecurityScheme {
  type: string;
  [member: string]: JsonValue | undefined;
}

/** v0.3 AgentCard. */
export interface V03AgentCard {
  protocolVersion: string;
  name: string;
  description: string;
  url: string;
  preferredTransport?: string;
  additionalInterfaces?: V03AgentInterface[];
  version: string;
  provider?: { organization: string; url: string };
  documentationUrl?: string;
  iconUrl?: string;
  capabilities: {
    streaming?: boolean;
    pushNotifications?: boolean;
    extensions?: V03AgentExtension[];
  };
  securitySchemes?: Record<string, V03SecurityScheme>;
  security?: Array<Record<string, string[]>>;
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: V03AgentSkill[];
  supportsAuthenticatedExtendedCard?: boolean;
  signatures?: Array<{ protected: string; signature: string; header?: JsonObject }>;
}

/** v0.3 MessageSendConfiguration. */
export interface V03SendConfiguration {
  acceptedOutputModes?: string[];
  historyLength?: number;
  /** Absent means blocking, as v1.0's returnImmediately unset. */
  blocking?: boolean;
  pushNotificationConfig?: V03PushConfig;
}

/** v0.3 MessageSendParams. */
export interface V03SendParams {
  message?: V03Message;
  configuration?: V03SendConfiguration;
  metadata?: JsonObject;
}
