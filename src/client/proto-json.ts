import { fromJson, toJson, type DescMessage, type JsonObject, type JsonValue, type MessageShape } from "@bufbuild/protobuf";
import { invalidResponse } from "./client-failure.js";

/**
 * A result's ProtoJSON as the generated message (§5.5). Unknown fields are
 * ignored for forward compatibility (§5.7); anything else that does not
 * decode is InvalidAgentResponse.
 */
export function decodeResult<Desc extends DescMessage>(schema: Desc, json: unknown, what: string): MessageShape<Desc> {
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw invalidResponse(`${what} is not a JSON object`);
  try {
    return fromJson(schema, json as JsonValue, { ignoreUnknownFields: true });
  } catch (e) {
    throw invalidResponse(`${what} is not a valid ${schema.name}: ${e instanceof Error ? e.message : String(e)}`, e);
  }
}

/** A request as ProtoJSON, without the fields `omit` names (e.g. a tenant carried in the path). */
export function encodeRequest<Desc extends DescMessage>(schema: Desc, message: MessageShape<Desc>, omit: readonly string[] = []): JsonObject {
  const json = toJson(schema, message) as JsonObject;
  for (const key of omit) delete json[key];
  return json;
}
