import { afterEach, describe, expect, it } from "vitest";
import { hashToken } from "../../src/auth/index.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";

const hubs: TestHub[] = [];
afterEach(async () => {
  await Promise.all(hubs.splice(0).map((h) => h.stop()));
});

async function get(url: string): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.json(), headers: res.headers };
}

describe("health and readiness", () => {
  it("/healthz and /readyz answer 200 without a token, even on a hub with tenants", async () => {
    const t = await startTestHub({ access: { tenants: [{ tenant: "acme", tokenHashes: [hashToken("acme-token")] }], agentTenants: new Map() } });
    hubs.push(t);
    const live = await get(`${t.url}healthz`);
    expect(live).toMatchObject({ status: 200, body: { status: "ok" } });
    expect(live.headers.get("cache-control")).toBe("no-store");
    expect(await get(`${t.url}readyz`)).toMatchObject({ status: 200, body: { status: "ready" } });
    // The A2A endpoints stay behind the token.
    expect((await fetch(`${t.url}tasks`)).status).toBe(401);
  });

  it("/readyz is 503 during a graceful stop while /healthz stays 200, then the port closes", async () => {
    const t = await startTestHub({ readinessDrainMs: 1_000 });
    const closing = t.stop();
    const ready = await get(`${t.url}readyz`);
    expect(ready).toMatchObject({ status: 503, body: { status: "draining" } });
    expect((await get(`${t.url}healthz`)).status).toBe(200);
    await closing;
    await expect(fetch(`${t.url}healthz`)).rejects.toThrow();
  });

});

describe("GET / on the hub's port", () => {
  it("says what the server is and where its card, agents, console, health and metrics are, as absolute URLs that answer", async () => {
    const t = await startTestHub();
    hubs.push(t);
    const res = await fetch(t.url);
    expect(res.status).toBe(200);
    const index = (await res.json()) as any;
    expect(index.name).toBe("a2a-hub");
    for (const url of [index.agentCard, index.agents, index.console, index.health.live, index.health.ready, index.metrics]) {
      expect(url.startsWith(t.url), url).toBe(true);
      expect((await fetch(url)).status, url).toBe(200);
    }
  });
});
