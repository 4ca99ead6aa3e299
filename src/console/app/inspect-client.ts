import type { RecordedExchange } from "../inspect/index.js";
import { authHeaders } from "./hub-client.js";

/** One HTTP exchange the hub made for the inspector (a type only: nothing of the server is bundled). */
export type { RecordedExchange };

/** One line of the inspector's answer. */
export type InspectLine =
  | { exchange: RecordedExchange }
  | { card: InspectedCard }
  | { interface: { binding: string; version: string; url: string } }
  | { event: unknown }
  | { result: unknown }
  | { error: { name: string; message: string } };

/** A card as the hub read it: where, which version, as served, as v1.0 ProtoJSON, and its signature's state. */
export interface InspectedCard {
  readonly cardUrl: string;
  readonly version: "1.0" | "0.3";
  readonly raw: unknown;
  readonly card: unknown;
  readonly signature: { readonly state: string; readonly detail: string };
}

const TOKENS = "a2a-hub.console.agent-tokens";

/**
 * Tokens typed for inspected agents, by the agent's origin, for this tab
 * only (sessionStorage). Each is sent with the inspector's calls to that
 * agent only, never to another agent and never kept by the hub.
 */
export const agentTokens = {
  get(agentUrl: string): string {
    return (JSON.parse(sessionStorage.getItem(TOKENS) ?? "{}") as Record<string, string>)[originOf(agentUrl)] ?? "";
  },
  set(agentUrl: string, value: string): void {
    const all = JSON.parse(sessionStorage.getItem(TOKENS) ?? "{}") as Record<string, string>;
    if (value) all[originOf(agentUrl)] = value;
    else delete all[originOf(agentUrl)];
    sessionStorage.setItem(TOKENS, JSON.stringify(all));
  },
};

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/**
 * Asks the hub to read a card or make a call; each NDJSON line is handed to
 * `onLine` as it arrives, so exchanges and stream events show live.
 */
export async function inspect(kind: "card" | "call", body: Record<string, unknown>, onLine: (line: InspectLine) => void): Promise<void> {
  const res = await fetch(`${location.origin}/console/api/${kind}`, { method: "POST", headers: { ...authHeaders(), "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!res.ok || !res.body) {
    const err = (await res.json().catch(() => ({}))) as { error?: { message?: string } };
    onLine({ error: { name: `HTTP ${res.status}`, message: err.error?.message ?? res.statusText } });
    return;
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let rest = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const lines = (rest + value).split("\n");
    rest = lines.pop() ?? "";
    for (const l of lines) if (l.trim()) onLine(JSON.parse(l) as InspectLine);
  }
  if (rest.trim()) onLine(JSON.parse(rest) as InspectLine);
}
