import { request } from "node:https";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { A2AService } from "../../gen/a2a/v1/a2a_pb.js";
import { hashToken } from "../../src/auth/index.js";
import { textRequest } from "../helpers/messages.js";
import { configHubOptions } from "../helpers/tenant-hub.js";
import { missingCommands, skipsWithout } from "../helpers/outside-tools.js";
import { TestCerts, type CertPair } from "../helpers/test-certs.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";

/** Mutual TLS (RFC 8705 §2): a verified client certificate names the tenant; certificates made in the test by openssl. */
const SPIFFE = "spiffe://example.org/ns/acme/sa/bot";
const skip = skipsWithout({ file: "mtls.test.ts", what: "the mutual TLS tests", missing: missingCommands(["openssl"]), packages: "openssl", requiredBy: "A2A_HUB_REQUIRE_CLIENTS" });
const certs = new TestCerts();
let hub: TestHub;
let server: CertPair;
let good: CertPair;
let otherCa: CertPair;
let expired: CertPair;
let unmapped: CertPair;

beforeAll(async () => {
  if (skip) return;
  const ca = certs.selfSigned("clients-ca", "a2a-hub test clients CA");
  const rogueCa = certs.selfSigned("rogue-ca", "some other CA");
  server = certs.selfSigned("server", "127.0.0.1", "IP:127.0.0.1");
  good = certs.signed("bot", ca, "acme-bot", { san: `URI:${SPIFFE}` });
  otherCa = certs.signed("rogue", rogueCa, "acme-bot", { san: `URI:${SPIFFE}` });
  expired = certs.signed("old", ca, "acme-bot", { san: `URI:${SPIFFE}`, expired: true });
  unmapped = certs.signed("stranger", ca, "stranger", { san: "URI:spiffe://example.org/ns/other/sa/x" });
  hub = await startTestHub(
    configHubOptions({
      tls: { cert: server.certFile, key: server.keyFile, clientCa: ca.certFile },
      auth: { mtls: { tenantFrom: "san.uri", map: { [SPIFFE]: "acme" } } },
      tenants: [{ id: "acme", tokens: [hashToken("acme-static")] }],
      agents: [{ id: "echo", kind: "echo" }],
    }),
  );
});
afterAll(async () => {
  await hub?.stop();
  certs.remove();
});

/** An HTTPS request to the hub trusting its certificate, with a client certificate or none. */
function https(path: string, client: CertPair | undefined, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  return new Promise<{ status: number; challenge?: string; json: any }>((resolve, reject) => {
    const req = request(
      new URL(path, hub.url),
      { method: init.method ?? "GET", ca: server.cert, cert: client?.cert, key: client?.key, headers: { "content-type": "application/json", ...init.headers } },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (d) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode!, challenge: res.headers["www-authenticate"] as string | undefined, json: JSON.parse(text) }));
      },
    );
    req.on("error", reject);
    req.end(init.body === undefined ? undefined : JSON.stringify(init.body));
  });
}

const send = { jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: { messageId: "m-1", role: "ROLE_USER", parts: [{ text: "hi" }] } } };

function grpcClient(client: CertPair | undefined) {
  return createClient(A2AService, createGrpcTransport({ baseUrl: hub.url, nodeOptions: { ca: server.cert, cert: client?.cert, key: client?.key } }));
}

describe.skipIf(skip)("mutual TLS", () => {
  it("a certificate of the client CA whose SAN URI (a SPIFFE ID) is mapped is accepted as its tenant on REST, JSON-RPC and gRPC", async () => {
    const rest = await https("/message:send", good, { method: "POST", body: { message: send.params.message } });
    expect(rest.status, JSON.stringify(rest.json)).toBe(200);
    const rpc = await https("/", good, { method: "POST", body: { ...send, params: { message: { ...send.params.message, messageId: "m-2" } } } });
    expect(rpc.json.result.task.id).toBeTruthy();
    const answer = await grpcClient(good).sendMessage(textRequest("over grpc"));
    expect(answer.payload.case).toBe("task");
    // The same tenant as its static token: it sees the task the certificate made.
    const seen = await https(`/tasks/${rest.json.task.id}`, undefined, { headers: { authorization: "Bearer acme-static" } });
    expect(seen.status).toBe(200);
  });

  it.each([
    ["a certificate of another CA", () => otherCa, /not accepted/],
    ["an expired certificate", () => expired, /CERT_HAS_EXPIRED|expired/i],
    ["a certificate whose SAN names no configured tenant", () => unmapped, /names no configured tenant/],
  ])("%s is refused with 401 (reason certificate) on REST and UNAUTHENTICATED on gRPC", async (_why, cert, description) => {
    const rest = await https("/message:send", cert(), { method: "POST", body: { message: send.params.message } });
    expect(rest.status).toBe(401);
    expect(rest.challenge).toMatch(/^Bearer realm="a2a-hub", error="invalid_token"/);
    expect(rest.challenge).toMatch(description);
    const err = await grpcClient(cert()).sendMessage(textRequest("x")).then(() => undefined, (e: unknown) => ConnectError.from(e));
    expect(err?.code).toBe(Code.Unauthenticated);
  });

  it("no certificate and no token is 401; no certificate with a valid bearer token is accepted (side by side)", async () => {
    const none = await https("/message:send", undefined, { method: "POST", body: { message: send.params.message } });
    expect(none.status).toBe(401);
    expect(none.challenge).toBe('Bearer realm="a2a-hub"');
    const err = await grpcClient(undefined).sendMessage(textRequest("x")).then(() => undefined, (e: unknown) => ConnectError.from(e));
    expect(err?.code).toBe(Code.Unauthenticated);
    const withToken = await https("/message:send", undefined, { method: "POST", body: { message: send.params.message }, headers: { authorization: "Bearer acme-static" } });
    expect(withToken.status).toBe(200);
    const connect = createClient(A2AService, createConnectTransport({ baseUrl: hub.url, httpVersion: "2", nodeOptions: { ca: server.cert } }));
    expect((await connect.sendMessage(textRequest("token over connect"), { headers: { authorization: "Bearer acme-static" } })).payload.case).toBe("task");
  });

  it("the card declares mutual TLS beside the bearer scheme", async () => {
    const card = await https("/.well-known/agent-card.json", undefined, { headers: { "a2a-version": "1.0" } });
    expect(card.json.securitySchemes.mtls).toEqual({ mtlsSecurityScheme: { description: "A client certificate issued by the hub's client CA" } });
    expect(Object.keys(card.json.securitySchemes).sort()).toEqual(["bearer", "mtls"]);
  });
});
