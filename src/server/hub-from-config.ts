import { create } from "@bufbuild/protobuf";
import { AgentCardSchema, AgentProviderSchema, AgentSkillSchema, type AgentCard } from "../../gen/a2a/v1/a2a_pb.js";
import { EchoAgent, echoCard } from "../agents/index.js";
import type { AccessPolicy } from "../auth/index.js";
import type { HostedAgent } from "../core/index.js";
import { ConfigError, type AgentConfig, type HubConfig } from "./config/index.js";
import type { HubOptions } from "./hub.js";

/** Builds the executor of an agent kind; more kinds register here as they are added. */
export type AgentFactory = (agent: AgentConfig) => HostedAgent;

/** The card of a configured agent: the kind's defaults, overridden by the file's card fields. */
function cardFor(base: AgentCard, agent: AgentConfig): AgentCard {
  const c = agent.card ?? {};
  return create(AgentCardSchema, {
    ...base,
    name: c.name ?? (agent.id === "echo" ? base.name : agent.id),
    description: c.description ?? base.description,
    version: c.version ?? base.version,
    documentationUrl: c.documentationUrl,
    provider: c.provider ? create(AgentProviderSchema, c.provider) : base.provider,
    defaultInputModes: c.defaultInputModes ? [...c.defaultInputModes] : base.defaultInputModes,
    defaultOutputModes: c.defaultOutputModes ? [...c.defaultOutputModes] : base.defaultOutputModes,
    skills: c.skills ? c.skills.map((s) => create(AgentSkillSchema, { ...s, tags: [...s.tags], examples: s.examples ? [...s.examples] : [] })) : base.skills,
  });
}

/** The built-in kinds. */
export const AGENT_FACTORIES: Readonly<Record<string, AgentFactory>> = {
  echo: (agent) => ({ id: agent.id, executor: new EchoAgent(), card: cardFor(echoCard(), agent) }),
};

/** HubOptions for a validated configuration. */
export function hubOptionsFromConfig(config: HubConfig, factories: Readonly<Record<string, AgentFactory>> = AGENT_FACTORIES): HubOptions {
  const agents = config.agents.map((a, i) => {
    const factory = factories[a.kind];
    if (!factory) throw new ConfigError(`agents[${i}].kind`, `no agent kind ${a.kind}`);
    return factory(a);
  });
  const access: AccessPolicy = {
    tenants: config.tenants.map((t) => ({ tenant: t.id, tokenHashes: t.tokens })),
    agentTenants: new Map(config.agents.filter((a) => a.tenants).map((a) => [a.id, a.tenants!])),
    rateLimit: config.rateLimit,
  };
  return {
    port: config.port,
    host: config.host,
    dataDir: config.dataDir,
    publicBaseUrl: config.publicUrl,
    agents,
    access,
    push: {
      allowPrivateNetworks: config.push.allowPrivateNetworks,
      allowCidrs: [...config.push.allowCidrs],
      retry: config.push.retry,
      timeoutMs: config.push.timeoutMs,
    },
  };
}
