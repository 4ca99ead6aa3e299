import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import type { Client } from "@a2a-js/sdk/client";
import { TaskNotCancelableError, TaskNotFoundError } from "@a2a-js/sdk/errors";
import { CANCELED, COMPLETED, returnImmediately, sdkClient, sdkSend, stateOf } from "../helpers/a2a-sdk.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";

let t: TestHub;
let client: Client;
beforeAll(async () => {
  t = await startTestHub();
  // From the well-known URL, as a real client would start.
  client = await sdkClient(t.url, "jsonrpc");
});
afterAll(async () => {
  await t.stop();
});

describe("@a2a-js/sdk@1.3.0 over JSON-RPC, from the agent card", () => {
  it("picks our JSON-RPC interface at protocol 1.0", () => {
    expect(client.transport.protocolName).toBe("JSONRPC");
    expect(client.protocolVersion).toBe("1.0");
  });

  it("sends a message and gets the completed task", async () => {
    const result: any = await client.sendMessage(sdkSend("hello sdk"));
    expect(stateOf(result)).toBe(COMPLETED);
    expect(result.artifacts[0].parts[0].content).toEqual({ $case: "text", value: "hello sdk" });
  });

  it("streams a task: Task first, chunks, then COMPLETED", async () => {
    const events: any[] = [];
    for await (const e of client.sendMessageStream(sdkSend("stream 3"))) events.push(e);
    expect(events[0].payload.$case).toBe("task");
    expect(events.filter((e) => e.payload.$case === "artifactUpdate")).toHaveLength(3);
    expect(events.at(-1).payload.value.status.state).toBe(COMPLETED);
  });

  it("gets and lists tasks", async () => {
    const contextId = `sdk-${randomUUID()}`;
    const sent: any = await client.sendMessage(sdkSend("listed", { contextId }));
    const got: any = await client.getTask({ tenant: "", id: sent.id, historyLength: undefined } as never);
    expect(got.id).toBe(sent.id);
    const listed: any = await client.listTasks({ tenant: "", contextId, status: 0, pageToken: "" } as never);
    expect(listed.tasks.map((x: any) => x.id)).toEqual([sent.id]);
    expect(listed.totalSize).toBe(1);
  });

  it("cancels a working task and resubscribes to another until it completes", async () => {
    const slow: any = await client.sendMessage(sdkSend("slow 5000", {}, returnImmediately));
    const canceled: any = await client.cancelTask({ tenant: "", id: slow.id, metadata: undefined } as never);
    expect(stateOf(canceled)).toBe(CANCELED);
    const other: any = await client.sendMessage(sdkSend("slow 300", {}, returnImmediately));
    const events: any[] = [];
    for await (const e of client.resubscribeTask({ tenant: "", id: other.id } as never)) events.push(e);
    expect(events[0].payload.$case).toBe("task");
    expect(events.at(-1).payload.value.status.state).toBe(COMPLETED);
  });

  it("round-trips a push notification config", async () => {
    const parked: any = await client.sendMessage(sdkSend("input-required"));
    const created: any = await client.createTaskPushNotificationConfig({ tenant: "", id: "", taskId: parked.id, url: "https://example.com/hook", token: "t", authentication: undefined } as never);
    expect(created.id).not.toBe("");
    const got: any = await client.getTaskPushNotificationConfig({ tenant: "", taskId: parked.id, id: created.id } as never);
    expect(got.url).toBe("https://example.com/hook");
    const listed: any = await client.listTaskPushNotificationConfig({ tenant: "", taskId: parked.id, pageSize: 0, pageToken: "" } as never);
    expect(listed.configs.map((c: any) => c.id)).toEqual([created.id]);
    await client.deleteTaskPushNotificationConfig({ tenant: "", taskId: parked.id, id: created.id } as never);
    const after: any = await client.listTaskPushNotificationConfig({ tenant: "", taskId: parked.id, pageSize: 0, pageToken: "" } as never);
    expect(after.configs).toEqual([]);
  });

  it("surfaces A2A errors as the SDK's typed errors", async () => {
    await expect(client.getTask({ tenant: "", id: "no-such-task" } as never)).rejects.toBeInstanceOf(TaskNotFoundError);
    const done: any = await client.sendMessage(sdkSend("done"));
    await expect(client.cancelTask({ tenant: "", id: done.id } as never)).rejects.toBeInstanceOf(TaskNotCancelableError);
  });
});
