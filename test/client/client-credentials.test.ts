import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { A2AClient, ClientCredentials, clientFailureOf } from "../../src/client/index.js";
import { A2AError } from "../../src/protocol/index.js";
import { cli } from "../helpers/cli-process.js";
import { HUB_AUDIENCE, TestIdp } from "../helpers/test-idp.js";
import { configHubOptions } from "../helpers/tenant-hub.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";

/**
 * Outbound OAuth 2.0 client credentials (RFC 6749 §4.4): the library's
 * client, the remote agent and the CLI get their tokens from the IdP,
 * keep them until shortly before expiry, and ask again once after a 401.
 */
let idp: TestIdp;
let protectedHub: TestHub;
beforeAll(async () => {
  idp = await TestIdp.start([{ id: "outbound", secret: "outbound-secret", org: "acme" }]);
  protectedHub = await startTestHub(
    configHubOptions({ auth: { jwt: [{ issuer: idp.issuer, audience: HUB_AUDIENCE, tenantClaim: "org" }] }, tenants: [{ id: "acme" }], agents: [{ id: "echo", kind: "echo" }] }),
  );
});
afterAll(async () => {
  await protectedHub?.stop();
  await idp?.stop();
});

const credentials = (scope?: string) => new ClientCredentials({ issuer: idp.issuer, clientId: "outbound", clientSecret: "outbound-secret", scope });

describe("outbound client credentials", () => {
  it("the library's client gets a token by discovery, keeps it for later calls, and calls the protected hub on every binding", async () => {
    const source = credentials("a2a.send a2a.read");
    const before = idp.tokenRequests;
    for (const binding of ["jsonrpc", "rest", "grpc"] as const) {
      const client = await A2AClient.connect(protectedHub.url, { credentials: source, bindings: [binding] });
      const sent = await client.send({ message: { parts: [{ content: { case: "text", value: `over ${binding}` } }] } });
      expect(sent.payload.case, binding).toBe("task");
      const id = (sent.payload.value as { id: string }).id;
      expect((await client.get(id)).id).toBe(id);
      client.close();
    }
    // One token for all of it: cached until shortly before it expires.
    expect(idp.tokenRequests - before).toBe(1);
  });

  it("a token the hub refuses is dropped and a new one asked for, once", async () => {
    const source = credentials();
    // The IdP issues a token for another audience first: the hub refuses it with 401.
    idp.audience = "someone-else";
    await source.token();
    idp.audience = HUB_AUDIENCE;
    const before = idp.tokenRequests;
    const client = await A2AClient.connect(protectedHub.url, { credentials: source, bindings: ["rest"] });
    const sent = await client.send({ message: { parts: [{ content: { case: "text", value: "after a refresh" } }] } });
    expect(sent.payload.case).toBe("task");
    expect(idp.tokenRequests - before).toBe(1);
    client.close();
    // Only once: when the new token is refused too, the 401 comes back to the caller.
    idp.audience = "someone-else";
    const refused = A2AClient.fromCard(client.card, { credentials: credentials(), bindings: ["jsonrpc"] });
    try {
      const asked = idp.tokenRequests;
      const error = await refused.get("any").then(() => undefined, (e: unknown) => e);
      expect(error instanceof A2AError && (error.a2a === "Unauthenticated" || clientFailureOf(error) === "UNAUTHENTICATED"), String(error)).toBe(true);
      expect(idp.tokenRequests - asked).toBe(2);
    } finally {
      idp.audience = HUB_AUDIENCE;
      refused.close();
    }
  });

  it("a remote agent configured with auth.clientCredentials reaches the protected hub", async () => {
    process.env.A2A_TEST_REMOTE_SECRET = "outbound-secret";
    const front = await startTestHub(
      configHubOptions({
        agents: [
          {
            id: "far",
            kind: "remote",
            options: { url: protectedHub.url, auth: { clientCredentials: { issuer: idp.issuer, clientId: "outbound", clientSecretEnv: "A2A_TEST_REMOTE_SECRET", scope: "a2a.send a2a.read" } } },
          },
        ],
      }),
    );
    try {
      const res = await fetch(`${front.url}message:send`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "through the remote" }] } }),
      });
      const body = (await res.json()) as any;
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(body.task.status.state).toBe("TASK_STATE_COMPLETED");
    } finally {
      await front.stop();
      delete process.env.A2A_TEST_REMOTE_SECRET;
    }
  });

  it("the CLI takes --token-url, --client-id and --client-secret-env", async () => {
    const run = await cli(["send", protectedHub.url, "hello from the CLI", "--token-url", `${idp.issuer}/token`, "--client-id", "outbound", "--client-secret-env", "OUTBOUND_SECRET"], {
      env: { OUTBOUND_SECRET: "outbound-secret" },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("hello from the CLI");
    const wrong = await cli(["send", protectedHub.url, "x", "--token-url", `${idp.issuer}/token`, "--client-id", "outbound", "--client-secret-env", "OUTBOUND_SECRET"], {
      env: { OUTBOUND_SECRET: "not-the-secret" },
    });
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/token endpoint .* refused: HTTP 401 invalid_client/);
    expect(wrong.stderr).not.toContain("not-the-secret");
  });
});
