import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { AgentCardSchema } from "../../gen/a2a/v1/a2a_pb.js";
import { EchoAgent, echoCard } from "../../src/agents/index.js";
import type { AgentExecutor } from "../../src/execution/index.js";
import { post, rpc } from "../helpers/jsonrpc-requests.js";
import { textRequest } from "../helpers/messages.js";
import { rest, userMessage } from "../helpers/rest.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";

/*
 * §3.2.6, §3.3.4: extensions are judged once, in core, against the agent a
 * call resolves to: the run sees the listed extensions its card declares,
 * alike on every binding, and a required one left out is
 * ExtensionSupportRequired even when a `tenant` field picks an agent other
 * than the endpoint's.
 */

const seen: string[][] = [];
const recording: AgentExecutor = {
  async execute(ctx, events) {
    seen.push([...ctx.extensions]);
    await new EchoAgent().execute(ctx, events);
  },
};

function cardWith(extensions: Array<{ uri: string; required: boolean }>) {
  const { $typeName: _, capabilities, ...card } = echoCard();
  const { $typeName: __, ...caps } = capabilities!;
  return create(AgentCardSchema, { ...card, capabilities: { ...caps, extensions } });
}

let t: TestHub;
beforeAll(async () => {
  t = await startTestHub({
    agents: [
      { id: "echo", executor: recording, card: cardWith([{ uri: "urn:x:a", required: false }]) },
      { id: "strict", executor: new EchoAgent(), card: cardWith([{ uri: "urn:x:req", required: true }]) },
    ],
  });
});
afterAll(async () => {
  await t.stop();
});

const LISTED = { "A2A-Extensions": "urn:x:a, urn:not:declared" };

describe("extensions judged once, in core", () => {
  it("the run sees only the listed extensions its card declares, over gRPC, JSON-RPC and REST alike", async () => {
    seen.length = 0;
    await t.client("grpc").sendMessage({ ...textRequest("hi"), tenant: "echo" }, { headers: LISTED });
    await post(t.url, rpc("SendMessage", { tenant: "echo", message: userMessage("hi") }), LISTED);
    await rest(t.url, "POST", "/echo/message:send", { body: { message: userMessage("hi") }, headers: LISTED });
    expect(seen).toEqual([["urn:x:a"], ["urn:x:a"], ["urn:x:a"]]);
  });

  it("a required extension of the agent a tenant field picks is ExtensionSupportRequired at the root endpoint, with one message on every binding", async () => {
    const rpcAnswer = await post(t.url, rpc("GetTask", { tenant: "strict", id: "x" }));
    expect(rpcAnswer.json.error.code).toBe(-32008);
    const restAnswer = await rest(t.url, "GET", "/strict/tasks/x");
    expect(restAnswer.status).toBe(400);
    expect(restAnswer.json.error.message).toBe(rpcAnswer.json.error.message);
    const grpc = await t.client("grpc").getTask({ tenant: "strict", id: "x" }).catch((e: Error & { rawMessage?: string }) => e);
    expect((grpc as { rawMessage?: string }).rawMessage).toBe(rpcAnswer.json.error.message);
    expect(rpcAnswer.json.error.message).toContain("urn:x:req");
  });
});
