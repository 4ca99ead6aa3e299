import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import type { Client } from "@a2a-js/sdk/client";
import { PushNotificationNotSupportedError, TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import { EchoAgent, echoCard } from "../../src/agents/index.js";
import { CANCELED, COMPLETED, returnImmediately, sdkClient, sdkSend, stateOf } from "../helpers/a2a-sdk.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";

/** The official SDK's JSON-RPC and HTTP+JSON clients against our hub, each from the agent card as a real client starts. */

let t: TestHub;
const clients = {} as Record<"jsonrpc" | "rest", Client>;
beforeAll(async () => {
  t = await startTestHub();
  // From the well-known URL, as a real client would start.
  clients.jsonrpc = await sdkClient(t.url, "jsonrpc");
  clients.rest = await sdkClient(t.url, "rest");
});
afterAll(async () => {
  await t.stop();
});

describe.each([
  { binding: "jsonrpc", name: "JSON-RPC", protocolName: "JSONRPC" },
  { binding: "rest", name: "HTTP+JSON (RestTransportFactory)", protocolName: "HTTP+JSON" },
] as const)("@a2a-js/sdk@1.3.0 over $name, from the agent card", ({ binding, protocolName }) => {
  const client = () => clients[binding];

  it(`picks our ${protocolName} interface at protocol 1.0`, () => {
    expect(client().transport.protocolName).toBe(protocolName);
    expect(client().protocolVersion).toBe("1.0");
  });

  it("sends a message and gets the completed task", async () => {
    const result: any = await client().sendMessage(sdkSend(`hello ${binding} sdk`));
    expect(stateOf(result)).toBe(COMPLETED);
    expect(result.artifacts[0].parts[0].content).toEqual({ $case: "text", value: `hello ${binding} sdk` });
  });

  it("gets a direct Message back", async () => {
    const result: any = await client().sendMessage(sdkSend("message"));
    expect(result.role).toBe(2); // ROLE_AGENT
  });

  it("streams a task: Task first, chunks, then COMPLETED", async () => {
    const events: any[] = [];
    for await (const e of client().sendMessageStream(sdkSend("stream 3"))) events.push(e);
    expect(events[0].payload.$case).toBe("task");
    expect(events.filter((e) => e.payload.$case === "artifactUpdate")).toHaveLength(3);
    expect(events.at(-1).payload.value.status.state).toBe(COMPLETED);
  });

  it("cancels a working task and resubscribes to another until it completes", async () => {
    const slow: any = await client().sendMessage(sdkSend("slow 5000", {}, returnImmediately));
    const canceled: any = await client().cancelTask({ tenant: "", id: slow.id, metadata: undefined } as never);
    expect(stateOf(canceled)).toBe(CANCELED);
    const other: any = await client().sendMessage(sdkSend("slow 300", {}, returnImmediately));
    const events: any[] = [];
    for await (const e of client().resubscribeTask({ tenant: "", id: other.id } as never)) events.push(e);
    expect(events[0].payload.$case).toBe("task");
    expect(events.at(-1).payload.value.status.state).toBe(COMPLETED);
  });

  it("round-trips a push notification config", async () => {
    const parked: any = await client().sendMessage(sdkSend("input-required"));
    const created: any = await client().createTaskPushNotificationConfig({ tenant: "", id: "", taskId: parked.id, url: "https://example.com/hook", token: "t", authentication: undefined } as never);
    expect(created.id).not.toBe("");
    expect(created.taskId).toBe(parked.id);
    const got: any = await client().getTaskPushNotificationConfig({ tenant: "", taskId: parked.id, id: created.id } as never);
    expect(got.url).toBe("https://example.com/hook");
    const listed: any = await client().listTaskPushNotificationConfig({ tenant: "", taskId: parked.id, pageSize: 0, pageToken: "" } as never);
    expect(listed.configs.map((c: any) => c.id)).toEqual([created.id]);
    await client().deleteTaskPushNotificationConfig({ tenant: "", taskId: parked.id, id: created.id } as never);
    const after: any = await client().listTaskPushNotificationConfig({ tenant: "", taskId: parked.id, pageSize: 0, pageToken: "" } as never);
    expect(after.configs).toEqual([]);
  });

  it("surfaces A2A errors as the SDK's typed errors", async () => {
    await expect(client().getTask({ tenant: "", id: "no-such-task" } as never)).rejects.toBeInstanceOf(TaskNotFoundError);
    const done: any = await client().sendMessage(sdkSend("done"));
    await expect(client().cancelTask({ tenant: "", id: done.id } as never)).rejects.toBeInstanceOf(TaskNotCancelableError);
  });
});

describe("@a2a-js/sdk@1.3.0 over JSON-RPC", () => {
  it("gets and lists tasks", async () => {
    const client = clients.jsonrpc;
    const contextId = `sdk-${randomUUID()}`;
    const sent: any = await client.sendMessage(sdkSend("listed", { contextId }));
    const got: any = await client.getTask({ tenant: "", id: sent.id, historyLength: undefined } as never);
    expect(got.id).toBe(sent.id);
    const listed: any = await client.listTasks({ tenant: "", contextId, status: 0, pageToken: "" } as never);
    expect(listed.tasks.map((x: any) => x.id)).toEqual([sent.id]);
    expect(listed.totalSize).toBe(1);
  });
});

describe("@a2a-js/sdk@1.3.0 over HTTP+JSON", () => {
  it("gets and lists tasks, with the query parameters the SDK sends", async () => {
    const client = clients.rest;
    const contextId = `sdk-rest-${randomUUID()}`;
    const sent: any = await client.sendMessage(sdkSend("listed", { contextId }));
    const got: any = await client.getTask({ tenant: "", id: sent.id, historyLength: 0 } as never);
    expect(got.id).toBe(sent.id);
    expect(got.history).toEqual([]);
    const listed: any = await client.listTasks({ tenant: "", contextId, status: COMPLETED, pageSize: 10, pageToken: "", includeArtifacts: true } as never);
    expect(listed.tasks.map((x: any) => x.id)).toEqual([sent.id]);
    expect(listed.tasks[0].artifacts).toHaveLength(1);
    expect(listed.totalSize).toBe(1);
  });

  it("reads the A2A errors from the ErrorInfo reason: the status, and a subscription to a terminal task", async () => {
    const client = clients.rest;
    const done: any = await client.sendMessage(sdkSend("done"));
    const err: any = await client.cancelTask({ tenant: "", id: done.id } as never).catch((e) => e);
    expect(err).toBeInstanceOf(TaskNotCancelableError);
    expect(err.statusCode).toBe(400);
    const terminal = (async () => {
      for await (const _ of client.resubscribeTask({ tenant: "", id: done.id } as never));
    })();
    await expect(terminal).rejects.toBeInstanceOf(UnsupportedOperationError);
  });

  it("sees PushNotificationNotSupported from an agent without push", async () => {
    const h = await startTestHub({ agents: [{ id: "echo", executor: new EchoAgent(), card: echoCard({ pushNotifications: false }) }] });
    try {
      const c = await sdkClient(h.url, "rest");
      const parked: any = await c.sendMessage(sdkSend("input-required"));
      // The SDK's Client refuses this itself from the card; its transport asks the server.
      const created = c.transport.createTaskPushNotificationConfig({ tenant: "", id: "", taskId: parked.id, url: "https://example.com/hook", token: "", authentication: undefined } as never);
      await expect(created).rejects.toBeInstanceOf(PushNotificationNotSupportedError);
    } finally {
      await h.stop();
    }
  });
});
