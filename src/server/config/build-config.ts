import { checkPostgresUrl } from "../../store/index.js";
import { LOG_LEVELS } from "../../telemetry/index.js";
import { ConfigError } from "./config-error.js";
import { DEFAULT_CONFIG, type AgentConfig, type HubConfig, type RetriesConfig, type TenantConfig } from "./hub-config.js";
import type { ConfigSource } from "./read-config-file.js";
import { LIMIT_KEYS, LIMIT_RANGE, limitEnvName, type LimitsConfig } from "./limits-config.js";
import { isTrustedProxySpec, TRUSTED_PROXY_HINT } from "./trusted-proxy.js";
import { Checker, configError, type Path } from "./config-checker.js";
import { authOf, HASH, HASH_HINT, SCOPE, SCOPE_HINT, tenantTokensOf } from "./auth-config.js";
import { retentionOf, type RetentionOverrides } from "./retention-config.js";

/** Agent kinds the hub can run. */
export const AGENT_KINDS = ["echo", "command", "remote"] as const;

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const ID_HINT = "must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit";

function agentsOf(c: Checker, raw: unknown, tenantIds: ReadonlySet<string>): AgentConfig[] {
  if (!Array.isArray(raw) || raw.length === 0) c.fail(["agents"], "must list at least one agent");
  const seen = new Set<string>();
  return raw.map((a, i) => {
    const path = ["agents", i];
    const o = c.object(a, path);
    c.known(o, path, ["id", "kind", "tenants", "card", "options", "retries", "requiredScopes", "retention"]);
    const id = c.string(o.id, [...path, "id"], ID, ID_HINT);
    if (seen.has(id)) c.fail([...path, "id"], `agent ${id} is declared twice`);
    seen.add(id);
    const kind = c.string(o.kind, [...path, "kind"]);
    if (!(AGENT_KINDS as readonly string[]).includes(kind)) c.fail([...path, "kind"], `must be one of ${AGENT_KINDS.join(", ")}`);
    const tenants = o.tenants === undefined ? undefined : c.strings(o.tenants, [...path, "tenants"]);
    tenants?.forEach((t, j) => tenantIds.has(t) || c.fail([...path, "tenants", j], `no tenant ${t} is declared`));
    let card: AgentConfig["card"];
    if (o.card !== undefined) {
      const k = c.object(o.card, [...path, "card"]);
      const cp = [...path, "card"];
      c.known(k, cp, ["name", "description", "version", "documentationUrl", "provider", "defaultInputModes", "defaultOutputModes", "skills"]);
      let provider;
      if (k.provider !== undefined) {
        const p = c.object(k.provider, [...cp, "provider"]);
        c.known(p, [...cp, "provider"], ["organization", "url"]);
        provider = { organization: c.string(p.organization, [...cp, "provider", "organization"]), url: c.string(p.url, [...cp, "provider", "url"], /^https?:\/\//, "must be an http(s) URL") };
      }
      const skills =
        k.skills === undefined
          ? undefined
          : (Array.isArray(k.skills) ? k.skills : c.fail([...cp, "skills"], "must be a list")).map((s, j) => {
              const sp = [...cp, "skills", j];
              const so = c.object(s, sp);
              c.known(so, sp, ["id", "name", "description", "tags", "examples"]);
              return {
                id: c.string(so.id, [...sp, "id"]),
                name: c.string(so.name, [...sp, "name"]),
                description: c.string(so.description, [...sp, "description"]),
                tags: c.strings(so.tags, [...sp, "tags"]),
                examples: so.examples === undefined ? undefined : c.strings(so.examples, [...sp, "examples"]),
              };
            });
      card = {
        name: c.optString(k.name, [...cp, "name"]),
        description: c.optString(k.description, [...cp, "description"]),
        version: c.optString(k.version, [...cp, "version"]),
        documentationUrl: c.optString(k.documentationUrl, [...cp, "documentationUrl"], /^https?:\/\//, "must be an http(s) URL"),
        provider,
        defaultInputModes: k.defaultInputModes === undefined ? undefined : c.strings(k.defaultInputModes, [...cp, "defaultInputModes"]),
        defaultOutputModes: k.defaultOutputModes === undefined ? undefined : c.strings(k.defaultOutputModes, [...cp, "defaultOutputModes"]),
        skills,
      };
    }
    const options = o.options === undefined ? undefined : c.object(o.options, [...path, "options"]);
    const retries = o.retries === undefined ? undefined : retriesOf(c, o.retries, [...path, "retries"]);
    const requiredScopes = o.requiredScopes === undefined ? undefined : c.strings(o.requiredScopes, [...path, "requiredScopes"], SCOPE, SCOPE_HINT);
    return { id, kind, tenants, card, options, retries, requiredScopes };
  });
}

function retriesOf(c: Checker, raw: unknown, path: Path): RetriesConfig {
  const o = c.object(raw, path);
  c.known(o, path, ["byMessageId"]);
  return { byMessageId: o.byMessageId === undefined ? undefined : c.bool(o.byMessageId, [...path, "byMessageId"]) };
}

function tenantsOf(c: Checker, raw: unknown): TenantConfig[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) c.fail(["tenants"], "must be a list");
  const seen = new Set<string>();
  // A token names its tenant (§7.4): one hash under two tenants would make the caller's tenant a guess.
  const ownerOf = new Map<string, string>();
  return raw.map((t, i) => {
    const path = ["tenants", i];
    const o = c.object(t, path);
    c.known(o, path, ["id", "tokens", "retention"]);
    const id = c.string(o.id, [...path, "id"], ID, ID_HINT);
    if (seen.has(id)) c.fail([...path, "id"], `tenant ${id} is declared twice`);
    seen.add(id);
    // A tenant without static tokens is one that identity providers or client certificates name.
    const { tokens, tokenScopes } = o.tokens === undefined ? { tokens: [], tokenScopes: undefined } : tenantTokensOf(c, o.tokens, [...path, "tokens"]);
    tokens.forEach((hash, j) => {
      const owner = ownerOf.get(hash);
      if (owner !== undefined && owner !== id) c.fail([...path, "tokens", j], `the same token hash is listed under tenants ${owner} and ${id}; a token must belong to one tenant`);
      ownerOf.set(hash, id);
    });
    return { id, tokens, tokenScopes };
  });
}

/** An environment variable as a positive whole number, or undefined. */
function envInt(env: NodeJS.ProcessEnv, name: string, min = 1, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const v = env[name];
  if (v === undefined || v === "") return undefined;
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < min || n > max) throw new ConfigError(name, `expected a whole number from ${min} to ${max}, got ${JSON.stringify(v)}`);
  return n;
}

function envBool(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const v = env[name];
  if (v === undefined || v === "") return undefined;
  if (v === "1" || v === "true") return true;
  if (v === "0" || v === "false") return false;
  throw new ConfigError(name, `expected 1/true or 0/false, got ${JSON.stringify(v)}`);
}

/** Settings given on the command line; they win over the environment and the file. */
export interface ConfigOverrides extends RetentionOverrides {
  readonly host?: string;
  readonly port?: number;
  readonly dataDir?: string;
  readonly storeUrl?: string;
  readonly publicUrl?: string;
  readonly insecure?: boolean;
  readonly pushAllowPrivate?: boolean;
  readonly pushAllowCidrs?: readonly string[];
  readonly logLevel?: string;
  readonly metricsPort?: number;
  readonly tlsCert?: string;
  readonly tlsKey?: string;
  readonly trustedProxies?: readonly string[];
}

/** A comma-separated list variable, or undefined when unset or empty. */
function envList(env: NodeJS.ProcessEnv, name: string): string[] | undefined {
  const list = (env[name] ?? "").split(",").map((x) => x.trim()).filter((x) => x !== "");
  return list.length > 0 ? list : undefined;
}

/** The TLS files: both or neither, each from its own first source. */
function tlsOf(c: Checker, env: NodeJS.ProcessEnv, cli: ConfigOverrides, raw: unknown): HubConfig["tls"] {
  const file = raw === undefined ? {} : c.object(raw, ["tls"]);
  c.known(file, ["tls"], ["cert", "key", "clientCa"]);
  const cert = c.pick("--tls-cert", cli.tlsCert, env, "A2A_HUB_TLS_CERT", file.cert, ["tls", "cert"]);
  const key = c.pick("--tls-key", cli.tlsKey, env, "A2A_HUB_TLS_KEY", file.key, ["tls", "key"]);
  if (cert && !key) cert.fail("a certificate needs its private key too (--tls-key, A2A_HUB_TLS_KEY or tls.key)");
  if (key && !cert) key.fail("a private key needs its certificate too (--tls-cert, A2A_HUB_TLS_CERT or tls.cert)");
  const clientCa = c.optString(file.clientCa, ["tls", "clientCa"]);
  if (clientCa && !(cert && key)) c.fail(["tls", "clientCa"], "asks clients for certificates, which needs TLS: tls.cert and tls.key");
  return cert && key ? { certFile: cert.value, keyFile: key.value, clientCaFile: clientCa } : undefined;
}

/** The PostgreSQL store: its URL from the first source that gives one, its pool size from the file; none means SQLite. */
function storeOf(c: Checker, env: NodeJS.ProcessEnv, cli: ConfigOverrides, raw: unknown): HubConfig["store"] {
  const file = raw === undefined ? {} : c.object(raw, ["store"]);
  c.known(file, ["store"], ["url", "poolSize", "leaseMs"]);
  const url = c.pick("--store", cli.storeUrl, env, "A2A_HUB_STORE", file.url, ["store", "url"]);
  const poolSize = file.poolSize === undefined ? undefined : c.int(file.poolSize, ["store", "poolSize"], 1, 1000);
  // Bounded above so that a dead replica's tasks fail within 30 s by default, and within a minute at most when configured.
  const leaseMs = envInt(env, "A2A_HUB_STORE_LEASE_MS", 300, 60_000) ?? (file.leaseMs === undefined ? undefined : c.int(file.leaseMs, ["store", "leaseMs"], 300, 60_000));
  if (!url) {
    if (poolSize !== undefined) c.fail(["store", "poolSize"], "needs a store URL too (store.url, --store or A2A_HUB_STORE)");
    if (leaseMs !== undefined) c.fail(["store", "leaseMs"], "needs a store URL too (store.url, --store or A2A_HUB_STORE)");
    return undefined;
  }
  try {
    checkPostgresUrl(url.value);
  } catch (e) {
    url.fail((e as Error).message);
  }
  return { url: url.value, poolSize, leaseMs };
}

/** Trusted proxies from the first source that lists any (a flag list replaces the file's, it does not add to it). */
function trustedProxiesOf(c: Checker, env: NodeJS.ProcessEnv, cli: ConfigOverrides, raw: unknown): string[] {
  const check = (list: readonly string[], key: string): string[] => {
    for (const p of list) if (!isTrustedProxySpec(p)) configError(key, `${JSON.stringify(p)} ${TRUSTED_PROXY_HINT}`);
    return [...list];
  };
  if (cli.trustedProxies && cli.trustedProxies.length > 0) return check(cli.trustedProxies, "--trusted-proxy");
  const fromEnv = envList(env, "A2A_HUB_TRUSTED_PROXIES");
  if (fromEnv) return check(fromEnv, "A2A_HUB_TRUSTED_PROXIES");
  if (raw === undefined) return [];
  return c.strings(raw, ["trustedProxies"]).map((p, i) => (isTrustedProxySpec(p) ? p : c.fail(["trustedProxies", i], TRUSTED_PROXY_HINT)));
}

/**
 * The hub's configuration: command line over environment (A2A_HUB_*) over
 * the file over the defaults. Every problem is a ConfigError naming the key.
 */
export function buildConfig(source: ConfigSource | undefined, env: NodeJS.ProcessEnv, cli: ConfigOverrides = {}): HubConfig {
  const c = new Checker(source);
  const file = source ? c.object(source.data ?? {}, []) : {};
  c.known(file, [], ["listen", "publicUrl", "dataDir", "store", "insecure", "tls", "trustedProxies", "auth", "tenants", "agents", "remoteRegistry", "push", "rateLimit", "limits", "cards", "retries", "logLevel", "metrics", "tracing", "readinessDrainMs", "retention"]);
  const listen = file.listen === undefined ? {} : c.object(file.listen, ["listen"]);
  c.known(listen, ["listen"], ["host", "port"]);
  const push = file.push === undefined ? {} : c.object(file.push, ["push"]);
  c.known(push, ["push"], ["allowPrivateNetworks", "allowCidrs", "retry", "timeoutMs"]);
  const tenants = tenantsOf(c, file.tenants);
  const remoteRegistry = env.A2A_HUB_REMOTE_REGISTRY || c.optString(file.remoteRegistry, ["remoteRegistry"]);
  // The echo agent is the default only of a hub given no agents at all: a registry's agents are agents.
  const agents = file.agents !== undefined ? agentsOf(c, file.agents, new Set(tenants.map((t) => t.id))) : remoteRegistry ? [] : DEFAULT_CONFIG.agents;

  const retryFile = push.retry === undefined ? undefined : c.object(push.retry, ["push", "retry"]);
  if (retryFile) c.known(retryFile, ["push", "retry"], ["baseMs", "capMs", "attempts"]);
  const baseMs = envInt(env, "A2A_HUB_PUSH_RETRY_BASE_MS") ?? (retryFile?.baseMs === undefined ? undefined : c.int(retryFile.baseMs, ["push", "retry", "baseMs"], 1, 3_600_000));
  const capMs = envInt(env, "A2A_HUB_PUSH_RETRY_CAP_MS") ?? (retryFile?.capMs === undefined ? undefined : c.int(retryFile.capMs, ["push", "retry", "capMs"], 1, 3_600_000));
  const attempts = envInt(env, "A2A_HUB_PUSH_ATTEMPTS") ?? (retryFile?.attempts === undefined ? undefined : c.int(retryFile.attempts, ["push", "retry", "attempts"], 1, 1_000_000));
  const rateFile = file.rateLimit === undefined ? undefined : c.object(file.rateLimit, ["rateLimit"]);
  if (rateFile) c.known(rateFile, ["rateLimit"], ["burst", "perSecond"]);
  const burst = envInt(env, "A2A_HUB_RATE_BURST") ?? (rateFile ? c.int(rateFile.burst, ["rateLimit", "burst"], 1, 1_000_000) : undefined);
  const perSecond = envInt(env, "A2A_HUB_RATE_PER_SECOND") ?? (rateFile ? c.int(rateFile.perSecond, ["rateLimit", "perSecond"], 1, 1_000_000) : undefined);
  const limitsFile = file.limits === undefined ? {} : c.object(file.limits, ["limits"]);
  c.known(limitsFile, ["limits"], LIMIT_KEYS);
  const limits: LimitsConfig = {};
  for (const key of LIMIT_KEYS) {
    const v = envInt(env, limitEnvName(key), ...LIMIT_RANGE) ?? (limitsFile[key] === undefined ? undefined : c.int(limitsFile[key], ["limits", key], ...LIMIT_RANGE));
    if (v !== undefined) limits[key] = v;
  }
  const retriesFile = file.retries === undefined ? {} : retriesOf(c, file.retries, ["retries"]);
  const byMessageId = envBool(env, "A2A_HUB_RETRIES_BY_MESSAGE_ID") ?? retriesFile.byMessageId;
  const cidrsEnv = envList(env, "A2A_HUB_PUSH_ALLOW_CIDRS") ?? [];

  const tls = tlsOf(c, env, cli, file.tls);
  const auth = authOf(c, file.auth, new Set(tenants.map((t) => t.id)));
  if (auth?.mtls && !tls?.clientCaFile) c.fail(["auth", "mtls"], "needs tls.clientCa: the CA whose client certificates are verified");
  const publicUrl = c.pick("--public-url", cli.publicUrl, env, "A2A_HUB_PUBLIC_URL", file.publicUrl, ["publicUrl"]);
  if (publicUrl !== undefined && !/^https?:\/\/[^/]/.test(publicUrl.value)) publicUrl.fail(`expected an http(s) URL, got ${JSON.stringify(publicUrl.value)}`);
  return {
    host: cli.host ?? env.A2A_HUB_HOST ?? c.optString(listen.host, ["listen", "host"]) ?? DEFAULT_CONFIG.host,
    port: cli.port ?? envInt(env, "A2A_HUB_PORT", 0, 65535) ?? (listen.port === undefined ? DEFAULT_CONFIG.port : c.int(listen.port, ["listen", "port"], 0, 65535)),
    insecure: cli.insecure ?? envBool(env, "A2A_HUB_INSECURE") ?? (file.insecure === undefined ? false : c.bool(file.insecure, ["insecure"])),
    publicUrl: publicUrl?.value,
    tls,
    trustedProxies: trustedProxiesOf(c, env, cli, file.trustedProxies),
    dataDir: cli.dataDir ?? env.A2A_HUB_DATA ?? c.optString(file.dataDir, ["dataDir"]) ?? DEFAULT_CONFIG.dataDir,
    store: storeOf(c, env, cli, file.store),
    tenants,
    auth,
    agents,
    push: {
      allowPrivateNetworks:
        cli.pushAllowPrivate ?? envBool(env, "A2A_HUB_PUSH_ALLOW_PRIVATE") ?? (push.allowPrivateNetworks === undefined ? false : c.bool(push.allowPrivateNetworks, ["push", "allowPrivateNetworks"])),
      allowCidrs: [...(cli.pushAllowCidrs ?? []), ...cidrsEnv, ...(push.allowCidrs === undefined ? [] : c.strings(push.allowCidrs, ["push", "allowCidrs"]))],
      retry: baseMs || capMs || attempts ? { baseMs: baseMs ?? 1_000, capMs: capMs ?? 30_000, attempts: attempts ?? 7 } : undefined,
      timeoutMs: envInt(env, "A2A_HUB_PUSH_TIMEOUT_MS") ?? (push.timeoutMs === undefined ? undefined : c.int(push.timeoutMs, ["push", "timeoutMs"], 1, 600_000)),
    },
    rateLimit: burst !== undefined && perSecond !== undefined ? { burst, perSecond } : undefined,
    limits,
    retries: byMessageId === undefined ? {} : { byMessageId },
    remoteRegistry,
    cards: cardsOf(c, file.cards),
    retention: retentionOf(c, file, env, cli),
    ...telemetryOf(c, file, env, cli),
  };
}

/** logLevel, metrics and tracing: flags over A2A_HUB_LOG_LEVEL / A2A_HUB_METRICS / A2A_HUB_METRICS_PORT over the file. */
function telemetryOf(c: Checker, file: Record<string, unknown>, env: NodeJS.ProcessEnv, cli: ConfigOverrides): Pick<HubConfig, "logLevel" | "metrics" | "tracing" | "readinessDrainMs"> {
  const levelHint = `must be one of ${LOG_LEVELS.join(", ")}`;
  const logLevel = cli.logLevel ?? (env.A2A_HUB_LOG_LEVEL || undefined) ?? c.optString(file.logLevel, ["logLevel"]) ?? DEFAULT_CONFIG.logLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(cli.logLevel ? "--log-level" : env.A2A_HUB_LOG_LEVEL ? "A2A_HUB_LOG_LEVEL" : "logLevel", `${levelHint}, got ${JSON.stringify(logLevel)}`);
  const m = file.metrics === undefined ? {} : c.object(file.metrics, ["metrics"]);
  c.known(m, ["metrics"], ["enabled", "tenantLabel", "tokenHash", "port"]);
  const port = cli.metricsPort ?? envInt(env, "A2A_HUB_METRICS_PORT", 0, 65535) ?? (m.port === undefined ? undefined : c.int(m.port, ["metrics", "port"], 0, 65535));
  const metrics = {
    enabled: envBool(env, "A2A_HUB_METRICS") ?? (m.enabled === undefined ? true : c.bool(m.enabled, ["metrics", "enabled"])),
    tenantLabel: m.tenantLabel === undefined ? false : c.bool(m.tenantLabel, ["metrics", "tenantLabel"]),
    tokenHash: c.optString(m.tokenHash, ["metrics", "tokenHash"], HASH, HASH_HINT),
    port,
  };
  let tracing: HubConfig["tracing"];
  if (file.tracing !== undefined) {
    const t = c.object(file.tracing, ["tracing"]);
    c.known(t, ["tracing"], ["endpoint", "sampleRatio", "serviceName"]);
    const ratio = t.sampleRatio;
    if (ratio !== undefined && (typeof ratio !== "number" || !(ratio >= 0 && ratio <= 1))) c.fail(["tracing", "sampleRatio"], "must be a number from 0 to 1");
    tracing = {
      endpoint: c.optString(t.endpoint, ["tracing", "endpoint"], /^https?:\/\/[^/]/, "must be an http(s) URL"),
      sampleRatio: ratio as number | undefined,
      serviceName: c.optString(t.serviceName, ["tracing", "serviceName"]),
    };
  }
  const readinessDrainMs =
    envInt(env, "A2A_HUB_READINESS_DRAIN_MS", 0, 600_000) ?? (file.readinessDrainMs === undefined ? undefined : c.int(file.readinessDrainMs, ["readinessDrainMs"], 0, 600_000));
  return { logLevel, metrics, tracing, readinessDrainMs };
}

const SIGNING_ALGS = ["ES256", "ES384", "EdDSA", "RS256", "PS256"];
const JWKS_PATH = /^\/[A-Za-z0-9._~\/-]*$/;

/** `cards: { signing: {key, kid, alg} | [ ... ], jwksPath }`: a list of keys is a rotation, every key signs. */
function cardsOf(c: Checker, raw: unknown): HubConfig["cards"] {
  if (raw === undefined) return undefined;
  const cards = c.object(raw, ["cards"]);
  c.known(cards, ["cards"], ["signing", "jwksPath"]);
  if (cards.signing === undefined) c.fail(["cards", "signing"], "is required: a key {key, kid, alg} or a list of them");
  const list = Array.isArray(cards.signing) ? cards.signing : [cards.signing];
  if (list.length === 0) c.fail(["cards", "signing"], "must list at least one key");
  const signing = list.map((k, i) => {
    const path = Array.isArray(cards.signing) ? ["cards", "signing", i] : ["cards", "signing"];
    const o = c.object(k, path);
    c.known(o, path, ["key", "kid", "alg"]);
    const alg = c.string(o.alg, [...path, "alg"]);
    if (!SIGNING_ALGS.includes(alg)) c.fail([...path, "alg"], `must be one of ${SIGNING_ALGS.join(", ")}`);
    return { key: c.string(o.key, [...path, "key"]), kid: c.string(o.kid, [...path, "kid"]), alg };
  });
  const kids = signing.map((k) => k.kid);
  const twice = kids.find((k, i) => kids.indexOf(k) !== i);
  if (twice !== undefined) c.fail(["cards", "signing"], `key id ${twice} is listed twice`);
  const jwksPath = c.optString(cards.jwksPath, ["cards", "jwksPath"], JWKS_PATH, "must be a URL path starting with /") ?? "/.well-known/jwks.json";
  return { signing, jwksPath };
}
