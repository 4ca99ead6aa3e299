import { readFileSync } from "node:fs";
import { create } from "@bufbuild/protobuf";
import { AgentCardSchema, type AgentCard } from "../../../gen/a2a/v1/a2a_pb.js";
import { ClientCredentials, isBindingName, type BindingName } from "../../client/index.js";
import type { HostedAgent } from "../../core/index.js";
import { AgentOptionsError, OptionsReader } from "../agent-options.js";
import { bridgedCard, RemoteAgent, remoteCard, type RemoteAgentOptions } from "./remote-agent.js";

/** Agent ids, as the hub's config spells them. */
const AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HTTP_URL = /^https?:\/\/[^/]/;

const REMOTE_KEYS = ["url", "cardUrl", "card_url", "tokenEnv", "token_env", "binding", "timeoutMs", "token", "auth"];

/**
 * A remote agent's options as a config file writes them:
 * `{ url, tokenEnv?, binding?, timeoutMs? }` (`cardUrl`/`card_url` and
 * `token_env` are accepted too). The token is read from the environment
 * variable `tokenEnv` names, which must be set; a `token` in the file is
 * refused, so that secrets stay out of config files.
 */
export function parseRemoteAgentOptions(raw: unknown, prefix = "", env: NodeJS.ProcessEnv = process.env): RemoteAgentOptions {
  const r = new OptionsReader(raw, prefix, REMOTE_KEYS);
  if (r.has("token")) r.fail("token", "tokens never go in a file: put it in an environment variable and name that variable in tokenEnv");
  const urlKey = ["url", "cardUrl", "card_url"].filter((k) => r.has(k));
  if (urlKey.length !== 1) r.fail("url", urlKey.length === 0 ? "is required (the remote agent's card URL or base URL)" : `give one of ${urlKey.join(", ")}`);
  const url = r.string(urlKey[0]!, HTTP_URL, "must be an http(s) URL");
  const tokenKey = r.has("tokenEnv") ? "tokenEnv" : r.has("token_env") ? "token_env" : undefined;
  let token: string | undefined;
  if (tokenKey) {
    const name = r.string(tokenKey, ENV_NAME, "must be an environment variable name");
    token = env[name];
    if (token === undefined || token === "") r.fail(tokenKey, `the environment variable ${name} is not set`);
  }
  const binding = r.optString("binding");
  if (binding !== undefined && !isBindingName(binding)) r.fail("binding", "must be one of jsonrpc, rest, grpc");
  const credentials = r.has("auth") ? clientCredentialsOf(r.raw("auth"), prefix ? `${prefix}.auth` : "auth", env) : undefined;
  if (credentials && token !== undefined) r.fail("auth", "give either tokenEnv or auth.clientCredentials, not both");
  return { url, token, credentials, binding: binding as BindingName | undefined, timeoutMs: r.int("timeoutMs", 1, 3_600_000) };
}

/**
 * `auth: { clientCredentials: { issuer | tokenUrl, clientId, clientSecretEnv, scope } }`:
 * the remote's tokens by OAuth 2.0 client credentials, the secret read
 * from the environment variable named, never from the file.
 */
function clientCredentialsOf(raw: unknown, prefix: string, env: NodeJS.ProcessEnv): ClientCredentials {
  const auth = new OptionsReader(raw, prefix, ["clientCredentials"]);
  const c = new OptionsReader(auth.raw("clientCredentials") ?? auth.fail("clientCredentials", "is required"), `${prefix}.clientCredentials`, ["issuer", "tokenUrl", "clientId", "clientSecretEnv", "scope"]);
  if (c.has("issuer") === c.has("tokenUrl")) c.fail("tokenUrl", "give one of issuer (its discovery names the token endpoint) and tokenUrl");
  const secretEnv = c.string("clientSecretEnv", ENV_NAME, "must be an environment variable name");
  const clientSecret = env[secretEnv] ?? "";
  if (clientSecret === "") c.fail("clientSecretEnv", `the environment variable ${secretEnv} is not set`);
  return new ClientCredentials({
    issuer: c.optString("issuer", HTTP_URL, "must be an http(s) URL"),
    tokenUrl: c.optString("tokenUrl", HTTP_URL, "must be an http(s) URL"),
    clientId: c.string("clientId"),
    clientSecret,
    scope: c.optString("scope"),
  });
}

/** A remote agent ready to host: id, executor and card. */
export function remoteHostedAgent(id: string, options: RemoteAgentOptions, card: { name?: string; description?: string } = {}): HostedAgent {
  const executor = new RemoteAgent(options);
  // The registry's own words win over the remote's.
  const overridden = (c: AgentCard) => create(AgentCardSchema, { ...c, name: card.name ?? c.name, description: card.description ?? c.description });
  return {
    id,
    executor,
    card: remoteCard({ name: card.name ?? id, description: card.description, url: options.url }),
    watchCard: (apply) => executor.watchCard((remote) => apply(overridden(bridgedCard(remote, options.url)))),
  };
}

/**
 * Loads a registry of remote agents, in the spirit of arbiter's
 * a2a_agents.json: a JSON file holding `{ "agents": [ … ] }` (or just the
 * list), each entry `{ name, url, tokenEnv?, binding?, timeoutMs?,
 * description? }`. `name` becomes the hosted agent's id. Every problem is an
 * AgentOptionsError naming the file and the key.
 */
export function loadRemoteRegistry(path: string, env: NodeJS.ProcessEnv = process.env): HostedAgent[] {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new AgentOptionsError("(file)", e instanceof Error ? e.message : String(e), path);
  }
  const list = Array.isArray(doc) ? doc : typeof doc === "object" && doc !== null && Array.isArray((doc as { agents?: unknown }).agents) ? (doc as { agents: unknown[] }).agents : undefined;
  if (!list) throw new AgentOptionsError("agents", "must be a list of remote agents", path);
  const prefix = Array.isArray(doc) ? "" : "agents";
  const seen = new Set<string>();
  try {
    return list.map((entry, i) => {
      const at = `${prefix}[${i}]`;
      const r = new OptionsReader(entry, at, ["name", "description", ...REMOTE_KEYS]);
      const name = r.string("name", AGENT_ID, "must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit");
      if (seen.has(name)) r.fail("name", `${name} is declared twice`);
      seen.add(name);
      const { name: _name, description: _description, ...rest } = entry as Record<string, unknown>;
      const options = parseRemoteAgentOptions(rest, at, env);
      return remoteHostedAgent(name, options, { description: r.optString("description") });
    });
  } catch (e) {
    if (e instanceof AgentOptionsError) throw new AgentOptionsError(e.key, e.problem, path);
    throw e;
  }
}
