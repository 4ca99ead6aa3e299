/**
 * The v0.3 dialect of the agent card, both directions: `url`,
 * `preferredTransport` and `additionalInterfaces` against supportedInterfaces;
 * an AgentInterface's tenant and protocolVersion have no v0.3 field.
 */
import { type JsonObject } from "@bufbuild/protobuf";
import type { AgentCard, AgentInterface, AgentSkill, OAuthFlows, SecurityRequirement, SecurityScheme } from "../../gen/a2a/v1/a2a_pb.js";
import type { V03AgentCard, V03SecurityScheme } from "./v03-types.js";
import { compact, isObject, nonEmpty } from "./v03-json.js";

/** The protocolVersion a v0.3 agent card names. */
export const V03_PROTOCOL_VERSION = "0.3.0";

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

/**
 * AgentCard → v0.3 AgentCard. The main `url` is the first JSON-RPC
 * interface (this dialect only exists on JSON-RPC), every interface is
 * listed in additionalInterfaces, security schemes get their v0.3 `type`.
 */
export function v1ToV03AgentCard(card: AgentCard): V03AgentCard {
  const fields = v03InterfaceFields(card.supportedInterfaces);
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
    url: fields?.url ?? "",
    preferredTransport: fields?.preferredTransport,
    additionalInterfaces: fields?.additionalInterfaces,
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

/** The v0.3 card's interface fields: the main (JSON-RPC) URL and transport, and every interface a v0.3 client may use. */
export interface V03InterfaceFields {
  readonly url: string;
  readonly preferredTransport: string;
  readonly additionalInterfaces: Array<{ url: string; transport: string }>;
}

/**
 * The v0.3 interface fields of a v1.0 card's interfaces: those declared at
 * 0.3 when there are any (a v1.0 interface at the same URL speaks another
 * dialect), else all of them; one entry per URL and transport; the main one
 * is the first JSON-RPC interface. Undefined for a card with no interface.
 */
export function v03InterfaceFields(all: readonly AgentInterface[]): V03InterfaceFields | undefined {
  const at03 = all.filter((i) => i.protocolVersion.startsWith("0.3"));
  const seen = new Set<string>();
  const interfaces = (at03.length > 0 ? at03 : all).filter((i) => {
    const key = `${i.protocolBinding.toUpperCase()} ${i.url}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const main = interfaces.find((i) => i.protocolBinding.toUpperCase() === "JSONRPC") ?? interfaces[0];
  if (!main) return undefined;
  return { url: main.url, preferredTransport: main.protocolBinding, additionalInterfaces: interfaces.map((i) => ({ url: i.url, transport: i.protocolBinding })) };
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
