import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { AgentCardSchema, TaskState, type StreamResponse } from "../../gen/a2a/v1/a2a_pb.js";
import { EchoAgent, echoCard } from "../../src/agents/index.js";
import { A2AClient, streamEventId, type BindingName } from "../../src/client/index.js";
import type { A2AErrorName } from "../../src/protocol/index.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";
import { rejection } from "../helpers/errors.js";
import { clientText as text, collect } from "../helpers/messages.js";

/**
 * The client's push-config calls (§3.1.7–§3.1.10), GetExtendedAgentCard
 * (§3.1.11) and SSE resumption, each against a real hub over every binding
 * the client speaks.
 */

const BINDINGS: readonly BindingName[] = ["jsonrpc", "rest", "grpc"];
let pushHub: TestHub;
let plainHub: TestHub;
let extendedHub: TestHub;
beforeAll(async () => {
  const declaring = () => {
    const card = echoCard({ pushNotifications: true });
    card.capabilities!.extendedAgentCard = true;
    return card;
  };
  const extendedCard = create(AgentCardSchema, { ...declaring(), name: "echo, extended" });
  [pushHub, plainHub, extendedHub] = await Promise.all([
    startTestHub({ agents: [{ id: "echo", executor: new EchoAgent(), card: declaring() }] }),
    startTestHub({ agents: [{ id: "echo", executor: new EchoAgent(), card: echoCard({ pushNotifications: false }) }] }),
    startTestHub({ agents: [{ id: "echo", executor: new EchoAgent(), card: declaring(), extendedCard }] }),
  ]);
});
afterAll(async () => {
  await Promise.all([pushHub?.stop(), plainHub?.stop(), extendedHub?.stop()]);
});

async function clientOf(hub: TestHub, binding: BindingName): Promise<A2AClient> {
  return A2AClient.connect(hub.url, { bindings: [binding], timeoutMs: 20_000 });
}

async function refused(call: () => Promise<unknown>, name: A2AErrorName): Promise<void> {
  const e = await rejection(call());
  expect(e.a2a, e.message).toBe(name);
}

async function taskIdOf(client: A2AClient, words: string): Promise<string> {
  const answer = await client.send(text(words));
  if (answer.payload.case !== "task") throw new Error(`expected a task, got ${answer.payload.case}`);
  return answer.payload.value.id;
}

describe.each(BINDINGS)("the client's push configs over %s", (binding) => {
  it("create assigns an id; get, list and delete agree; a second delete is no error; the deleted config is TaskNotFound", async () => {
    const client = await clientOf(pushHub, binding);
    try {
      const taskId = await taskIdOf(client, "input-required");
      const created = await client.createPushConfig({ taskId, url: "https://example.com/hook", token: "tok", authentication: { scheme: "Bearer", credentials: "c" } });
      expect(created.id).not.toBe("");
      expect(created.taskId).toBe(taskId);
      const got = await client.getPushConfig({ taskId, id: created.id });
      expect(got).toMatchObject({ id: created.id, taskId, url: "https://example.com/hook", token: "tok" });
      expect(got.authentication?.scheme).toBe("Bearer");
      expect((await client.listPushConfigs(taskId)).configs.map((c) => c.id)).toEqual([created.id]);
      await client.deletePushConfig({ taskId, id: created.id });
      await client.deletePushConfig({ taskId, id: created.id });
      await refused(() => client.getPushConfig({ taskId, id: created.id }), "TaskNotFound");
      expect((await client.listPushConfigs({ taskId })).configs).toEqual([]);
    } finally {
      client.close();
    }
  });

  it("a config for an unknown task is TaskNotFound", async () => {
    const client = await clientOf(pushHub, binding);
    await refused(() => client.createPushConfig({ taskId: "no-such-task", url: "https://example.com/hook" }), "TaskNotFound");
    await refused(() => client.listPushConfigs("no-such-task"), "TaskNotFound");
    client.close();
  });

  it("every push call is PushNotificationNotSupported when the card does not declare push", async () => {
    const client = await clientOf(plainHub, binding);
    const taskId = await taskIdOf(client, "input-required");
    await refused(() => client.createPushConfig({ taskId, url: "https://example.com/hook" }), "PushNotificationNotSupported");
    await refused(() => client.getPushConfig({ taskId, id: "x" }), "PushNotificationNotSupported");
    await refused(() => client.listPushConfigs(taskId), "PushNotificationNotSupported");
    await refused(() => client.deletePushConfig({ taskId, id: "x" }), "PushNotificationNotSupported");
    client.close();
  });
});

describe.each(BINDINGS)("the client's extended card over %s", (binding) => {
  it("returns the configured extended card", async () => {
    const client = await clientOf(extendedHub, binding);
    expect((await client.extendedCard()).name).toBe("echo, extended");
    client.close();
  });

  it("is ExtendedAgentCardNotConfigured when declared but absent, UnsupportedOperation when not declared", async () => {
    const declared = await clientOf(pushHub, binding);
    await refused(() => declared.extendedCard(), "ExtendedAgentCardNotConfigured");
    declared.close();
    const undeclared = await clientOf(plainHub, binding);
    await refused(() => undeclared.extendedCard(), "UnsupportedOperation");
    undeclared.close();
  });
});


describe.each(["jsonrpc", "rest"] as const)("stream event ids and resumption over %s", (binding) => {
  it("each event carries its SSE id, and a subscription after one of them replays exactly the events that followed", async () => {
    const client = await clientOf(pushHub, binding);
    const seen = await collect(client.stream(text("stream 3")));
    const ids = seen.map(streamEventId);
    expect(ids.every((id) => id !== undefined && /^\d+$/.test(id))).toBe(true);
    expect(ids.map(Number)).toEqual([...ids.map(Number)].sort((a, b) => a - b));
    const taskId = seen[0]!.payload.case === "task" ? seen[0]!.payload.value.id : "";
    const resumed = await collect(client.subscribe(taskId, { lastEventId: ids[1] }));
    expect(resumed.map(streamEventId)).toEqual(ids.slice(2));
    expect(resumed).toEqual(seen.slice(2));
    const last = resumed.at(-1)!;
    expect(last.payload.case === "statusUpdate" && last.payload.value.status?.state).toBe(TaskState.COMPLETED);
    client.close();
  });
});

describe("stream event ids over gRPC", () => {
  it("gRPC events carry no SSE id, and a resumption after one is refused before anything is sent", async () => {
    const client = await clientOf(pushHub, "grpc");
    const seen = await collect(client.stream(text("stream 2")));
    expect(seen.length).toBeGreaterThan(2);
    expect(seen.map(streamEventId)).toEqual(seen.map(() => undefined));
    const taskId = seen[0]!.payload.case === "task" ? seen[0]!.payload.value.id : "";
    expect(() => client.subscribe(taskId, { lastEventId: "1" })).toThrow(/carry no event ids/);
    client.close();
  });
});

describe("the new calls over JSON-RPC 0.3", () => {
  it("push configs and the extended card are UnsupportedOperation from the client, which speaks only v1.0's methods for them", async () => {
    const base = await clientOf(extendedHub, "jsonrpc");
    base.close();
    const card = { ...base.card, supportedInterfaces: base.card.supportedInterfaces.filter((i) => i.protocolVersion === "0.3") };
    const client = A2AClient.fromCard(card, { bindings: ["jsonrpc"] });
    expect(client.chosen.version).toBe("0.3");
    await refused(() => client.createPushConfig({ taskId: "t", url: "https://example.com/hook" }), "UnsupportedOperation");
    await refused(() => client.listPushConfigs("t"), "UnsupportedOperation");
    await refused(() => client.extendedCard(), "UnsupportedOperation");
    client.close();
  });
});
