import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestHub, type TestHub } from "./helpers/test-hub.js";

let t: TestHub;
let pinned: TestHub;
beforeAll(async () => {
  t = await startTestHub();
  pinned = await startTestHub({ publicBaseUrl: "https://agents.example.org/hub/" });
});
afterAll(async () => {
  await t.stop();
  await pinned.stop();
});

const cardUrl = (h: TestHub) => new URL(".well-known/agent-card.json", h.url);

describe("GET /.well-known/agent-card.json (§8.2)", () => {
  it("lists every binding served, with absolute URLs from the request's Host", async () => {
    const res = await fetch(cardUrl(t));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const card = await res.json();
    const pairs = card.supportedInterfaces.map((i: any) => `${i.protocolBinding} ${i.protocolVersion}`);
    expect(pairs).toEqual(expect.arrayContaining(["JSONRPC 1.0", "JSONRPC 0.3", "GRPC 1.0"]));
    // The GRPC interface is the hostname:port gRPC clients dial; the HTTP ones are URLs.
    for (const i of card.supportedInterfaces) expect(i.url).toBe(i.protocolBinding === "GRPC" ? new URL(t.url).host : t.url);
    expect(card.capabilities).toEqual({ streaming: true, pushNotifications: true, extendedAgentCard: false });
    expect(card.skills[0].id).toBe("echo");
    expect(card.defaultInputModes).toContain("text/plain");
    expect(card.defaultOutputModes).toContain("text/plain");
  });

  it("carries the v0.3 fields so that v0.3 clients can read it", async () => {
    const card = await (await fetch(cardUrl(t))).json();
    expect(card.url).toBe(t.url);
    expect(card.preferredTransport).toBe("JSONRPC");
    expect(card.protocolVersion).toBe("0.3.0");
    expect(card.additionalInterfaces).toEqual(expect.arrayContaining([{ url: t.url, transport: "JSONRPC" }, { url: new URL(t.url).host, transport: "GRPC" }]));
  });

  it("uses the configured public base URL when there is one", async () => {
    const card = await (await fetch(cardUrl(pinned))).json();
    for (const i of card.supportedInterfaces) expect(i.url).toBe(i.protocolBinding === "GRPC" ? "agents.example.org:443" : "https://agents.example.org/hub/");
  });

  it("has Cache-Control and an ETag, and answers 304 to If-None-Match (§8.6.1)", async () => {
    const first = await fetch(cardUrl(t));
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(first.headers.get("cache-control")).toMatch(/max-age=\d+/);
    const again = await fetch(cardUrl(t), { headers: { "if-none-match": etag! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    const changed = await fetch(cardUrl(t), { headers: { "if-none-match": '"something-else"' } });
    expect(changed.status).toBe(200);
  });
});
