import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromJson } from "@bufbuild/protobuf";
import { AgentCardSchema } from "../../gen/a2a/v1/a2a_pb.js";
import { EchoAgent, echoCard } from "../../src/agents/index.js";
import { rest, userMessage } from "../helpers/rest.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";

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
/** The URL an HTTP interface of the hub's root has: no trailing '/'. */
const httpUrl = (h: TestHub) => h.url.replace(/\/$/, "");
const V03_FIELDS = ["url", "preferredTransport", "protocolVersion", "additionalInterfaces"];

describe("GET /.well-known/agent-card.json (§8.2)", () => {
  it("lists every binding served, with absolute URLs from the request's Host", async () => {
    const res = await fetch(cardUrl(t));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const card = await res.json();
    const pairs = card.supportedInterfaces.map((i: any) => `${i.protocolBinding} ${i.protocolVersion}`);
    expect(pairs).toEqual(["JSONRPC 1.0", "JSONRPC 0.3", "GRPC 1.0", "HTTP+JSON 1.0", "GRPC 0.3", "HTTP+JSON 0.3"]);
    // The GRPC interface is the hostname:port gRPC clients dial; the HTTP ones are URLs without a trailing '/'.
    for (const i of card.supportedInterfaces) expect(i.url).toBe(i.protocolBinding === "GRPC" ? new URL(t.url).host : httpUrl(t));
    expect(card.capabilities).toEqual({
      streaming: true,
      pushNotifications: true,
      extendedAgentCard: false,
      // §4.6: the hub's own extension, offered by every agent that takes push configs.
      extensions: [expect.objectContaining({ uri: "https://a2a-hub.dev/extensions/push-delivery-state/v1" })],
    });
    expect(card.skills[0].id).toBe("echo");
    expect(card.defaultInputModes).toContain("text/plain");
    expect(card.defaultOutputModes).toContain("text/plain");
  });

  it("carries the v0.3 fields so that v0.3 clients can read it: the three v0.3 bindings, once each", async () => {
    const card = await (await fetch(cardUrl(t))).json();
    expect(card.url).toBe(httpUrl(t));
    expect(card.preferredTransport).toBe("JSONRPC");
    expect(card.protocolVersion).toBe("0.3.0");
    expect(card.additionalInterfaces).toEqual([
      { url: httpUrl(t), transport: "JSONRPC" },
      { url: new URL(t.url).host, transport: "GRPC" },
      { url: httpUrl(t), transport: "HTTP+JSON" },
    ]);
  });

  it("an agent's own v0.3 card lists its v0.3 JSON-RPC and HTTP+JSON endpoints (v0.3 gRPC cannot name an agent)", async () => {
    const card = await (await fetch(new URL("v1/a2a/agents/echo/agent-card.json", t.url))).json();
    const base = `${httpUrl(t)}/v1/a2a/agents/echo`;
    expect(card.url).toBe(base);
    expect(card.additionalInterfaces).toEqual([
      { url: base, transport: "JSONRPC" },
      { url: base, transport: "HTTP+JSON" },
    ]);
  });

  it("uses the configured public base URL when there is one", async () => {
    const card = await (await fetch(cardUrl(pinned))).json();
    for (const i of card.supportedInterfaces) expect(i.url).toBe(i.protocolBinding === "GRPC" ? "agents.example.org:443" : "https://agents.example.org/hub");
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

describe("the card's form follows A2A-Version (§3.6.2, §8)", () => {
  it.each(["1.0", "1", "1.0.1"])("A2A-Version %s gets exactly the v1.0 AgentCard: no v0.3 field, and it reads strictly as ProtoJSON", async (version) => {
    const res = await fetch(cardUrl(t), { headers: { "A2A-Version": version } });
    const card = await res.json();
    for (const field of V03_FIELDS) expect(card, field).not.toHaveProperty(field);
    // fromJson refuses unknown fields: the document is a v1.0 AgentCard and nothing more.
    expect(fromJson(AgentCardSchema, card).supportedInterfaces.length).toBeGreaterThan(0);
  });

  it.each([undefined, "0.3", "0.3.0"])("A2A-Version %s keeps the v0.3 fields beside supportedInterfaces", async (version) => {
    const res = await fetch(cardUrl(t), { headers: version === undefined ? {} : { "A2A-Version": version } });
    const card = await res.json();
    for (const field of V03_FIELDS) expect(card, field).toHaveProperty(field);
    expect(card.supportedInterfaces.length).toBeGreaterThan(0);
  });

  it("each form has its own ETag, both say Vary: A2A-Version, and a form's ETag does not revalidate the other", async () => {
    const v03 = await fetch(cardUrl(t));
    const v1 = await fetch(cardUrl(t), { headers: { "A2A-Version": "1.0" } });
    expect(v03.headers.get("vary")).toContain("A2A-Version");
    expect(v1.headers.get("vary")).toContain("A2A-Version");
    expect(v1.headers.get("etag")).not.toBe(v03.headers.get("etag"));
    expect((await fetch(cardUrl(t), { headers: { "A2A-Version": "1.0", "if-none-match": v1.headers.get("etag")! } })).status).toBe(304);
    expect((await fetch(cardUrl(t), { headers: { "A2A-Version": "1.0", "if-none-match": v03.headers.get("etag")! } })).status).toBe(200);
  });

  it("an agent's own card under /v1/a2a/agents/{id} follows the same rule", async () => {
    const url = new URL("v1/a2a/agents/echo/agent-card.json", t.url);
    const v1 = await (await fetch(url, { headers: { "A2A-Version": "1.0" } })).json();
    for (const field of V03_FIELDS) expect(v1).not.toHaveProperty(field);
    const v03 = await (await fetch(url)).json();
    expect(v03.url).toBe(`${httpUrl(t)}/v1/a2a/agents/echo`);
  });
});

describe("Last-Modified on every card response (§8.6, RFC 9110 §13.1.3)", () => {
  it("is sent beside the ETag, and If-Modified-Since at or after it is 304, before it 200", async () => {
    const first = await fetch(cardUrl(t));
    const lastModified = first.headers.get("last-modified");
    expect(lastModified).toMatch(/GMT$/);
    expect(Date.parse(lastModified!)).toBeLessThanOrEqual(Date.now());
    expect((await fetch(cardUrl(t), { headers: { "if-modified-since": lastModified! } })).status).toBe(304);
    expect((await fetch(cardUrl(t), { headers: { "if-modified-since": new Date(Date.now() + 60_000).toUTCString() } })).status).toBe(304);
    const older = await fetch(cardUrl(t), { headers: { "if-modified-since": new Date(Date.parse(lastModified!) - 60_000).toUTCString() } });
    expect(older.status).toBe(200);
    expect(older.headers.get("last-modified")).toBe(lastModified);
    // If-None-Match wins over If-Modified-Since (RFC 9110 §13.2.2).
    expect((await fetch(cardUrl(t), { headers: { "if-modified-since": lastModified!, "if-none-match": '"other"' } })).status).toBe(200);
  });

  it("is on an agent's own card too", async () => {
    const res = await fetch(new URL("v1/a2a/agents/echo/agent-card.json", t.url), { headers: { "A2A-Version": "1.0" } });
    expect(res.headers.get("last-modified")).toMatch(/GMT$/);
  });
});

describe("the well-known document of a several-agent hub (it names no agent)", () => {
  let several: TestHub;
  beforeAll(async () => {
    several = await startTestHub({
      agents: [
        { id: "alpha", executor: new EchoAgent(), card: echoCard() },
        { id: "beta", executor: new EchoAgent(), card: echoCard() },
      ],
    });
  });
  afterAll(async () => {
    await several?.stop();
  });

  it("has Last-Modified and an ETag like every card response, and answers 304 to either validator", async () => {
    const first = await fetch(cardUrl(several));
    expect((await first.json()).agentCardUrlTemplate).toContain("/v1/a2a/agents/{agentId}/agent-card.json");
    const lastModified = first.headers.get("last-modified");
    const etag = first.headers.get("etag");
    expect(lastModified).toMatch(/GMT$/);
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect((await fetch(cardUrl(several), { headers: { "if-modified-since": lastModified! } })).status).toBe(304);
    expect((await fetch(cardUrl(several), { headers: { "if-none-match": etag! } })).status).toBe(304);
    const older = await fetch(cardUrl(several), { headers: { "if-modified-since": new Date(Date.parse(lastModified!) - 60_000).toUTCString() } });
    expect(older.status).toBe(200);
    // An agent's own card on that hub has the same Last-Modified: both come from the configuration.
    const own = await fetch(new URL("v1/a2a/agents/alpha/agent-card.json", several.url));
    expect(own.headers.get("last-modified")).toBe(lastModified);
  });
});

describe("HTTP interface URLs and paths joined onto them", () => {
  it("no HTTP interface URL of any card ends in '/'", async () => {
    for (const url of [cardUrl(t), new URL("v1/a2a/agents/echo/agent-card.json", t.url), cardUrl(pinned)]) {
      const card = await (await fetch(url, { headers: { "A2A-Version": "1.0" } })).json();
      for (const i of card.supportedInterfaces.filter((i: any) => i.protocolBinding !== "GRPC")) expect(i.url, `${url}: ${i.protocolBinding}`).not.toMatch(/\/$/);
    }
  });

  it.each(["", "/v1/a2a/agents/echo"])("the REST router at '%s' answers //message:send (a base URL joined with a leading-slash path) as /message:send", async (base) => {
    const joined = `${httpUrl(t)}${base}/`;
    const r = await rest(joined, "POST", "//message:send", { body: { message: userMessage("joined by strings") } });
    expect(r.status, r.text).toBe(200);
    expect(r.json.task.status.state).toBe("TASK_STATE_COMPLETED");
    const got = await rest(joined, "GET", `//tasks/${r.json.task.id}`);
    expect(got.json.id).toBe(r.json.task.id);
  });
});
