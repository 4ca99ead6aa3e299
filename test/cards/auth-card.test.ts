import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashToken } from "../../src/auth/index.js";
import { callWith } from "../helpers/auth-probe.js";
import { HUB_AUDIENCE, TestIdp } from "../helpers/test-idp.js";
import { configHubOptions } from "../helpers/tenant-hub.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";

/** §4.5: the card's securitySchemes and securityRequirements, derived from the configuration. */
let idp: TestIdp;
beforeAll(async () => {
  idp = await TestIdp.start([{ id: "acme-bot", secret: "acme-secret", org: "acme" }]);
});
afterAll(async () => {
  await idp?.stop();
});

async function withHub(config: Record<string, unknown>, test: (hub: TestHub) => Promise<void>): Promise<void> {
  const hub = await startTestHub(configHubOptions(config));
  try {
    await test(hub);
  } finally {
    await hub.stop();
  }
}

const card = async (hub: TestHub, path = ".well-known/agent-card.json", token?: string) =>
  (await fetch(`${hub.url}${path}`, { headers: { "a2a-version": "1.0", ...(token ? { authorization: `Bearer ${token}` } : {}) } })).json() as Promise<any>;

describe("the card tells clients how to authenticate", () => {
  it("an open hub's card declares no security", async () => {
    await withHub({ agents: [{ id: "echo", kind: "echo" }] }, async (hub) => {
      const c = await card(hub);
      expect(c.securitySchemes).toBeUndefined();
      expect(c.securityRequirements).toBeUndefined();
    });
  });

  it("static tokens only: an HTTP bearer scheme, required", async () => {
    await withHub({ tenants: [{ id: "acme", tokens: [hashToken("t")] }], agents: [{ id: "echo", kind: "echo" }] }, async (hub) => {
      const c = await card(hub);
      expect(c.securitySchemes).toEqual({ bearer: { httpAuthSecurityScheme: { scheme: "Bearer", description: "A tenant's bearer token" } } });
      // ProtoJSON leaves an empty scope list out: `{}` is StringList with no scopes.
      expect(c.securityRequirements).toEqual([{ schemes: { bearer: {} } }]);
    });
  });

  it("an identity provider: OpenID Connect by its discovery URL and OAuth 2.0 client credentials with the token URL and the configured scope names; static tokens beside them", async () => {
    const config = {
      auth: { jwt: [{ issuer: idp.issuer, audience: HUB_AUDIENCE, tenantClaim: "org" }], scopes: { send: "agents:send", read: "agents:read" } },
      tenants: [{ id: "acme", tokens: [hashToken("t")] }],
      agents: [{ id: "echo", kind: "echo" }],
    };
    await withHub(config, async (hub) => {
      // One authenticated call: the discovery document (fetched at start) is in by then.
      expect(await callWith(hub, "rest", await idp.token("acme-bot"), { send: "hi" })).toMatchObject({ ok: true });
      const c = await card(hub);
      expect(c.securitySchemes.oidc).toEqual({
        openIdConnectSecurityScheme: { openIdConnectUrl: `${idp.issuer}/.well-known/openid-configuration`, description: "An access token of the identity provider" },
      });
      const oauth2 = c.securitySchemes.oauth2.oauth2SecurityScheme;
      expect(oauth2.flows.clientCredentials.tokenUrl).toBe(`${idp.issuer}/token`);
      expect(Object.keys(oauth2.flows.clientCredentials.scopes).sort()).toEqual(["a2a.cancel", "a2a.push", "agents:read", "agents:send"]);
      expect(c.securitySchemes.bearer).toBeDefined();
      // Alternatives: any one scheme suffices.
      expect(c.securityRequirements.map((r: any) => Object.keys(r.schemes)[0])).toEqual(["oidc", "oauth2", "bearer"]);
    });
  });

  it("an agent that requires scopes lists them in its OAuth requirements and on each skill", async () => {
    const config = {
      auth: { jwt: [{ issuer: idp.issuer, audience: HUB_AUDIENCE, tenantClaim: "org" }] },
      tenants: [{ id: "acme" }],
      agents: [{ id: "echo", kind: "echo" }, { id: "helpdesk", kind: "echo", requiredScopes: ["helpdesk.use"] }],
    };
    await withHub(config, async (hub) => {
      const token = await idp.token("acme-bot");
      const c = await card(hub, "v1/a2a/agents/helpdesk/agent-card.json", token);
      expect(c.securityRequirements).toContainEqual({ schemes: { oidc: { list: ["helpdesk.use"] } } });
      expect(c.skills.length).toBeGreaterThan(0);
      for (const skill of c.skills) expect(skill.securityRequirements).toContainEqual({ schemes: { oidc: { list: ["helpdesk.use"] } } });
      const plain = await card(hub, "v1/a2a/agents/echo/agent-card.json", token);
      expect(plain.securityRequirements).toContainEqual({ schemes: { oidc: {} } });
      expect(plain.skills.every((s: any) => s.securityRequirements === undefined)).toBe(true);
    });
  });

  it("the extended card is served only to an authenticated client holding a2a.read", async () => {
    const config = { auth: { jwt: [{ issuer: idp.issuer, audience: HUB_AUDIENCE, tenantClaim: "org" }] }, tenants: [{ id: "acme" }], agents: [{ id: "echo", kind: "echo" }] };
    await withHub(config, async (hub) => {
      const ask = async (token?: string) =>
        fetch(`${hub.url}extendedAgentCard`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
      expect((await ask()).status).toBe(401);
      const sendOnly = await ask(await idp.token("acme-bot", "a2a.send"));
      expect(sendOnly.status).toBe(403);
      expect(sendOnly.headers.get("www-authenticate")).toContain('scope="a2a.read"');
      // With a2a.read the scope check passes: the echo agent has no extended card configured (§3.3.2), which is a different answer.
      const reader = await ask(await idp.token("acme-bot", "a2a.read"));
      expect(reader.status).not.toBe(401);
      expect(reader.status).not.toBe(403);
    });
  });
});
