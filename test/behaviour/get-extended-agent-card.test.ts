import { afterAll, describe, expect, it } from "vitest";
import { Code } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import { AgentCardSchema } from "../../gen/a2a/v1/a2a_pb.js";
import { EchoAgent, echoCard } from "../../src/agents/index.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";
import { CONNECT_NODE_BINDINGS } from "../helpers/hub-clients.js";
import { expectA2AError } from "../helpers/errors.js";

const hubs: TestHub[] = [];
afterAll(async () => {
  for (const h of hubs) await h.stop();
});

function declaring(extended: boolean) {
  const card = echoCard();
  card.capabilities!.extendedAgentCard = extended;
  return card;
}

describe.each(CONNECT_NODE_BINDINGS)("GetExtendedAgentCard over %s (§3.1.11)", (transport) => {
  it("is UnsupportedOperation when the card does not declare it", async () => {
    const t = await startTestHub();
    hubs.push(t);
    await expectA2AError(() => t.client(transport).getExtendedAgentCard({}), Code.FailedPrecondition, "UNSUPPORTED_OPERATION");
  });

  it("is ExtendedAgentCardNotConfigured when declared but absent", async () => {
    const t = await startTestHub({ agents: [{ id: "echo", executor: new EchoAgent(), card: declaring(true) }] });
    hubs.push(t);
    await expectA2AError(() => t.client(transport).getExtendedAgentCard({}), Code.FailedPrecondition, "EXTENDED_AGENT_CARD_NOT_CONFIGURED");
  });

  it("returns the configured extended card", async () => {
    const extendedCard = create(AgentCardSchema, { ...declaring(true), name: "echo, extended" });
    const t = await startTestHub({ agents: [{ id: "echo", executor: new EchoAgent(), card: declaring(true), extendedCard }] });
    hubs.push(t);
    expect((await t.client(transport).getExtendedAgentCard({})).name).toBe("echo, extended");
  });
});
