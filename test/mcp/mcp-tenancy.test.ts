import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";
import { tenantHubOptions } from "../helpers/tenant-hub.js";
import { connectMcp, structured } from "../helpers/mcp-client.js";

/** MCP under the hub's tenancy: the bearer token picks the tenant, and a tenant sees only its own agents and tasks. */

const TOKENS = { alice: "alice-token-0123456789", bob: "bob-token-0123456789" };
const ISSUER = "https://issuer.example.com";

let t: TestHub;
let alice: Client;
let bob: Client;

beforeAll(async () => {
  t = await startTestHub({
    ...tenantHubOptions(TOKENS, [{ id: "shared" }, { id: "alices", tenants: ["alice"] }, { id: "bobs", tenants: ["bob"] }]),
    mcp: { authorizationServers: [ISSUER] },
  });
  alice = await connectMcp(t.url, { token: TOKENS.alice });
  bob = await connectMcp(t.url, { token: TOKENS.bob });
});
afterAll(async () => {
  await Promise.all([alice?.close(), bob?.close()]);
  await t?.stop();
});

const call = (c: Client, name: string, args: Record<string, unknown>) => c.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const initialize = (token?: string) =>
  fetch(new URL("mcp", t.url), {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } }),
  });

describe("MCP tenancy", () => {
  it("lists as tools only the agents the caller's tenant may use", async () => {
    expect((await alice.listTools()).tools.map((x) => x.name)).toEqual(["shared", "alices"]);
    expect((await bob.listTools()).tools.map((x) => x.name)).toEqual(["shared", "bobs"]);
  });

  it("refuses a call of another tenant's agent as an unknown tool", async () => {
    await expect(call(bob, "alices", { text: "hi" })).rejects.toThrow(/Unknown tool: alices/);
  });

  it("keeps a tenant's tasks from another: the resource is not found and the taskId is TASK_NOT_FOUND", async () => {
    const mine = await call(alice, "shared", { text: "input-required" });
    const id = structured(mine).taskId!;
    expect(structured(mine).state).toBe("TASK_STATE_INPUT_REQUIRED");
    const uri = `a2a://tasks/${id}`;
    expect(JSON.parse(((await alice.readResource({ uri })).contents[0] as { text: string }).text).id).toBe(id);
    await expect(bob.readResource({ uri })).rejects.toThrow(/Resource not found/);
    expect((await bob.listResources()).resources.map((r) => r.uri)).not.toContain(uri);
    const theirs = await call(bob, "shared", { text: "take over", taskId: id });
    expect(structured(theirs).error?.reason).toBe("TASK_NOT_FOUND");
    // Alice's task is untouched and still hers to finish.
    expect(structured(await call(alice, "shared", { text: "done", taskId: id })).state).toBe("TASK_STATE_COMPLETED");
  });

  it("answers a request without a valid token 401 with the protected-resource metadata's URL in the challenge", async () => {
    for (const [token, message] of [
      [undefined, /bearer token is required/],
      ["wrong-token", /token is not valid/],
    ] as const) {
      const res = await initialize(token);
      expect(res.status).toBe(401);
      const challenge = res.headers.get("www-authenticate")!;
      expect(challenge).toMatch(/^Bearer realm="a2a-hub"/);
      expect(challenge).toContain(`resource_metadata="${t.url}.well-known/oauth-protected-resource/mcp"`);
      // RFC 6750 §3.1: a token that was sent and refused is invalid_token; no token, no error code.
      expect(challenge.includes('error="invalid_token"')).toBe(token !== undefined);
      expect((await res.json()).error.message).toMatch(message);
    }
    await expect(connectMcp(t.url)).rejects.toThrow();
  });

  it("serves the protected-resource metadata of /mcp (RFC 9728) naming the configured authorization servers", async () => {
    const res = await fetch(new URL(".well-known/oauth-protected-resource/mcp", t.url));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ resource: `${t.url}mcp`, authorization_servers: [ISSUER], bearer_methods_supported: ["header"], resource_name: "a2a-hub MCP server" });
  });

  it("does not let one tenant use another's session", async () => {
    const res = await initialize(TOKENS.alice);
    expect(res.status).toBe(200);
    const session = res.headers.get("mcp-session-id")!;
    await res.body?.cancel();
    const stolen = await fetch(new URL("mcp", t.url), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${TOKENS.bob}`,
        "mcp-session-id": session,
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect(stolen.status).toBe(404);
    expect((await stolen.json()).error.message).toBe("Session not found");
  });
});

describe("MCP without authentication", () => {
  it("serves no protected-resource metadata when the hub has no tokens configured", async () => {
    const open = await startTestHub();
    try {
      expect((await fetch(new URL(".well-known/oauth-protected-resource/mcp", open.url))).status).toBe(404);
    } finally {
      await open.stop();
    }
  });
});
