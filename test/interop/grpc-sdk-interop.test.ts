import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClientFactory, DefaultAgentCardResolver, type Client } from "@a2a-js/sdk/client";
import { GrpcTransportFactory } from "@a2a-js/sdk/client/grpc";
import { TaskNotFoundError } from "@a2a-js/sdk/errors";
import { COMPLETED, sdkSend, stateOf } from "../helpers/a2a-sdk.js";
import { tenantHubOptions } from "../helpers/tenant-hub.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";

/**
 * @a2a-js/sdk 1.3.0's gRPC transport (grpc-js) dials the GRPC
 * interface's url as a gRPC target, so the card must carry `hostname:port`.
 * Each client here speaks gRPC alone, built from the card as a user would.
 */

const grpcOnly = (fetchImpl?: typeof fetch) =>
  new ClientFactory({
    transports: [new GrpcTransportFactory()],
    ...(fetchImpl ? { cardResolver: new DefaultAgentCardResolver({ fetchImpl }) } : {}),
  });

/** A fetch that sends the bearer token, for the card resolver. */
const withToken =
  (token: string): typeof fetch =>
  (url, init) =>
    fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${token}` } });

const bearer = (token: string) => ({ serviceParameters: { authorization: `Bearer ${token}` } });

/** A send, a streamed send and a read-back over one client. */
async function roundTrip(client: Client, options = {}): Promise<void> {
  expect(client.transport.protocolName).toBe("GRPC");
  const sent: any = await client.sendMessage(sdkSend("hello grpc sdk"), options);
  expect(stateOf(sent)).toBe(COMPLETED);
  expect(sent.artifacts[0].parts[0].content).toEqual({ $case: "text", value: "hello grpc sdk" });
  const events: any[] = [];
  for await (const e of client.sendMessageStream(sdkSend("stream 3"), options)) events.push(e);
  expect(events[0].payload.$case).toBe("task");
  expect(events.filter((e) => e.payload.$case === "artifactUpdate")).toHaveLength(3);
  expect(events.at(-1).payload.value.status.state).toBe(COMPLETED);
  const got: any = await client.getTask({ tenant: "", id: sent.id, historyLength: undefined } as never, options);
  expect(got.id).toBe(sent.id);
}

describe("@a2a-js/sdk GrpcTransportFactory against a hub without tenants", () => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub();
  });
  afterAll(() => t.stop());

  it("the card's GRPC interfaces (v1.0, and v0.3's a2a.v1 on the same port) are hostname:port, with no scheme", async () => {
    const card = await (await fetch(new URL(".well-known/agent-card.json", t.url))).json();
    const grpc = card.supportedInterfaces.filter((i: any) => i.protocolBinding === "GRPC");
    expect(grpc.map((i: any) => [i.protocolVersion, i.url])).toEqual([
      ["1.0", `127.0.0.1:${t.hub.port}`],
      ["0.3", `127.0.0.1:${t.hub.port}`],
    ]);
    for (const i of card.supportedInterfaces.filter((i: any) => i.protocolBinding !== "GRPC")) expect(i.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+/);
  });

  it("createFromUrl: sends, streams and reads back over gRPC", async () => {
    await roundTrip(await grpcOnly().createFromUrl(t.url));
  });

  it("createFromAgentCard: the same with a card fetched by hand", async () => {
    const card = await (await fetch(new URL(".well-known/agent-card.json", t.url))).json();
    await roundTrip(await grpcOnly().createFromAgentCard(card));
  });
});

describe("@a2a-js/sdk GrpcTransportFactory against a hub with tenants and tokens", () => {
  const tokens = { acme: "acme-grpc-token", globex: "globex-grpc-token" };
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub(tenantHubOptions(tokens, [{ id: "helper" }, { id: "internal", tenants: ["acme"] }]));
  });
  afterAll(() => t.stop());

  const cardPath = (agent: string) => `v1/a2a/agents/${agent}/agent-card.json`;

  it("the agent's GRPC interface is hostname:port and names the agent as tenant", async () => {
    const card = await (await withToken(tokens.acme)(new URL(cardPath("helper"), t.url))).json();
    expect(card.supportedInterfaces.filter((i: any) => i.protocolBinding === "GRPC")).toEqual([
      { url: `127.0.0.1:${t.hub.port}`, protocolBinding: "GRPC", protocolVersion: "1.0", tenant: "helper" },
    ]);
  });

  it("createFromUrl with the bearer in serviceParameters: the interface's tenant routes to the agent", async () => {
    const client = await grpcOnly(withToken(tokens.acme)).createFromUrl(t.url, cardPath("internal"));
    await roundTrip(client, bearer(tokens.acme));
  });

  it("createFromAgentCard with the bearer in serviceParameters", async () => {
    const card = await (await withToken(tokens.globex)(new URL(cardPath("helper"), t.url))).json();
    await roundTrip(await grpcOnly().createFromAgentCard(card), bearer(tokens.globex));
  });

  it("without the bearer, gRPC answers UNAUTHENTICATED; another tenant's task is not found", async () => {
    const card = await (await withToken(tokens.acme)(new URL(cardPath("helper"), t.url))).json();
    const client = await grpcOnly().createFromAgentCard(card);
    await expect(client.sendMessage(sdkSend("no token"))).rejects.toThrow(/UNAUTHENTICATED|16/);
    const mine: any = await client.sendMessage(sdkSend("acme's"), bearer(tokens.acme));
    await expect(client.getTask({ tenant: "", id: mine.id, historyLength: undefined } as never, bearer(tokens.globex))).rejects.toBeInstanceOf(TaskNotFoundError);
  });
});
