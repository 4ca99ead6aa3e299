import { createHash } from "node:crypto";
import { toJson, type JsonObject } from "@bufbuild/protobuf";
import { AgentCardSchema, type AgentCard } from "../../gen/a2a/v1/a2a_pb.js";
import { dialectV03 } from "../protocol/index.js";


/** The served card, as bytes and the validator that names them. */
export interface CardDocument {
  readonly body: string;
  /** Strong ETag: a hash of the body (§8.6.1), so each form has its own. */
  readonly etag: string;
}

/** Which shape of the card a client reads: exactly the v1.0 AgentCard, or that plus the v0.3 fields. */
export type CardForm = "1.0" | "0.3";

/**
 * §3.6.2: the card form a request's A2A-Version asks for. A 1.x (or later
 * major) version gets the v1.0 card; no header is read as 0.3, as are 0.x
 * versions. A value that names no version at all gets the form of no
 * header: a card is discovery, not an operation to refuse.
 */
export function cardFormFor(version: string | undefined): CardForm {
  const major = /^\s*(\d+)(?:\.\d+)*\s*$/.exec(version ?? "")?.[1];
  return major !== undefined && Number(major) >= 1 ? "1.0" : "0.3";
}

/**
 * The card as JSON: ProtoJSON of the v1.0 AgentCard (§5.5). The "1.0" form
 * is exactly that (the v1.0 JSON schema allows no other top-level field);
 * the "0.3" form adds the v0.3 top-level fields (`url`,
 * `preferredTransport`, `protocolVersion`, `additionalInterfaces`) beside
 * `supportedInterfaces`, so v0.3 clients read their own fields from it.
 */
export function cardDocument(card: AgentCard, form: CardForm = "0.3"): CardDocument {
  const json = toJson(AgentCardSchema, card) as JsonObject;
  if (form === "1.0") return documentOf(json);
  const fields = dialectV03.v03InterfaceFields(card.supportedInterfaces);
  const legacy: JsonObject = fields ? { url: fields.url, preferredTransport: fields.preferredTransport, protocolVersion: "0.3.0", additionalInterfaces: fields.additionalInterfaces } : {};
  return documentOf({ ...json, ...legacy });
}

/** Any JSON document served at a card's path, as bytes and its strong ETag. */
export function documentOf(json: JsonObject): CardDocument {
  const body = JSON.stringify(json);
  return { body, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 32)}"` };
}
