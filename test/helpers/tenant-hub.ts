import { hashToken } from "../../src/auth/index.js";
import { buildConfig, hubOptionsFromConfig, type HubOptions } from "../../src/server/index.js";

/** An echo agent of a tenant hub; `tenants` restricts who may call it. */
export interface TenantHubAgent {
  readonly id: string;
  readonly tenants?: readonly string[];
}

/**
 * The agents and access policy of a hub with one bearer token per tenant,
 * built the way a config file would be (hashed tokens, allow-lists), so the
 * test goes through the same config path as `npm start`.
 */
export function tenantHubOptions(
  tokens: Readonly<Record<string, string>>,
  agents: readonly TenantHubAgent[],
  /** Tenant → the scopes its token lists (`tokens: [{ hash, scopes }]`); a tenant not here has every scope. */
  scopes: Readonly<Record<string, readonly string[]>> = {},
): Pick<HubOptions, "agents" | "access"> {
  const config = buildConfig(
    {
      file: "inline",
      lineOf: () => undefined,
      data: {
        tenants: Object.entries(tokens).map(([id, token]) => ({ id, tokens: [scopes[id] ? { hash: hashToken(token), scopes: [...scopes[id]] } : hashToken(token)] })),
        agents: agents.map((a) => ({ id: a.id, kind: "echo", ...(a.tenants ? { tenants: [...a.tenants] } : {}) })),
      },
    },
    {},
  );
  const { agents: hosted, access } = hubOptionsFromConfig(config);
  return { agents: hosted, access };
}

/** The agents, access policy and TLS of a hub configured by this config document, through the same path as `npm start`. */
export function configHubOptions(data: Record<string, unknown>): Pick<HubOptions, "agents" | "access" | "tls"> {
  const { agents, access, tls } = hubOptionsFromConfig(buildConfig({ file: "inline", lineOf: () => undefined, data }, {}));
  return { agents, access, ...(tls ? { tls } : {}) };
}
