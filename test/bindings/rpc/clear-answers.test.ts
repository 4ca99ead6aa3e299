import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect as h2connect } from "node:http2";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { A2AService } from "../../../gen/a2a/v1/a2a_pb.js";
import { tenantHubOptions } from "../../helpers/tenant-hub.js";
import { startTestHub, type TestHub } from "../../helpers/test-hub.js";

const RPC = "lf.a2a.v1.A2AService/GetTask";

/** One HTTP/2 request, answered status and JSON body. */
function h2(url: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const session = h2connect(url);
    session.on("error", reject);
    const req = session.request({ ":path": `/${path}`, ...headers });
    let status = 0;
    const chunks: Buffer[] = [];
    req.on("response", (h) => (status = Number(h[":status"])));
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      session.close();
      resolve({ status, body: JSON.parse(Buffer.concat(chunks).toString("utf8") || "null") });
    });
    req.end(body);
  });
}

describe("Connect requests connect-node cannot read get a Connect error body", () => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub();
  });
  afterAll(() => t.stop());

  it.each([
    ["no Content-Type", undefined, /no Content-Type/],
    ["text/plain", "text/plain", /Content-Type "text\/plain" is not served/],
    ["application/xml", "application/xml", /not served/],
  ])("HTTP/1.1 with %s: 415 and a body naming what to send", async (_what, type, why) => {
    // Bytes, not a string: fetch would label a string text/plain.
    const res = await fetch(new URL(RPC, t.url), { method: "POST", headers: type ? { "content-type": type } : {}, body: new TextEncoder().encode('{"id":"x"}') });
    expect(res.status).toBe(415);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const body = await res.json();
    expect(body.code).toBe("invalid_argument");
    expect(body.message).toMatch(why);
    expect(body.message).toContain("application/json");
    expect(body.message).toContain("application/grpc");
  });

  it("HTTP/2 with a wrong Content-Type: the same 415 body", async () => {
    const r = await h2(t.url, RPC, { ":method": "POST", "content-type": "text/plain" }, '{"id":"x"}');
    expect(r.status).toBe(415);
    expect(r.body.message).toMatch(/text\/plain.*application\/json/);
  });

  it("GET of an RPC: 405 with Allow: POST and a message", async () => {
    const res = await fetch(new URL(RPC, t.url));
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    expect((await res.json()).message).toMatch(/POST/);
  });

  it("the connection stays usable and a proper Connect call still works", async () => {
    const client = createClient(A2AService, createConnectTransport({ baseUrl: t.url, httpVersion: "1.1" }));
    await expect(client.getTask({ id: "missing" })).rejects.toMatchObject({ code: Code.NotFound });
    const ok = await fetch(new URL(RPC, t.url), { method: "POST", headers: { "content-type": "application/json; charset=utf-8" }, body: '{"id":"x"}' });
    expect(ok.status).toBe(404); // Connect's HTTP status for NOT_FOUND: the call was read and answered
  });
});

describe("a hub with several agents never guesses the agent from a missing tenant", () => {
  const tokens = { acme: "acme-choose-token", globex: "globex-choose-token" };
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub(tenantHubOptions(tokens, [{ id: "helper" }, { id: "internal", tenants: ["acme"] }]));
  });
  afterAll(() => t.stop());

  const auth = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
  const message = () => ({ messageId: crypto.randomUUID(), role: 1, parts: [{ content: { case: "text" as const, value: "hi" } }] });

  const transports = {
    grpc: () => createGrpcTransport({ baseUrl: t.url }),
    connect: () => createConnectTransport({ baseUrl: t.url, httpVersion: "1.1" }),
    "grpc-web": () => createGrpcWebTransport({ baseUrl: t.url, httpVersion: "1.1" }),
  };

  it.each(["grpc", "connect", "grpc-web"] as const)("%s: no tenant is InvalidParams that lists the agents the caller may call", async (kind) => {
    const transport = transports[kind]();
    const client = createClient(A2AService, transport);
    for (const tenant of ["", "undefined", "null"]) {
      const e = ConnectError.from(await client.sendMessage({ tenant, message: message() }, auth(tokens.globex)).catch((x) => x));
      expect(e.code, tenant).toBe(Code.InvalidArgument);
      expect(e.rawMessage).toMatch(/^tenant: /);
      expect(e.rawMessage).toContain("set tenant to the id of the agent");
      expect(e.rawMessage).toContain("Agents you may call: helper");
      // globex may not call `internal`: the list must not reveal it.
      expect(e.rawMessage).not.toContain("internal");
    }
    const acme = ConnectError.from(await client.getTask({ id: "x" }, auth(tokens.acme)).catch((x) => x));
    expect(acme.rawMessage).toContain("Agents you may call: helper, internal");
    const ok = await client.sendMessage({ tenant: "helper", message: message() }, auth(tokens.globex));
    expect(ok.payload.case).toBe("task");
  });

  it("JSON-RPC at the root: a tenant of \"undefined\" is -32602 with the same advice", async () => {
    const res = await fetch(t.url, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${tokens.acme}` },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "GetTask", params: { id: "x", tenant: "undefined" } }),
    });
    const body = await res.json();
    expect(body.id).toBe(7);
    expect(body.error.code).toBe(-32602);
    expect(body.error.message).toContain("/v1/a2a/agents/{id}");
  });

  it.each(["undefined", "null"])("REST under a /%s/ tenant prefix: 400 with the same advice", async (tenant) => {
    const res = await fetch(new URL(`${tenant}/message:send`, t.url), {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${tokens.globex}` },
      body: JSON.stringify({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "hi" }] } }),
    });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error.message).toContain(`is "${tenant}", which looks like an unset value`);
    expect(body.error.message).toContain("Agents you may call: helper");
    expect(body.error.message).not.toContain("internal");
  });
});
