import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { request } from "node:https";
import tls, { connect as tlsConnect } from "node:tls";
import { join } from "node:path";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { A2AService, TaskState } from "../../gen/a2a/v1/a2a_pb.js";
import { cli } from "../helpers/cli-process.js";
import { REPO_ROOT } from "../helpers/server-process.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";

/** A self-signed certificate for localhost, 127.0.0.1 and ::1 (test fixture, valid until 2126). */
const cert = readFileSync(join(REPO_ROOT, "test/fixtures/tls/localhost.crt"));
const key = readFileSync(join(REPO_ROOT, "test/fixtures/tls/localhost.key"));

let t: TestHub;
let base: string;
beforeAll(async () => {
  t = await startTestHub({ tls: { cert, key } });
  base = `https://localhost:${t.hub.port}`;
});
afterAll(() => t.stop());

/** The protocol ALPN settles on when the client offers `protocols`. */
function alpn(protocols: string[]): Promise<string | false> {
  return new Promise((resolve, reject) => {
    const s = tlsConnect({ host: "127.0.0.1", port: t.hub.port, ca: cert, servername: "localhost", ALPNProtocols: protocols }, () => {
      resolve(s.alpnProtocol ?? false);
      s.end();
    });
    s.on("error", reject);
  });
}

function httpsJson(path: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { ca: cert, method: init.method ?? "GET", headers: init.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) }));
    });
    req.on("error", reject);
    req.end(init.body);
  });
}

describe("TLS on the hub's port (--tls-cert / --tls-key)", () => {
  it("the hub's URL is https", () => {
    expect(t.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/$/);
  });

  it("ALPN picks h2 when offered and falls back to http/1.1", async () => {
    expect(await alpn(["h2", "http/1.1"])).toBe("h2");
    expect(await alpn(["http/1.1"])).toBe("http/1.1");
  });

  it("serves the card over HTTPS/1.1 with https URLs and the gRPC hostname:port", async () => {
    const r = await httpsJson("/.well-known/agent-card.json");
    expect(r.status).toBe(200);
    const urls = r.body.supportedInterfaces.map((i: any) => `${i.protocolBinding} ${i.url}`);
    expect(urls).toEqual(expect.arrayContaining([`JSONRPC https://localhost:${t.hub.port}`, `GRPC localhost:${t.hub.port}`]));
  });

  it("answers JSON-RPC over HTTPS/1.1", async () => {
    const r = await httpsJson("/", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "over tls" }] } } }),
    });
    expect(r.body.result.task.status.state).toBe("TASK_STATE_COMPLETED");
  });

  it("answers gRPC over TLS (h2 by ALPN), unary and streaming", async () => {
    const client = createClient(A2AService, createGrpcTransport({ baseUrl: base, nodeOptions: { ca: cert } }));
    const res = await client.sendMessage({ message: { messageId: crypto.randomUUID(), role: 1, parts: [{ content: { case: "text", value: "grpc tls" } }] } });
    expect(res.payload.case === "task" && res.payload.value.status?.state).toBe(TaskState.COMPLETED);
    const events = [];
    for await (const e of client.sendStreamingMessage({ message: { messageId: crypto.randomUUID(), role: 1, parts: [{ content: { case: "text", value: "stream 3" } }] } })) events.push(e);
    expect(events.filter((e) => e.payload.case === "artifactUpdate")).toHaveLength(3);
  });

  it("answers Connect over TLS on HTTP/1.1 and HTTP/2", async () => {
    for (const httpVersion of ["1.1", "2"] as const) {
      const client = createClient(A2AService, createConnectTransport({ baseUrl: base, httpVersion, nodeOptions: { ca: cert } }));
      const res = await client.sendMessage({ message: { messageId: crypto.randomUUID(), role: 1, parts: [{ content: { case: "text", value: `connect ${httpVersion}` } }] } });
      expect(res.payload.case, httpVersion).toBe("task");
    }
  });

  it("a cleartext client gets no answer but the hub stays up", async () => {
    await expect(fetch(`http://127.0.0.1:${t.hub.port}/.well-known/agent-card.json`, { signal: AbortSignal.timeout(3_000) })).rejects.toThrow();
    expect((await httpsJson("/.well-known/agent-card.json")).status).toBe(200);
  });
});

// Each CLI run starts a process: seconds each on a loaded machine.
describe("the CLI against a hub whose certificate a private CA signed", { timeout: 120_000 }, () => {
  const certFile = join(REPO_ROOT, "test/fixtures/tls/localhost.crt");
  // Changing the trusted CAs at run time came with Node 22.19; the CLI says so on an older Node.
  const runtimeCanTrust = "setDefaultCACertificates" in tls;

  it.skipIf(!runtimeCanTrust)("--cacert FILE trusts it, on JSON-RPC, REST and gRPC; without it the certificate is refused", async () => {
    for (const binding of ["jsonrpc", "rest", "grpc"]) {
      const run = await cli(["send", "--cacert", certFile, "--binding", binding, `${base}/`, "over", binding]);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe(`over ${binding}\n`);
    }
    const refused = await cli(["send", `${base}/`, "untrusted"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/certificate/i);
  });

  it("--cacert with a file that holds no certificate is a usage error naming it", async () => {
    const run = await cli(["send", "--cacert", join(REPO_ROOT, "package.json"), `${base}/`, "x"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("holds no PEM certificate");
  });
});
