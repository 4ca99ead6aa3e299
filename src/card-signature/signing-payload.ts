import { clone, create, toJson, type DescField, type DescMessage, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import canonicalize from "canonicalize";
import { AgentCardSchema, type AgentCard } from "../../gen/a2a/v1/a2a_pb.js";
import { CARD_REQUIRED_FIELDS } from "./required-fields.js";

/**
 * §8.4.1: the JWS payload of a card: its ProtoJSON with proto3 presence
 * (defaults omitted, `optional` fields kept when set, REQUIRED fields always
 * present), without `signatures`, canonicalized by RFC 8785 (JCS). Fields a
 * card document carries outside the v1.0 AgentCard (our v0.3 `url`,
 * `preferredTransport`…) are not signed, as in @a2a-js/sdk.
 */
export function cardSigningPayload(card: AgentCard): string {
  return jcs(withRequired(AgentCardSchema, unsigned(card)));
}

/**
 * The payloads a verifier accepts, the §8.4.1 one first. @a2a-js/sdk 1.3
 * also drops empty REQUIRED values ("" and []) before canonicalizing, so a
 * card with an empty REQUIRED field signed by it has a second form; both
 * forms carry the same card content.
 */
export function cardVerificationPayloads(card: AgentCard): string[] {
  const spec = cardSigningPayload(card);
  const dropped = dropEmpty(unsigned(card));
  const sdk = jcs((dropped ?? {}) as JsonValue);
  return sdk === spec ? [spec] : [spec, sdk];
}

/** RFC 8785 canonical JSON (the `canonicalize` package, by one of the RFC's authors). */
export function jcs(value: JsonValue): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError("JCS: the value has no JSON form");
  return text;
}

function unsigned(card: AgentCard): JsonObject {
  const copy = clone(AgentCardSchema, card);
  copy.signatures = [];
  return toJson(AgentCardSchema, copy) as JsonObject;
}

/** Puts REQUIRED fields that ProtoJSON left out (default values) back, at every depth. */
function withRequired(desc: DescMessage, json: JsonObject): JsonObject {
  const required = CARD_REQUIRED_FIELDS[desc.typeName] ?? [];
  for (const field of desc.fields) {
    const key = field.jsonName;
    if (!(key in json)) {
      if (!required.includes(field.name)) continue;
      json[key] = defaultJson(field);
    }
    const message = field.fieldKind === "message" || (field.fieldKind === "list" && field.listKind === "message") || (field.fieldKind === "map" && field.mapKind === "message") ? field.message : undefined;
    if (!message || message.typeName.startsWith("google.protobuf.")) continue;
    const value = json[key];
    if (field.fieldKind === "list") for (const item of value as JsonObject[]) withRequired(message, item);
    else if (field.fieldKind === "map") for (const item of Object.values(value as JsonObject)) withRequired(message, item as JsonObject);
    else withRequired(message, value as JsonObject);
  }
  return json;
}

function defaultJson(field: DescField): JsonValue {
  if (field.fieldKind === "list") return [];
  if (field.fieldKind === "map") return {};
  if (field.fieldKind === "message") return toJson(field.message, create(field.message)) as JsonValue;
  if (field.fieldKind === "enum") return field.enum.values[0]!.name;
  const zero = create(field.parent)[field.localName as never] as unknown;
  return typeof zero === "bigint" ? String(zero) : (zero as JsonValue);
}

/** @a2a-js/sdk's reading: "", null, [] and {} removed, recursively. */
function dropEmpty(v: JsonValue): JsonValue | undefined {
  if (v === "" || v === null) return undefined;
  if (Array.isArray(v)) {
    const items = v.map(dropEmpty).filter((x): x is JsonValue => x !== undefined);
    return items.length ? items : undefined;
  }
  if (typeof v === "object") {
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) {
      const kept = dropEmpty(x as JsonValue);
      if (kept !== undefined) out[k] = kept;
    }
    return Object.keys(out).length ? out : undefined;
  }
  return v;
}
