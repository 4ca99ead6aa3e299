import type { AccessGuard } from "../auth/index.js";
import { discoveryUrl } from "../auth/index.js";
import type { CardSecurity } from "../cards/index.js";

export type { CardSecurity };

/** What scope each operation scope allows, for the card's OAuth 2.0 flows. */
const SCOPE_MEANING = {
  send: "Send messages (SendMessage, SendStreamingMessage)",
  read: "Read tasks (GetTask, ListTasks, SubscribeToTask, the extended card)",
  cancel: "Cancel tasks",
  push: "Manage push notification configs",
} as const;

/**
 * The card's view of the access policy in force (§4.5): static tokens as
 * HTTP bearer, each issuer by its discovery URL and (once discovery has
 * answered) its token endpoint, client certificates, and the scope names.
 * Undefined when authentication is off.
 */
export function cardSecurity(guard: AccessGuard): CardSecurity | undefined {
  if (!guard.authRequired) return undefined;
  const policy = guard.current;
  const names = guard.scopes.names;
  const scopes: Record<string, string> = {};
  for (const kind of Object.keys(SCOPE_MEANING) as Array<keyof typeof SCOPE_MEANING>) scopes[names[kind]] = SCOPE_MEANING[kind];
  for (const required of guard.scopes.agentScopes.values()) for (const s of required) scopes[s] ??= "Use the agents that require it";
  return {
    bearer: policy.tenants.some((t) => t.tokenHashes.length > 0),
    issuers: guard.issuers.map((i) => ({ discoveryUrl: discoveryUrl(i.config.issuer), tokenUrl: i.keys.provider?.token_endpoint })),
    mtls: policy.mtls !== undefined,
    scopes,
  };
}
