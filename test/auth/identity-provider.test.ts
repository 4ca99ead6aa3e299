import { createHmac, createPublicKey } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { base64url, decodeJwt } from "jose";
import { hashToken } from "../../src/auth/index.js";
import { AUTH_BINDINGS, callWith, type AuthBinding } from "../helpers/auth-probe.js";
import { HUB_AUDIENCE, newIdpKey, TestIdp } from "../helpers/test-idp.js";
import { configHubOptions } from "../helpers/tenant-hub.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";

/**
 * JWT access tokens of the user's own identity provider, a real OpenID
 * provider (oidc-provider) on a loopback port: discovery, JWKS, the
 * client-credentials grant, key rotation. Every answer is checked on
 * JSON-RPC, REST, gRPC and Connect.
 */
const STATIC = "acme-static-token";
const SCRAPE = "metrics-scrape-token";
let a: TestIdp;
let b: TestIdp;
let hub: TestHub;

/** The hub's config: issuer A names the tenant in its `org` claim, issuer B's tokens are all tenant beta. */
function config(extra: Record<string, unknown> = {}) {
  return {
    auth: {
      jwt: [
        { issuer: a.issuer, audience: HUB_AUDIENCE, tenantClaim: "org" },
        { issuer: b.issuer, audience: HUB_AUDIENCE, tenant: "beta" },
      ],
    },
    tenants: [{ id: "acme", tokens: [hashToken(STATIC)] }, { id: "beta" }, { id: "gamma" }],
    agents: [{ id: "echo", kind: "echo" }, { id: "helpdesk", kind: "echo", requiredScopes: ["helpdesk.use"] }],
    ...extra,
  };
}

beforeAll(async () => {
  a = await TestIdp.start([
    { id: "acme-bot", secret: "acme-secret", org: "acme" },
    { id: "gamma-bot", secret: "gamma-secret", org: "gamma" },
    { id: "sneaky-bot", secret: "sneaky-secret", org: "beta" },
  ]);
  b = await TestIdp.start([{ id: "beta-bot", secret: "beta-secret" }]);
  hub = await startTestHub({ ...configHubOptions(config()), metrics: { tokenHash: hashToken(SCRAPE) } });
});
afterAll(async () => {
  await hub?.stop();
  await a?.stop();
  await b?.stop();
});

const now = () => Math.floor(Date.now() / 1000);

/** A JWT with the header and payload given, and a signature of the caller's making. */
function compact(header: object, payload: object, sign: (input: string) => string): string {
  const input = `${base64url.encode(JSON.stringify(header))}.${base64url.encode(JSON.stringify(payload))}`;
  return `${input}.${sign(input)}`;
}

describe("a valid token of the identity provider", () => {
  it.each(AUTH_BINDINGS)("is accepted on %s, and its tenant sees only its own tasks", async (binding) => {
    const acme = await a.token("acme-bot");
    const gamma = await a.token("gamma-bot");
    const beta = await b.token("beta-bot");
    const sent = await callWith(hub, binding, acme, { send: "hello" });
    expect(sent, JSON.stringify(sent)).toMatchObject({ ok: true });
    expect(await callWith(hub, binding, acme, { get: sent.taskId! })).toMatchObject({ ok: true, taskId: sent.taskId });
    // Another tenant (of the same issuer, or of another one) cannot tell the task exists.
    for (const other of [gamma, beta]) {
      const seen = await callWith(hub, binding, other, { get: sent.taskId! });
      expect(seen.ok).toBe(false);
      expect(seen.status).toMatch(/^(404|NotFound|200)$/);
    }
  });

  it("and a static token of the same tenant see the same tasks: static tokens keep working side by side", async () => {
    const sent = await callWith(hub, "rest", await a.token("acme-bot"), { send: "side by side" });
    expect(await callWith(hub, "rest", STATIC, { get: sent.taskId! })).toMatchObject({ ok: true });
  });
});

describe("the console", () => {
  it("lists the agents an IdP token may use (its catalog call) and is refused without one; its Connect calls are the connect binding above", async () => {
    const catalog = async (token?: string) => fetch(`${hub.url}v1/a2a/agents`, { headers: { "a2a-version": "1.0", ...(token ? { authorization: `Bearer ${token}` } : {}) } });
    const listed = (await (await catalog(await a.token("acme-bot"))).json()) as { agents: Array<{ id: string }> };
    expect(listed.agents.map((x) => x.id)).toEqual(["echo", "helpdesk"]);
    const expired = await catalog(await a.forge({ org: "acme", exp: now() - 3600 }));
    expect(expired.status).toBe(401);
    expect(expired.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect((await fetch(`${hub.url}console`)).status).toBe(200);
  });
});

describe("scopes gate each operation and agent", () => {
  it.each(AUTH_BINDINGS)("on %s: a read-only token reads but may not send (403 insufficient_scope / PERMISSION_DENIED)", async (binding) => {
    const full = await a.token("acme-bot");
    const reader = await a.token("acme-bot", "a2a.read");
    const sent = await callWith(hub, binding, full, { send: "to read" });
    expect(await callWith(hub, binding, reader, { get: sent.taskId! })).toMatchObject({ ok: true });
    const refused = await callWith(hub, binding, reader, { send: "not allowed" });
    expect(refused.ok).toBe(false);
    if (binding === "grpc" || binding === "connect") expect(refused.status).toBe("PermissionDenied");
    else {
      expect(refused.status).toBe("403");
      expect(refused.challenge).toBe('Bearer realm="a2a-hub", error="insufficient_scope", scope="a2a.send"');
      expect(refused.reason).toBe("PERMISSION_DENIED");
    }
  });

  it.each(AUTH_BINDINGS)("on %s: an agent's requiredScopes are needed on top of the operation's", async (binding) => {
    const sender = await a.token("acme-bot", "a2a.send a2a.read");
    const helper = await a.token("acme-bot", "a2a.send a2a.read helpdesk.use");
    const refused = await callWith(hub, binding, sender, { send: "help" }, "helpdesk");
    expect(refused.ok).toBe(false);
    expect(refused.status).toMatch(/^(403|PermissionDenied)$/);
    if (binding === "rest" || binding === "jsonrpc") expect(refused.challenge).toContain('scope="helpdesk.use"');
    expect(await callWith(hub, binding, helper, { send: "help" }, "helpdesk")).toMatchObject({ ok: true });
    // The echo agent requires nothing more.
    expect(await callWith(hub, binding, sender, { send: "hi" }, "echo")).toMatchObject({ ok: true });
  });
});

/** A refusal case: the token, the reason counted, and what the challenge's description says. */
interface Refusal {
  readonly why: string;
  readonly token: () => Promise<string>;
  readonly reason: string;
  readonly description: RegExp;
}

const REFUSALS: Refusal[] = [
  { why: "an expired token", token: () => a.forge({ org: "acme", exp: now() - 3600 }), reason: "expired", description: /has expired/ },
  { why: "a token not yet valid", token: () => a.forge({ org: "acme", nbf: now() + 3600 }), reason: "expired", description: /not yet valid/ },
  { why: "a token of an untrusted issuer", token: () => a.forge({ org: "acme", iss: "https://idp.evil.example" }), reason: "issuer", description: /issuer is not trusted/ },
  { why: "a token for another audience", token: () => a.forge({ org: "acme", aud: "another-service" }), reason: "audience", description: /another audience/ },
  {
    why: "an unsigned token (alg none)",
    token: async () => compact({ alg: "none", kid: a.currentKey.kid }, { iss: a.issuer, aud: HUB_AUDIENCE, org: "acme", exp: now() + 300 }, () => ""),
    reason: "signature",
    description: /algorithm/,
  },
  {
    why: "HS256 signed with the issuer's RSA public key as the secret",
    token: async () => {
      const pem = createPublicKey({ key: a.currentKey.publicJwk as never, format: "jwk" }).export({ type: "spki", format: "pem" });
      return compact({ alg: "HS256", kid: a.currentKey.kid }, { iss: a.issuer, aud: HUB_AUDIENCE, org: "acme", exp: now() + 300 }, (input) =>
        createHmac("sha256", pem).update(input).digest("base64url"),
      );
    },
    reason: "signature",
    description: /algorithm/,
  },
  {
    why: "a tampered payload",
    token: async () => {
      const [h, , s] = (await a.token("gamma-bot")).split(".");
      const claims = { ...decodeJwt(await a.token("gamma-bot")), org: "acme" };
      return `${h}.${base64url.encode(JSON.stringify(claims))}.${s}`;
    },
    reason: "signature",
    description: /signature does not verify/,
  },
  { why: "a token over 8 KiB", token: () => a.forge({ org: "acme", padding: "x".repeat(9000) }), reason: "malformed", description: /longer than 8192 bytes/ },
  { why: "a token of issuer A naming a tenant issuer B owns", token: () => a.token("sneaky-bot"), reason: "issuer", description: /may not name tenant beta/ },
];

describe.each(REFUSALS)("$why", (r) => {
  it.each(AUTH_BINDINGS)("is refused on %s with 401 invalid_token / UNAUTHENTICATED, never echoing the token", async (binding: AuthBinding) => {
    const token = await r.token();
    const answer = await callWith(hub, binding, token, { send: "refused" });
    expect(answer.ok).toBe(false);
    if (binding === "grpc" || binding === "connect") {
      expect(answer.status).toBe("Unauthenticated");
    } else {
      expect(answer.status).toBe("401");
      expect(answer.reason).toBe("UNAUTHENTICATED");
    }
    expect(answer.challenge).toMatch(/^Bearer realm="a2a-hub", error="invalid_token", error_description="[^"]*"$/);
    expect(answer.challenge).toMatch(r.description);
    expect(answer.challenge).not.toContain(token.slice(0, 40));
  });
});

describe("refusals are counted and logged", () => {
  it("a2a_auth_refusals_total counts each refusal by binding and reason", async () => {
    const before = await refusalCount("rest", "expired");
    await callWith(hub, "rest", await a.forge({ org: "acme", exp: now() - 60 }), { send: "x" });
    await callWith(hub, "grpc", undefined, { send: "x" });
    expect(await refusalCount("rest", "expired")).toBe(before + 1);
    expect(await refusalCount("grpc", "missing")).toBeGreaterThanOrEqual(1);
    expect(await refusalCount("jsonrpc", "scope")).toBeGreaterThanOrEqual(1);
  });
});

async function refusalCount(binding: string, reason: string): Promise<number> {
  const text = await (await fetch(`${hub.url}metrics`, { headers: { authorization: `Bearer ${SCRAPE}` } })).text();
  const m = new RegExp(`^a2a_auth_refusals_total\\{binding="${binding}",reason="${reason}"\\} (\\d+)`, "m").exec(text);
  return m ? Number(m[1]) : 0;
}

/** A test with an IdP of its own (rotated or taken down) and a hub trusting only it. */
async function withOwnIdp(test: (idp: TestIdp, own: TestHub) => Promise<void>): Promise<void> {
  const idp = await TestIdp.start([{ id: "acme-bot", secret: "acme-secret", org: "acme" }]);
  const own = await startTestHub(configHubOptions({ ...config(), auth: { jwt: [{ issuer: idp.issuer, audience: HUB_AUDIENCE, tenantClaim: "org" }] } }));
  try {
    await test(idp, own);
  } finally {
    await own.stop();
    await idp.stop();
  }
}

describe("the issuer's keys", () => {
  it("an unknown kid refetches the JWKS once, then is refused; a second one within 30 s does not refetch", async () => {
    const own = await startTestHub(configHubOptions(config()));
    try {
      // The first call waits for the keys fetched at start.
      expect(await callWith(own, "rest", await a.token("acme-bot"), { send: "warm" })).toMatchObject({ ok: true });
      const rogue = await newIdpKey("rogue-key");
      const fetches = a.jwksFetches;
      const first = await callWith(own, "rest", await a.forge({ org: "acme" }, { key: rogue }), { send: "x" });
      expect(first).toMatchObject({ ok: false, status: "401" });
      expect(first.challenge).toContain("a key the issuer does not publish");
      expect(a.jwksFetches).toBe(fetches + 1);
      const second = await callWith(own, "grpc", await a.forge({ org: "acme" }, { key: rogue }), { send: "x" });
      expect(second.status).toBe("Unauthenticated");
      expect(a.jwksFetches).toBe(fetches + 1);
    } finally {
      await own.stop();
    }
  });

  it("after a rotation at the IdP, old tokens keep working until they expire and new ones work at once", () =>
    withOwnIdp(async (idp, own) => {
      const old = await idp.token("acme-bot");
      const sent = await callWith(own, "connect", old, { send: "before rotation" });
      expect(sent.ok).toBe(true);
      await idp.rotate("key-2");
      const fresh = await idp.token("acme-bot");
      expect(JSON.parse(Buffer.from(fresh.split(".")[0]!, "base64url").toString()).kid).toBe("key-2");
      for (const binding of AUTH_BINDINGS) {
        expect(await callWith(own, binding, fresh, { get: sent.taskId! }), binding).toMatchObject({ ok: true });
        expect(await callWith(own, binding, old, { get: sent.taskId! }), binding).toMatchObject({ ok: true });
      }
    }));

  it("with the IdP down, tokens of known keys still work and an unknown key is refused at once", () =>
    withOwnIdp(async (idp, own) => {
      const known = await idp.token("acme-bot");
      expect(await callWith(own, "rest", known, { send: "up" })).toMatchObject({ ok: true });
      idp.down();
      for (const binding of AUTH_BINDINGS) expect(await callWith(own, binding, known, { send: "down" }), binding).toMatchObject({ ok: true });
      const rogue = await newIdpKey("after-outage");
      const started = Date.now();
      for (const binding of AUTH_BINDINGS) {
        const answer = await callWith(own, binding, await idp.forge({ org: "acme" }, { key: rogue }), { send: "x" });
        expect(answer.status, binding).toMatch(/^(401|Unauthenticated)$/);
      }
      // Bounded, not a timing claim: well under the 5 s an unanswered IdP request may take.
      expect(Date.now() - started).toBeLessThan(5_000);
    }));
});
