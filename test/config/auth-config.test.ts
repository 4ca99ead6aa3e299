import { describe, expect, it } from "vitest";
import { hashToken } from "../../src/auth/index.js";
import { accessPolicyOf, buildConfig, hubOptionsFromConfig } from "../../src/server/index.js";
import { errorOf } from "../helpers/config-files.js";

/** The `auth:` keys exactly as documented, and every mistake named by its key. */
const build = (data: Record<string, unknown>) => buildConfig({ file: "hub.yaml", lineOf: () => undefined, data }, {});
const H = hashToken("t");
const issuer = (extra: Record<string, unknown> = {}) => ({ issuer: "https://idp.example.com/realms/acme", audience: "a2a-hub", tenant: "acme", ...extra });
const withAuth = (auth: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ auth, tenants: [{ id: "acme", tokens: [H] }, { id: "beta" }], ...extra });

describe("auth configuration", () => {
  it("names the configured issuers as the MCP endpoint's authorization servers (RFC 9728 metadata)", () => {
    const config = build(withAuth({ jwt: [issuer(), issuer({ issuer: "https://login.example.net/t/v2.0", tenant: "beta" })] }));
    expect(hubOptionsFromConfig(config).mcp?.authorizationServers).toEqual(["https://idp.example.com/realms/acme", "https://login.example.net/t/v2.0"]);
    expect(hubOptionsFromConfig(build({ tenants: [{ id: "acme", tokens: [H] }] })).mcp).toBeUndefined();
  });

  it("reads issuers, scope names, scoped static tokens and agents' required scopes into the access policy", () => {
    const config = build({
      auth: { jwt: [issuer(), { issuer: "https://login.example.net/t/v2.0", audience: "api://hub", tenantClaim: "tid", scopesClaim: "roles", jwksUri: "https://login.example.net/keys" }], scopes: { send: "A2A.Send" }, clockSkewSeconds: 10 },
      tenants: [{ id: "acme", tokens: [H, { hash: hashToken("r"), scopes: ["a2a.read"] }] }, { id: "beta" }],
      agents: [{ id: "helpdesk", kind: "echo", requiredScopes: ["helpdesk.use"] }],
    });
    const policy = accessPolicyOf(config);
    expect(policy.jwt).toEqual([
      { issuer: "https://idp.example.com/realms/acme", audience: "a2a-hub", tenant: "acme", tenantClaim: undefined, jwksUri: undefined, scopesClaim: undefined, clockSkewS: 10 },
      { issuer: "https://login.example.net/t/v2.0", audience: "api://hub", tenant: undefined, tenantClaim: "tid", jwksUri: "https://login.example.net/keys", scopesClaim: "roles", clockSkewS: 10 },
    ]);
    expect(policy.scopes).toEqual({ send: "A2A.Send" });
    expect(policy.tenants[0]!.tokenHashes).toEqual([H, hashToken("r")]);
    expect(policy.tenants[0]!.scopesByHash?.get(hashToken("r"))).toEqual(["a2a.read"]);
    expect(policy.tenants[1]).toMatchObject({ tenant: "beta", tokenHashes: [] });
    expect(policy.agentScopes?.get("helpdesk")).toEqual(["helpdesk.use"]);
    expect(config.auth?.warnings).toEqual([]);
  });

  it("accepts a plain-http issuer only on a loopback address, with a warning", () => {
    expect(build(withAuth({ jwt: [issuer({ issuer: "http://127.0.0.1:8080/realms/acme" })] })).auth?.warnings).toEqual([
      "auth.jwt[0].issuer: http://127.0.0.1:8080/realms/acme is plain http, accepted only because it is a loopback address",
    ]);
    expect(errorOf(() => build(withAuth({ jwt: [issuer({ issuer: "http://idp.example.com" })] }))).message).toBe(
      "hub.yaml: auth.jwt[0].issuer: must be an https:// URL (http:// only on a loopback address)",
    );
  });

  it.each([
    ["no audience", { jwt: [issuer({ audience: undefined })] }, {}, "auth.jwt[0].audience: is required: the audience (aud) the hub's tokens are issued for"],
    ["both tenant and tenantClaim", { jwt: [issuer({ tenantClaim: "org" })] }, {}, "auth.jwt[0]: needs exactly one of tenant (every token is that tenant) and tenantClaim (the claim naming the tenant)"],
    ["an undeclared tenant", { jwt: [issuer({ tenant: "nobody" })] }, {}, "auth.jwt[0].tenant: no tenant nobody is declared under tenants"],
    ["an issuer listed twice", { jwt: [issuer(), issuer()] }, {}, "auth.jwt[1].issuer: issuer https://idp.example.com/realms/acme is listed twice"],
    ["an unknown key", { jwt: [issuer({ audiences: ["x"] })] }, {}, "auth.jwt[0].audiences: unknown key (expected one of issuer, audience, tenant, tenantClaim, jwksUri, scopesClaim)"],
    ["a scope name with a space", { scopes: { read: "a2a read" } }, {}, "auth.scopes.read: must be a scope name: printable characters, no spaces or quotes"],
    ["mtls without a client CA", { mtls: { tenantFrom: "san.uri", map: { "spiffe://x/y": "acme" } } }, {}, "auth.mtls: needs tls.clientCa: the CA whose client certificates are verified"],
    ["mtls from an unknown field", { mtls: { tenantFrom: "issuer.CN", map: { x: "acme" } } }, {}, "auth.mtls.tenantFrom: must be one of subject.CN, san.uri, san.dns"],
    ["a scoped token without scopes", {}, { tenants: [{ id: "acme", tokens: [{ hash: H }] }] }, "tenants[0].tokens[0].scopes: must be a list"],
  ])("refuses %s, naming the key", (_what, auth, extra, message) => {
    expect(errorOf(() => build(withAuth(auth, extra))).message).toBe(`hub.yaml: ${message}`);
  });
});
