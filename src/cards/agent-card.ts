import { create } from "@bufbuild/protobuf";
import { AgentCardSchema, AgentInterfaceSchema, AgentSkillSchema, type AgentCard } from "../../gen/a2a/v1/a2a_pb.js";
import type { HostedAgent } from "../core/index.js";
import { cardSecurityFields, type CardSecurity } from "./card-security.js";

/** A binding the server serves, as §4.4.6 names it in supportedInterfaces. */
export interface ServedInterface {
  /** "JSONRPC", "GRPC" or "HTTP+JSON" (§5.3). */
  readonly protocolBinding: string;
  /** Path under the base URL where the binding answers. */
  readonly path: string;
  readonly protocolVersion: string;
  /** §8.3.2: the `tenant` clients put in requests to this interface (gRPC, where the URL cannot name the agent). */
  readonly tenant?: string;
}

/** Options of a public card. */
export interface CardOptions {
  /** §4.5, §7: how callers authenticate; the card says so. Absent: authentication is off. */
  readonly security?: CardSecurity;
  /** Scopes this agent requires of its callers beyond the operations' own. */
  readonly agentScopes?: readonly string[];
}

/**
 * §8.3.1: the agent's public card, listing every binding the server serves
 * with absolute URLs (§4.4.6) under `baseUrl`. An HTTP interface URL never
 * ends in '/' (`http://host:port`, `http://host:port/v1/a2a/agents/id`):
 * clients join it with a path that starts with one.
 */
export function publicCard(agent: HostedAgent, baseUrl: string, interfaces: readonly ServedInterface[], options: CardOptions = {}): AgentCard {
  const base = baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`;
  const fields = options.security && cardSecurityFields(options.security, options.agentScopes);
  const skillRequirements = fields?.skillRequirements;
  return create(AgentCardSchema, {
    ...agent.card,
    ...(fields ? { securitySchemes: fields.securitySchemes, securityRequirements: fields.securityRequirements } : {}),
    ...(skillRequirements ? { skills: agent.card.skills.map((s) => create(AgentSkillSchema, { ...s, securityRequirements: skillRequirements })) } : {}),
    supportedInterfaces: interfaces.map((i) =>
      create(AgentInterfaceSchema, {
        url: interfaceUrl(i, base),
        protocolBinding: i.protocolBinding,
        protocolVersion: i.protocolVersion,
        tenant: i.tenant ?? "",
      }),
    ),
  });
}

/**
 * An interface's absolute URL. The GRPC interface is the `hostname:port`
 * that gRPC clients dial (AgentInterface.url in a2a.proto after v1.0.1):
 * grpc-js and the official SDK read a scheme as part of a DNS name. The
 * HTTP bindings' URLs carry no trailing '/', so clients that append
 * "/message:send" get one slash.
 */
function interfaceUrl(i: ServedInterface, base: string): string {
  const url = new URL(i.path.replace(/^\//, ""), base);
  // The port is always written: a gRPC client's default port is 443, even for a plaintext base URL.
  if (i.protocolBinding === "GRPC") return `${url.hostname}:${url.port || (url.protocol === "https:" ? "443" : "80")}`;
  return url.toString().replace(/\/+$/, "");
}
