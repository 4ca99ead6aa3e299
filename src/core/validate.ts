import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { Value } from "@bufbuild/protobuf/wkt";
import { Role, type Message, type Part } from "../../gen/a2a/v1/a2a_pb.js";
import { A2AError, invalidParams } from "../protocol/index.js";
import { effectiveMediaType, mediaTypeAccepted } from "./media-types.js";

/** §3.2.4: historyLength is unset or a non-negative count. */
export function checkHistoryLength(field: string, value: number | undefined): void {
  if (value !== undefined && value < 0) throw invalidParams(field, `must be 0 or more, got ${value}`);
}

/** §4.1.6: exactly one content field; what is wrong with a part, or undefined when it is well formed. */
export function partProblem(part: Part): string | undefined {
  if (part.content.case === undefined) return "a part needs one of text, raw, url or data";
  if (part.content.case === "url" && part.content.value === "") return "url must not be empty";
  return undefined;
}

/**
 * §5.7 and §3.2.1: a client message needs a messageId, the user role and at
 * least one part with content; parts must be of media types the agent
 * accepts (§3.1.1 ContentTypeNotSupported).
 */
export function validateClientMessage(message: Message | undefined, acceptedInputModes: readonly string[]): Message {
  if (!message) throw invalidParams("message", "is required");
  if (!message.messageId) throw invalidParams("message.messageId", "is required");
  if (message.role === Role.UNSPECIFIED) throw invalidParams("message.role", "is required (ROLE_USER)");
  if (message.role !== Role.USER) throw invalidParams("message.role", "a client message must have ROLE_USER");
  if (message.parts.length === 0) throw invalidParams("message.parts", "at least one part is required");
  message.parts.forEach((part, i) => {
    const problem = partProblem(part);
    if (problem) throw invalidParams(`message.parts[${i}]`, problem);
  });
  if (acceptedInputModes.length > 0) {
    message.parts.forEach((part, i) => {
      const type = effectiveMediaType(part);
      if (type !== undefined && !mediaTypeAccepted(type, acceptedInputModes)) {
        const field = `message.parts[${i}].mediaType`;
        const description = `${type} is not accepted; this agent accepts ${acceptedInputModes.join(", ")}`;
        throw new A2AError("ContentTypeNotSupported", `${field}: ${description}`, { violations: [{ field, description }] });
      }
    });
  }
  return message;
}

/** §3.2.2: a client that accepts none of the agent's output modes cannot be answered. */
export function checkAcceptedOutputModes(accepted: readonly string[], produced: readonly string[]): void {
  if (accepted.length === 0 || produced.length === 0) return;
  if (produced.some((p) => mediaTypeAccepted(p, accepted))) return;
  const field = "configuration.acceptedOutputModes";
  const description = `none of ${accepted.join(", ")} is produced by this agent (${produced.join(", ")})`;
  throw new A2AError("ContentTypeNotSupported", `${field}: ${description}`, { violations: [{ field, description }] });
}

/** The limits a client message is held to (a subset of CoreLimits). */
export interface MessageLimits {
  readonly maxParts: number;
  readonly maxTextPartBytes: number;
  readonly maxMetadataBytes: number;
}

/**
 * Size limits on what a client sends, so one request cannot make the store
 * or an agent hold more than the operator allows. Each refusal names the
 * field and the limit's configuration key.
 */
export function checkMessageLimits(message: Message, requestMetadata: JsonObject | undefined, limits: MessageLimits): void {
  if (message.parts.length > limits.maxParts) {
    throw invalidParams("message.parts", `${message.parts.length} parts exceed the limit of ${limits.maxParts} (limits.maxParts)`);
  }
  checkMetadataSize("metadata", requestMetadata, limits.maxMetadataBytes);
  checkMetadataSize("message.metadata", message.metadata, limits.maxMetadataBytes);
  message.parts.forEach((part, i) => {
    if (part.content.case === "data") checkFinite(`message.parts[${i}].data`, valueToPlain(part.content.value));
    if (part.content.case === "text") {
      const bytes = Buffer.byteLength(part.content.value, "utf8");
      if (bytes > limits.maxTextPartBytes) {
        throw invalidParams(`message.parts[${i}].text`, `${bytes} bytes exceed the limit of ${limits.maxTextPartBytes} (limits.maxTextPartBytes)`);
      }
    }
    checkMetadataSize(`message.parts[${i}].metadata`, part.metadata, limits.maxMetadataBytes);
  });
}

function checkMetadataSize(field: string, metadata: JsonObject | undefined, limit: number): void {
  if (!metadata) return;
  checkFinite(field, metadata);
  const bytes = Buffer.byteLength(JSON.stringify(metadata), "utf8");
  if (bytes > limit) throw invalidParams(field, `${bytes} bytes of JSON exceed the limit of ${limit} (limits.maxMetadataBytes)`);
}

/**
 * google.protobuf.Value numbers must be finite: JSON has no Infinity or NaN,
 * so a stored one (binary protobuf allows it, over gRPC) would make the
 * task unreadable to every JSON binding.
 */
function checkFinite(field: string, value: JsonValue): void {
  const pending: Array<[string, JsonValue]> = [[field, value]];
  while (pending.length > 0) {
    const [path, v] = pending.pop()!;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) throw invalidParams(path, `${v} is not a JSON number`);
    } else if (Array.isArray(v)) {
      v.forEach((x, i) => pending.push([`${path}[${i}]`, x]));
    } else if (v !== null && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) pending.push([`${path}.${k}`, x]);
    }
  }
}

/** A google.protobuf.Value message as the plain JSON-like value checkFinite walks (numbers kept as they are). */
function valueToPlain(value: Value): JsonValue {
  const k = value.kind;
  switch (k.case) {
    case "numberValue":
      return k.value;
    case "stringValue":
    case "boolValue":
      return k.value;
    case "listValue":
      return k.value.values.map(valueToPlain);
    case "structValue":
      return Object.fromEntries(Object.entries(k.value.fields).map(([key, v]) => [key, valueToPlain(v)]));
    default:
      return null;
  }
}
