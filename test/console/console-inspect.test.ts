import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildConfig, hubOptionsFromConfig } from "../../src/server/index.js";
import { startSdkAgent, type SdkAgent } from "../fixtures/sdk-agent.js";
import { tenantHubOptions } from "../helpers/tenant-hub.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";

/** One line of the inspector's NDJSON answer. */
type Line = Record<string, any>;

async function inspect(hub: TestHub, path: "card" | "call", body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; lines: Line[] }> {
  const res = await fetch(`${hub.url}console/api/${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, lines: res.ok ? text.trim().split("\n").map((l) => JSON.parse(l)) : [JSON.parse(text)] };
}

const TOKEN = "agent-token-0123456789";

describe("the console's inspector of agents by URL", () => {
  let open: TestHub;
  let guarded: TestHub;
  let tenants: TestHub;
  let other: TestHub;
  let sdk: SdkAgent;

  beforeAll(async () => {
    // The agents inspected are on loopback: this hub allows it, as an operator would for a lab.
    open = await startTestHub({ push: { allowCidrs: ["127.0.0.0/8"] } });
    guarded = await startTestHub();
    tenants = await startTestHub({ ...tenantHubOptions({ alice: "alice-token" }, [{ id: "echo" }]), push: { allowPrivateNetworks: true } });
    other = await startTestHub(tenantHubOptions({ bob: TOKEN }, [{ id: "echo" }]));
    sdk = await startSdkAgent({ token: TOKEN });
  });
  afterAll(async () => {
    await Promise.all([open?.stop(), guarded?.stop(), tenants?.stop(), other?.stop(), sdk?.stop()]);
  });

  it("refuses a loopback agent by default, through the push webhook guard, and says why", async () => {
    const { status, lines } = await inspect(guarded, "card", { url: sdk.url });
    expect(status).toBe(200);
    const error = lines.find((l) => l.error)?.error;
    expect(error.message).toMatch(/refused address: 127\.0\.0\.1 is in a private, loopback/);
    expect(lines.find((l) => l.exchange)?.exchange.error).toMatch(/refused address/);
    expect(lines.some((l) => l.exchange?.status)).toBe(false);
    // Counted with the hub's other refusals.
    const metrics = await (await fetch(`${guarded.url}metrics`)).text();
    expect(metrics).toMatch(/a2a_refusals_total\{reason="console\.inspect\.address"\} [1-9]/);
  });

  it("refuses a name that resolves to loopback at connect time too", async () => {
    const { lines } = await inspect(guarded, "card", { url: sdk.url.replace("127.0.0.1", "localhost") });
    expect(lines.find((l) => l.error)?.error.message).toMatch(/refused address/);
  });

  it("on a hub with tenants, answers only a caller with a valid token", async () => {
    expect((await inspect(tenants, "card", { url: sdk.url })).status).toBe(401);
    expect((await inspect(tenants, "card", { url: sdk.url }, { authorization: "Bearer wrong" })).status).toBe(401);
    const ok = await inspect(tenants, "card", { url: sdk.url }, { authorization: "Bearer alice-token" });
    expect(ok.lines.find((l) => l.card)?.card.card.name).toBe("sdk test agent");
  });

  it("reads an SDK agent's card and talks to it over JSON-RPC and REST with its token, every exchange reported with credentials masked", async () => {
    const { lines } = await inspect(open, "card", { url: sdk.url });
    const card = lines.find((l) => l.card)!.card;
    expect(card.version).toBe("1.0");
    expect(card.signature.state).toBe("unsigned");
    const ex = lines.find((l) => l.exchange?.status)!.exchange;
    expect(ex).toMatchObject({ method: "GET", status: 200 });
    expect(ex.url).toBe(`${sdk.url}.well-known/agent-card.json`);
    expect(typeof ex.headMs).toBe("number");
    for (const [i, iface] of (card.card.supportedInterfaces as any[]).entries()) {
      for (const operation of ["send", "stream"] as const) {
        const request = { message: { messageId: `m-${i}-${operation}`, role: "ROLE_USER", parts: [{ text: `hello ${iface.protocolBinding}` }] } };
        const call = await inspect(open, "call", { url: sdk.url, card: card.raw, interfaceIndex: i, token: TOKEN, operation, request });
        expect(call.lines.find((l) => l.error), JSON.stringify(call.lines)).toBeUndefined();
        const answers = operation === "send" ? [call.lines.find((l) => l.result)!.result] : call.lines.filter((l) => l.event).map((l) => l.event);
        expect(answers.length, JSON.stringify(call.lines)).toBeGreaterThan(0);
        const exchanges = call.lines.filter((l) => l.exchange).map((l) => l.exchange);
        const done = exchanges[exchanges.length - 1];
        expect(done.requestHeaders.authorization).toBe("Bearer •••• (22 chars)");
        expect(JSON.stringify(call.lines)).not.toContain(TOKEN);
        expect(done.status).toBe(200);
        expect(typeof done.totalMs).toBe("number");
        if (operation === "stream") expect(done.responseHeaders["content-type"]).toContain("text/event-stream");
      }
    }
    expect(sdk.received.map((r) => r.text)).toContain("hello HTTP+JSON");
  });

  it("talks to a second hub over each binding its card offers, gRPC included, with status and trailers for gRPC", async () => {
    const { lines } = await inspect(open, "card", { url: other.url, token: TOKEN });
    const card = lines.find((l) => l.card, JSON.stringify(lines))!.card;
    const bindings = new Set<string>();
    for (const [i, iface] of (card.card.supportedInterfaces as any[]).entries()) {
      bindings.add(iface.protocolBinding);
      const request = { message: { messageId: `h-${i}`, role: "ROLE_USER", parts: [{ text: "hello hub" }] } };
      const call = await inspect(open, "call", { url: other.url, card: card.raw, interfaceIndex: i, token: TOKEN, operation: "stream", request });
      if (iface.protocolBinding !== "JSONRPC" && iface.protocolVersion === "0.3") {
        // The hub's client speaks v0.3 over JSON-RPC only, and says so rather than trying.
        expect(call.lines.find((l) => l.error)?.error.name).toBe("VersionNotSupported");
        continue;
      }
      expect(call.lines.find((l) => l.error), `${iface.protocolBinding} ${JSON.stringify(call.lines)}`).toBeUndefined();
      const last = call.lines.filter((l) => l.event).pop()!.event;
      expect(JSON.stringify(last)).toContain("TASK_STATE_COMPLETED");
      const exchanges = call.lines.filter((l) => l.exchange).map((l) => l.exchange);
      const done = exchanges[exchanges.length - 1];
      if (iface.protocolBinding === "GRPC") {
        expect(done.grpcStatus).toBe("OK");
        expect(done.trailers).toBeDefined();
      } else {
        expect(done.sseIds?.length ?? 0, JSON.stringify(exchanges)).toBeGreaterThan(0);
      }
    }
    expect([...bindings].sort()).toEqual(["GRPC", "HTTP+JSON", "JSONRPC"]);
    // Without the token the second hub refuses, and the inspector says so.
    const refused = await inspect(open, "call", { url: other.url, card: card.raw, interfaceIndex: 0, operation: "send", request: { message: { messageId: "x", role: "ROLE_USER", parts: [{ text: "hi" }] } } });
    expect(refused.lines.find((l) => l.error)?.error.message).toMatch(/unauth|401|token/i);
  });

  it("verifies a signed card with the key its jku names, says so, and reports a tampered card as failed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "a2a-hub-inspect-"));
    writeFileSync(join(dir, "es256.pem"), generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ type: "pkcs8", format: "pem" }));
    const config = buildConfig({ file: "inline", lineOf: () => undefined, data: { agents: [{ id: "echo", kind: "echo" }], cards: { signing: [{ key: join(dir, "es256.pem"), kid: "k1", alg: "ES256" }], jwksPath: "/keys/jwks.json" } } }, {});
    const { dataDir: _d, ...options } = hubOptionsFromConfig(config);
    const signed = await startTestHub(options);
    let tamperer: Server | undefined;
    try {
      const good = (await inspect(open, "card", { url: signed.url })).lines.find((l) => l.card)!.card;
      expect(good.signature.state).toBe("verified");
      expect(good.signature.detail).toContain(`${signed.url}keys/jwks.json`);
      expect(good.signature.detail).toContain("does not say who signed it");
      const trusted = (await inspect(open, "card", { url: signed.url, jwksUrl: `${signed.url}keys/jwks.json` })).lines.find((l) => l.card)!.card;
      expect(trusted.signature.detail).toContain("the JWKS URL you trust");
      // The same card with one word changed, served elsewhere.
      const doc = { ...(good.raw as Record<string, unknown>), description: "changed after signing" };
      tamperer = createServer((_, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(doc))).listen(0, "127.0.0.1");
      await new Promise((r) => tamperer!.once("listening", r));
      const bad = (await inspect(open, "card", { url: `http://127.0.0.1:${(tamperer.address() as AddressInfo).port}/card.json` })).lines.find((l) => l.card)!.card;
      expect(bad.signature.state).toBe("failed");
      expect(bad.signature.detail).toContain("does not match the card");
    } finally {
      tamperer?.close();
      await signed.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads a v0.3 card as served and as the v1.0 card the client uses", async () => {
    const v03 = { name: "legacy", description: "a v0.3 agent", url: "http://127.0.0.1:1/rpc", version: "1", protocolVersion: "0.3.0", preferredTransport: "JSONRPC", capabilities: {}, defaultInputModes: ["text/plain"], defaultOutputModes: ["text/plain"], skills: [] };
    const server = createServer((_, res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(v03))).listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    try {
      const card = (await inspect(open, "card", { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` })).lines.find((l) => l.card)!.card;
      expect(card.version).toBe("0.3");
      expect(card.raw).toEqual(v03);
      expect(card.card.supportedInterfaces[0]).toMatchObject({ url: "http://127.0.0.1:1/rpc", protocolBinding: "JSONRPC", protocolVersion: "0.3" });
    } finally {
      server.close();
    }
  });
});
