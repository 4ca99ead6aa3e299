import { A2AClient, parseAgentCard, type ClientOptions } from "../client/index.js";
import type { AgentBackend, BackendAgent } from "./agent-backend.js";

/** Where an a2a-hub lists the cards of the agents a token may use (beside each agent's own card). */
const CATALOG_PATH = "v1/a2a/agents";

interface RemoteAgent extends BackendAgent {
  readonly client: A2AClient;
}

/** The agents of a hub's catalog, or undefined when the server keeps none (any other A2A server). */
async function catalogAgents(url: string, options: ClientOptions): Promise<RemoteAgent[] | undefined> {
  const base = new URL(url);
  if (base.pathname.endsWith(".json")) return undefined;
  const res = await fetch(new URL(CATALOG_PATH, base.href.endsWith("/") ? base : `${base.href}/`), {
    headers: { accept: "application/json", "a2a-version": "1.0", ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) },
    signal: AbortSignal.timeout(options.timeoutMs || 60_000),
  }).catch(() => undefined);
  if (!res?.ok) {
    await res?.body?.cancel();
    return undefined;
  }
  const doc = (await res.json().catch(() => undefined)) as { agents?: Array<{ id?: unknown; card?: unknown }> } | undefined;
  if (!Array.isArray(doc?.agents)) return undefined;
  return doc.agents.map((a) => {
    const card = parseAgentCard(a.card);
    return { id: String(a.id), card, client: A2AClient.fromCard(card, options) };
  });
}

/**
 * A remote hub or agent as an AgentBackend, through the project's A2A
 * client: a hub's agents from its catalog (each through its own card's
 * interfaces), else the one agent whose card `url` resolves to (its id
 * taken from the card's name). The remote server judges every call; its
 * errors come back as A2AError by their A2A names.
 */
export async function remoteBackend(url: string, options: ClientOptions = {}): Promise<AgentBackend & { close(): void }> {
  let agents = await catalogAgents(url, options);
  if (!agents) {
    const client = await A2AClient.connect(url, options);
    agents = [{ id: client.card.name.toLowerCase().replace(/[^a-z0-9_.-]+/g, "-").replace(/^-+|-+$/g, "") || "agent", card: client.card, client }];
  }
  const byId = new Map(agents.map((a) => [a.id, a]));
  const client = (id: string): A2AClient => byId.get(id)!.client;
  const listed: readonly BackendAgent[] = agents.map(({ id, card }) => ({ id, card }));
  return {
    agents: async () => listed,
    stream: (id, req, signal) => client(id).stream(req, { signal }),
    send: (id, req, signal) => client(id).send(req, { signal, timeoutMs: 0 }),
    get: (id, taskId) => client(id).get(taskId),
    cancel: (id, taskId) => client(id).cancel(taskId),
    recent: async (id, pageSize) => (await client(id).list({ pageSize })).tasks,
    close: () => agents.forEach((a) => a.client.close()),
  };
}
