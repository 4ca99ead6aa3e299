import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request } from "node:http";
import { tenantHubOptions } from "../helpers/tenant-hub.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";

/** A GET with any headers, Host included (fetch will not forge Host). */
function get(base: string, path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }> {
  const u = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname, headers, method: "GET" }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

const CARD = ".well-known/agent-card.json";
const urlsOf = (card: any) => card.supportedInterfaces.map((i: any) => `${i.protocolBinding} ${i.url}`);

describe("cards built from the request's Host (no publicUrl)", () => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub();
  });
  afterAll(() => t.stop());

  it("are never offered to shared caches: Cache-Control private and Vary: Host", async () => {
    const r = await get(t.url, CARD, { host: "evil.example" });
    expect(r.status).toBe(200);
    expect(r.body.supportedInterfaces[0].url).toBe("http://evil.example");
    expect(r.headers["cache-control"]).toMatch(/^private, max-age=\d+$/);
    expect(String(r.headers.vary).split(/,\s*/)).toContain("Host");
  });

  it.each([
    ["a path", "evil.example/phish"],
    ["userinfo", "user@evil.example"],
    ["a space", "evil example"],
    ["a port out of range", "evil.example:99999"],
    ["two ports", "evil.example:80:81"],
    ["a quote", 'evil.example"'],
  ])("refuses a Host with %s (400, google.rpc.Status body)", async (_what, host) => {
    const r = await get(t.url, CARD, { host });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
    expect(r.body.error.message).toContain("Host");
  });

  it("accepts IPv6 literals, ports and trailing-dot names", async () => {
    for (const host of ["[::1]:8080", "agents.example.org.", "a2a_hub:41241", "127.0.0.1"]) {
      const r = await get(t.url, CARD, { host });
      expect(r.status, host).toBe(200);
      expect(r.body.supportedInterfaces[0].url).toBe(`http://${host}`);
    }
  });

  it("ignores X-Forwarded-* and Forwarded from a peer that is not a trusted proxy", async () => {
    const r = await get(t.url, CARD, {
      host: `127.0.0.1:${t.hub.port}`,
      "x-forwarded-proto": "https",
      "x-forwarded-host": "evil.example",
      forwarded: 'proto=https;host="evil.example"',
    });
    expect(urlsOf(r.body)).toContain(`JSONRPC http://127.0.0.1:${t.hub.port}`);
    expect(JSON.stringify(r.body)).not.toContain("evil.example");
  });
});

describe("behind a trusted proxy", () => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub({ trustedProxies: ["loopback"] });
  });
  afterAll(() => t.stop());

  it("X-Forwarded-Proto and X-Forwarded-Host name the URLs, and the card varies by them", async () => {
    const r = await get(t.url, CARD, { host: "10.0.0.5:41241", "x-forwarded-proto": "https", "x-forwarded-host": "agents.example.org" });
    expect(urlsOf(r.body)).toEqual(expect.arrayContaining(["JSONRPC https://agents.example.org", "GRPC agents.example.org:443", "HTTP+JSON https://agents.example.org"]));
    expect(String(r.headers.vary).split(/,\s*/)).toEqual(expect.arrayContaining(["Host", "Forwarded", "X-Forwarded-Proto", "X-Forwarded-Host"]));
    expect(r.headers["cache-control"]).toMatch(/^private/);
  });

  it("RFC 7239 Forwarded wins over X-Forwarded-*, first element (client-facing proxy)", async () => {
    const r = await get(t.url, CARD, {
      host: "10.0.0.5",
      forwarded: 'for=192.0.2.1;proto=https;host="a2a.example:8443", for=10.0.0.1;proto=http;host=inner',
      "x-forwarded-host": "ignored.example",
    });
    expect(urlsOf(r.body)).toEqual(expect.arrayContaining(["JSONRPC https://a2a.example:8443", "GRPC a2a.example:8443"]));
  });

  it("a forwarded host or protocol that cannot be a URL is refused", async () => {
    expect((await get(t.url, CARD, { host: "x", "x-forwarded-host": "a/b" })).status).toBe(400);
    expect((await get(t.url, CARD, { host: "x", "x-forwarded-proto": "gopher" })).status).toBe(400);
  });

  it("the discovery stub of a hub with several agents follows the same rules", async () => {
    const multi = await startTestHub({ ...tenantHubOptions({ a: "token-a" }, [{ id: "one" }, { id: "two" }]), trustedProxies: ["127.0.0.1/32"] });
    try {
      const r = await get(multi.url, CARD, { host: "x", "x-forwarded-proto": "https", "x-forwarded-host": "hub.example" });
      expect(r.body.agentCardUrlTemplate).toBe("https://hub.example/v1/a2a/agents/{agentId}/agent-card.json");
      expect(r.headers["cache-control"]).toMatch(/^private/);
      expect((await get(multi.url, CARD, { host: "bad host" })).status).toBe(400);
    } finally {
      await multi.stop();
    }
  });
});

describe("with publicUrl configured", () => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub({ publicBaseUrl: "https://agents.example.org/" });
  });
  afterAll(() => t.stop());

  it("the card is the same for every request, publicly cacheable, and Host plays no part", async () => {
    const r = await get(t.url, CARD, { host: "evil.example", "x-forwarded-host": "evil.example" });
    expect(r.headers["cache-control"]).toMatch(/^public, max-age=\d+$/);
    expect(r.headers.vary ?? "").not.toMatch(/Host/);
    expect(JSON.stringify(r.body)).not.toContain("evil.example");
    expect(urlsOf(r.body)).toContain("GRPC agents.example.org:443");
  });
});
