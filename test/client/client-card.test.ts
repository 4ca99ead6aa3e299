import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import { createServer as createH2Server, type Http2Server } from "node:http2";
import type { AddressInfo } from "node:net";
import { create } from "@bufbuild/protobuf";
import { AgentCardSchema, TaskState, type StreamResponse } from "../../gen/a2a/v1/a2a_pb.js";
import { A2AClient, cardUrlOf, cardUrlsOf, chooseInterface, clientFailureOf, parseAgentCard } from "../../src/client/index.js";
import { A2AError } from "../../src/core/index.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";
import { rejection } from "../helpers/errors.js";

/** Card resolution, interface choice, and failures of the exchange. */

const card = (interfaces: Array<[string, string, string?]>) =>
  create(AgentCardSchema, {
    name: "x",
    supportedInterfaces: interfaces.map(([protocolBinding, protocolVersion, url]) => ({ protocolBinding, protocolVersion, url: url ?? `http://h/${protocolBinding}/${protocolVersion}` })),
  });

describe("interface choice", () => {
  it("prefers JSON-RPC, then HTTP+JSON, then gRPC at the same version, whatever the card's order", () => {
    expect(chooseInterface(card([["GRPC", "1.0"], ["HTTP+JSON", "1.0"], ["JSONRPC", "1.0"]])).binding).toBe("jsonrpc");
    expect(chooseInterface(card([["GRPC", "1.0"], ["HTTP+JSON", "1.0"]])).binding).toBe("rest");
  });

  it("prefers v1.0 over v0.3 before the binding order", () => {
    expect(chooseInterface(card([["JSONRPC", "0.3"], ["GRPC", "1.0"]]))).toMatchObject({ binding: "grpc", version: "1.0" });
    expect(chooseInterface(card([["JSONRPC", "0.3.0"]]))).toMatchObject({ binding: "jsonrpc", version: "0.3" });
    expect(chooseInterface(card([["JSONRPC", "1.0.1"]]))).toMatchObject({ version: "1.0" });
  });

  it("follows the allowed bindings and their order, then the card's order", () => {
    expect(chooseInterface(card([["JSONRPC", "1.0"], ["GRPC", "1.0"]]), ["grpc", "jsonrpc"]).binding).toBe("grpc");
    const twice = card([["JSONRPC", "1.0", "http://first/"], ["JSONRPC", "1.0", "http://second/"]]);
    expect(chooseInterface(twice).url).toBe("http://first/");
  });

  it("carries the interface's tenant (§8.3.2)", () => {
    const c = card([["GRPC", "1.0"]]);
    c.supportedInterfaces[0]!.tenant = "acme";
    expect(chooseInterface(c).tenant).toBe("acme");
  });

  it("refuses a card with nothing it speaks, naming what was offered", () => {
    const e = (() => {
      try {
        chooseInterface(card([["GRPC", "0.3"], ["HTTP+JSON", "0.3"]]));
      } catch (err) {
        return err as A2AError;
      }
    })();
    expect(e?.a2a).toBe("VersionNotSupported");
    expect(e?.message).toContain("GRPC 0.3");
    expect(() => chooseInterface(card([["JSONRPC", "1.0"]]), ["grpc"])).toThrow(/offers JSONRPC 1.0/);
    expect(() => chooseInterface(card([["SOAP", "1.0"]]))).toThrow(A2AError);
  });
});

describe("agent card documents", () => {
  it("fetches the well-known card under a base URL, or the URL itself when it names a .json document", () => {
    expect(cardUrlOf("http://h:1/")).toBe("http://h:1/.well-known/agent-card.json");
    expect(cardUrlOf("http://h:1")).toBe("http://h:1/.well-known/agent-card.json");
    expect(cardUrlOf("http://h:1/agents/x")).toBe("http://h:1/agents/x/.well-known/agent-card.json");
    expect(cardUrlOf("http://h:1/cards/weather.json")).toBe("http://h:1/cards/weather.json");
  });

  it("finds an agent's card under its base path, and explains a multi-agent discovery document", async () => {
    const card = { name: "one", description: "d", version: "1", supportedInterfaces: [{ url: "http://x/rpc", protocolBinding: "JSONRPC", protocolVersion: "1.0" }] };
    const server = createServer((req, res) => {
      const body =
        req.url === "/agents/one/agent-card.json"
          ? card
          : req.url === "/.well-known/agent-card.json"
            ? { name: "hub", agentCardUrlTemplate: "http://h/agents/{agentId}/agent-card.json" }
            : undefined;
      res.writeHead(body ? 200 : 404, { "content-type": "application/json" }).end(JSON.stringify(body ?? { error: { code: 404, message: "no" } }));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect(cardUrlsOf(`${base}/agents/one/`)).toEqual([`${base}/agents/one/.well-known/agent-card.json`, `${base}/agents/one/agent-card.json`]);
      const c = await A2AClient.connect(`${base}/agents/one`);
      expect(c.card.name).toBe("one");
      const e = await rejection(A2AClient.connect(base));
      expect(e.message).toBe("this server hosts several agents; use the URL of one agent's card: http://h/agents/{agentId}/agent-card.json");
      expect(clientFailureOf(await rejection(A2AClient.connect(`${base}/agents/two`)))).toBe("HTTP_STATUS");
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it("reads a v0.3 card through its url, preferredTransport and additionalInterfaces", () => {
    const c = parseAgentCard({
      name: "old",
      description: "a v0.3 agent",
      protocolVersion: "0.3.0",
      url: "http://old/rpc",
      preferredTransport: "JSONRPC",
      additionalInterfaces: [{ url: "http://old/grpc", transport: "GRPC" }],
      capabilities: { streaming: true },
      version: "1",
      skills: [],
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
    });
    expect(c.supportedInterfaces.map((i) => [i.protocolBinding, i.url, i.protocolVersion])).toEqual([
      ["JSONRPC", "http://old/rpc", "0.3"],
      ["GRPC", "http://old/grpc", "0.3"],
    ]);
    // v0.3 gRPC is a different service: only the v0.3 JSON-RPC interface is usable.
    expect(chooseInterface(c)).toMatchObject({ binding: "jsonrpc", version: "0.3", url: "http://old/rpc" });
  });

  it("refuses a card that is not a card as InvalidAgentResponse", () => {
    expect(() => parseAgentCard([1, 2])).toThrow(/not a JSON object/);
    try {
      parseAgentCard({ supportedInterfaces: [{ url: 5 }] });
    } catch (e) {
      expect((e as A2AError).a2a).toBe("InvalidAgentResponse");
    }
  });
});

describe("failures of the exchange", () => {
  let silent: Server;
  let silentUrl: string;
  let grpc: Http2Server;
  let grpcUrl: string;
  const grpcHeaders: Array<Record<string, unknown>> = [];
  let t: TestHub;
  beforeAll(async () => {
    // Accepts requests and never answers.
    silent = createServer(() => {});
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`;
    // A gRPC endpoint that records the request metadata and answers NOT_FOUND without details.
    grpc = createH2Server();
    grpc.on("stream", (stream, headers) => {
      grpcHeaders.push({ ...headers });
      stream.respond({ ":status": 200, "content-type": "application/grpc", "grpc-status": "5", "grpc-message": "no such task" }, { endStream: true });
    });
    await new Promise<void>((r) => grpc.listen(0, "127.0.0.1", r));
    grpcUrl = `http://127.0.0.1:${(grpc.address() as AddressInfo).port}/`;
    t = await startTestHub();
  });
  afterAll(async () => {
    silent.closeAllConnections();
    await new Promise((r) => silent.close(r));
    await new Promise((r) => grpc.close(r));
    await t?.stop();
  });

  it("a card fetch that gets no answer ends DEADLINE_EXCEEDED at the timeout", async () => {
    const started = Date.now();
    const e = await rejection(A2AClient.connect(silentUrl, { timeoutMs: 300 }));
    expect(clientFailureOf(e)).toBe("DEADLINE_EXCEEDED");
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("a call that gets no answer ends DEADLINE_EXCEEDED, a closed port UNAVAILABLE", async () => {
    const c = A2AClient.fromCard(card([["JSONRPC", "1.0", silentUrl]]), { timeoutMs: 300 });
    expect(clientFailureOf(await rejection(c.get("t")))).toBe("DEADLINE_EXCEEDED");
    expect(clientFailureOf(await rejection(c.stream({ message: { parts: [{ content: { case: "text", value: "x" } }] } }).next()))).toBe("DEADLINE_EXCEEDED");
    const closed = A2AClient.fromCard(card([["HTTP+JSON", "1.0", "http://127.0.0.1:9/"]]));
    expect(clientFailureOf(await rejection(closed.get("t")))).toBe("UNAVAILABLE");
  });

  it("the caller's abort ends a call as CANCELED", async () => {
    const c = A2AClient.fromCard(card([["JSONRPC", "1.0", silentUrl]]), { timeoutMs: 10_000 });
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 100);
    expect(clientFailureOf(await rejection(c.get("t", { signal: abort.signal })))).toBe("CANCELED");
  });

  it("a stream's deadline stops once it has started", async () => {
    const c = await A2AClient.connect(t.url, { timeoutMs: 300 });
    const events: StreamResponse[] = [];
    for await (const e of c.stream({ message: { parts: [{ content: { case: "text", value: "slow 800" } }] } })) events.push(e);
    const last = events.at(-1)!;
    expect(last.payload.case === "statusUpdate" && last.payload.value.status?.state).toBe(TaskState.COMPLETED);
    c.close();
  });

  it("gRPC carries A2A-Version, the token and the interface's tenant, and its status reads back through the table", async () => {
    const c = card([["GRPC", "1.0", grpcUrl]]);
    c.supportedInterfaces[0]!.tenant = "acme";
    const client = A2AClient.fromCard(c, { token: "g-token", timeoutMs: 5_000 });
    const e = await rejection(client.get("t-1"));
    expect(e.a2a).toBe("TaskNotFound");
    expect(e.message).toBe("no such task");
    expect(grpcHeaders[0]).toMatchObject({ ":path": "/lf.a2a.v1.A2AService/GetTask", "a2a-version": "1.0", authorization: "Bearer g-token" });
    client.close();
  });
});
