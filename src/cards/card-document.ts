import { createHash } from "node:crypto";
import { toJson, type JsonObject } from "@bufbuild/protobuf";
import { AgentCardSchema, type AgentCard } from "../../gen/a2a/v1/a2a_pb.js";

/** The transport name a v0.3 card gives each binding (v0.3 schema `TransportProtocol`). */
const V03_TRANSPORT: Readonly<Record<string, string>> = { JSONRPC: "JSONRPC", GRPC: "GRPC", "HTTP+JSON": "HTTP+JSON" };

/** The served card, as bytes and the validator that names them. */
export interface CardDocument {
  readonly body: string;
  /** Strong ETag: a hash of the body (§8.6.1). */
  readonly etag: string;
}

/**
 * The card as JSON: ProtoJSON of the v1.0 AgentCard (§5.5), plus the v0.3
 * top-level fields (`url`, `preferredTransport`, `protocolVersion`,
 * `additionalInterfaces`) so that v0.3 clients can read the same document.
 * v1.0 clients see `supportedInterfaces` and ignore the rest (§5.7).
 */
export function cardDocument(card: AgentCard): CardDocument {
  const json = toJson(AgentCardSchema, card) as JsonObject;
  const interfaces = card.supportedInterfaces;
  const preferred = interfaces.find((i) => i.protocolBinding === "JSONRPC") ?? interfaces[0];
  const legacy: JsonObject = {};
  if (preferred) {
    legacy.url = preferred.url;
    legacy.preferredTransport = V03_TRANSPORT[preferred.protocolBinding] ?? preferred.protocolBinding;
    legacy.protocolVersion = "0.3.0";
    const seen = new Set<string>();
    legacy.additionalInterfaces = interfaces
      .filter((i) => {
        const key = `${i.protocolBinding} ${i.url}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      })
      .map((i) => ({ url: i.url, transport: V03_TRANSPORT[i.protocolBinding] ?? i.protocolBinding }));
  }
  const body = JSON.stringify({ ...json, ...legacy });
  return { body, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 32)}"` };
}
