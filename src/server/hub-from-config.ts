import { create } from "@bufbuild/protobuf";
import { AgentCardSchema, AgentProviderSchema, AgentSkillSchema, type AgentCard } from "../../gen/a2a/v1/a2a_pb.js";
import {
  AgentOptionsError,
  bridgedCard,
  CommandAgent,
  commandCard,
  EchoAgent,
  echoCard,
  loadRemoteRegistry,
  parseCommandAgentOptions,
  parseRemoteAgentOptions,
  RemoteAgent,
  remoteCard,
} from "../agents/index.js";
import type { AccessPolicy } from "../auth/index.js";
import { createCardSigner, loadSigningKey, type SigningAlgorithm } from "../cards/index.js";
import type { HostedAgent } from "../core/index.js";
import { ConfigError, programProblem, readTlsFiles, type AgentConfig, type ConfigSource, type HubConfig } from "./config/index.js";
import type { HubOptions } from "./hub.js";

/** Builds a hosted agent of one kind; `optionsKey` names its options in errors ("agents[2].options"). */
export type AgentFactory = (agent: AgentConfig, optionsKey: string) => HostedAgent;

/**
 * The card of a configured agent: the kind's defaults, overridden by the
 * file's card fields. A kind's generic name gives way to the agent's id,
 * unless `ownName` (a remote agent's card names the agent itself).
 */
function cardFor(base: AgentCard, agent: AgentConfig, ownName = false): AgentCard {
  const c = agent.card ?? {};
  return create(AgentCardSchema, {
    ...base,
    name: c.name ?? (ownName || agent.id === "echo" ? base.name : agent.id),
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
  command: (agent, key) => {
    const options = parseCommandAgentOptions(agent.options ?? {}, key);
    // A program that cannot run fails the start, naming the path, not the first task.
    const problem = programProblem(options.program, options.cwd, process.env.PATH);
    if (problem) throw new AgentOptionsError(`${key}.program`, `cannot run: ${problem}`);
    return { id: agent.id, executor: new CommandAgent(options), card: cardFor(commandCard(), agent) };
  },
  remote: (agent, key) => {
    const options = parseRemoteAgentOptions(agent.options ?? {}, key, process.env);
    const executor = new RemoteAgent(options);
    return {
      id: agent.id,
      executor,
      card: cardFor(remoteCard({ name: agent.id, url: options.url }), agent),
      watchCard: (apply) => executor.watchCard((remote) => apply(cardFor(bridgedCard(remote, options.url), agent, true))),
    };
  },
};

/** "agents[2].options.args[1]" as a key path, to find its line in the file. */
function keyPath(key: string): Array<string | number> {
  return [...key.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] !== undefined ? Number(m[2]) : m[1]!));
}

/** HubOptions for a validated configuration; reads the TLS files and checks command agents' programs. */
export function hubOptionsFromConfig(config: HubConfig, source?: ConfigSource, factories: Readonly<Record<string, AgentFactory>> = AGENT_FACTORIES): HubOptions {
  const where = (key: string, file?: string) => (file ? { file } : source ? { file: source.file, line: source.lineOf(keyPath(key)) } : undefined);
  const agents: HostedAgent[] = [];
  try {
    config.agents.forEach((a, i) => {
      const factory = factories[a.kind];
      if (!factory) throw new ConfigError(`agents[${i}].kind`, `no agent kind ${a.kind}`, where(`agents[${i}].kind`));
      const hosted = factory(a, `agents[${i}].options`);
      agents.push(a.retries?.byMessageId === undefined ? hosted : { ...hosted, retries: { byMessageId: a.retries.byMessageId } });
    });
    if (config.remoteRegistry) agents.push(...loadRemoteRegistry(config.remoteRegistry));
  } catch (e) {
    if (e instanceof AgentOptionsError) throw new ConfigError(e.key, e.problem, where(e.key, e.file));
    throw e;
  }
  if (agents.length === 0) throw new ConfigError("remoteRegistry", "lists no agents, and no agents are configured: a hub needs at least one", where("remoteRegistry"));
  const ids = new Set<string>();
  for (const a of agents) {
    if (ids.has(a.id)) throw new ConfigError("remoteRegistry", `agent ${a.id} is declared both in agents and in the registry`);
    ids.add(a.id);
  }
  const access = accessPolicyOf(config);
  // Transport limits travel beside the core's; the timeouts are the one port's.
  const { maxBodyBytes, maxJsonDepth, headersTimeoutMs, bodyTimeoutMs, maxConnections, maxConnectionsPerAddress, maxStreamsPerConnection, maxSessionMemoryMiB, maxHeaderBytes, maxRefusalsPerAddress, ...coreLimits } =
    config.limits;
  const connectionLimits = { maxConnections, maxConnectionsPerAddress, maxStreamsPerConnection, maxSessionMemoryMiB, maxHeaderBytes, maxRefusalsPerAddress };
  return {
    limits: coreLimits,
    connectionLimits: Object.fromEntries(Object.entries(connectionLimits).filter(([, v]) => v !== undefined)),
    retries: config.retries.byMessageId === undefined ? undefined : { byMessageId: config.retries.byMessageId },
    maxBodyBytes,
    maxJsonDepth,
    headersTimeoutMs,
    bodyTimeoutMs,
    port: config.port,
    host: config.host,
    dataDir: config.dataDir,
    store: config.store,
    publicBaseUrl: config.publicUrl,
    tls: config.tls ? readTlsFiles(config.tls) : undefined,
    trustedProxies: config.trustedProxies,
    agents,
    access,
    push: {
      allowPrivateNetworks: config.push.allowPrivateNetworks,
      allowCidrs: [...config.push.allowCidrs],
      retry: config.push.retry,
      timeoutMs: config.push.timeoutMs,
    },
    cardSigning: cardSigningOf(config, where),
    readinessDrainMs: config.readinessDrainMs,
    retention: config.retention && { policy: config.retention },
    // MCP's protected-resource metadata (RFC 9728) names the identity providers whose tokens the hub takes.
    mcp: config.auth?.jwt.length ? { authorizationServers: config.auth.jwt.map((j) => j.issuer) } : undefined,
    metrics: config.metrics.enabled ? { tenantLabel: config.metrics.tenantLabel, tokenHash: config.metrics.tokenHash, port: config.metrics.port } : false,
  };
}

/**
 * Who may call what, from the configuration: static tokens (with their
 * scopes), identity providers, client certificates, scope names, and the
 * agents' tenants and required scopes. What a reload replaces.
 */
export function accessPolicyOf(config: HubConfig): AccessPolicy {
  const auth = config.auth;
  return {
    tenants: config.tenants.map((t) => ({ tenant: t.id, tokenHashes: t.tokens, scopesByHash: t.tokenScopes && new Map(Object.entries(t.tokenScopes)) })),
    agentTenants: new Map(config.agents.filter((a) => a.tenants).map((a) => [a.id, a.tenants!])),
    rateLimit: config.rateLimit,
    jwt: auth?.jwt.map((j) => ({ ...j, clockSkewS: auth.clockSkewSeconds })),
    mtls: auth?.mtls,
    scopes: auth?.scopes && Object.fromEntries(Object.entries(auth.scopes).filter(([, v]) => v !== undefined)),
    agentScopes: new Map(config.agents.filter((a) => a.requiredScopes).map((a) => [a.id, a.requiredScopes!])),
  };
}

/** Loads the configured signing keys; a bad key file is a ConfigError naming its key. */
function cardSigningOf(config: HubConfig, where: (key: string) => { file: string; line?: number } | undefined): HubOptions["cardSigning"] {
  if (!config.cards) return undefined;
  const keys = config.cards.signing.map((k, i) => {
    try {
      return loadSigningKey({ key: k.key, kid: k.kid, alg: k.alg as SigningAlgorithm });
    } catch (e) {
      const key = config.cards!.signing.length > 1 ? `cards.signing[${i}].key` : "cards.signing.key";
      throw new ConfigError(key, (e as Error).message, where(key));
    }
  });
  return { signer: createCardSigner(keys), jwksPath: config.cards.jwksPath };
}
