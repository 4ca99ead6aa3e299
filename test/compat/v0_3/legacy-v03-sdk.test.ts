import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUUID } from "node:crypto";
import { LegacyJsonRpcTransport, LegacyRestTransport } from "@a2a-js/sdk/compat/v0_3/client";
import { LegacyGrpcTransport } from "@a2a-js/sdk/compat/v0_3/client/grpc";
import { TaskNotCancelableError, TaskNotFoundError } from "@a2a-js/sdk/errors";
import { CANCELED, COMPLETED, returnImmediately, sdkSend, stateOf } from "../../helpers/a2a-sdk.js";
import { tenantHubOptions } from "../../helpers/tenant-hub.js";
import { startTestHub, type TestHub } from "../../helpers/test-hub.js";

/**
 * The official SDK's three v0.3 transports (@a2a-js/sdk 1.3.0), each alone,
 * against the hub: v0.3 JSON-RPC at the agent's endpoint, v0.3 HTTP+JSON
 * under its /v1/ routes, v0.3 gRPC (`a2a.v1.A2AService`) on the same port.
 */

type LegacyName = "jsonrpc" | "rest" | "grpc";
const LEGACY: readonly LegacyName[] = ["jsonrpc", "rest", "grpc"];
const ACME = "acme-legacy-token-41d2";
const GLOBEX = "globex-legacy-token-77e0";

/** One legacy transport of the SDK, alone, for a hub (the agent's base for the HTTP ones), sending `token` when given. */
function legacyTransport(name: LegacyName, hub: TestHub, base: string): any {
  if (name === "grpc") return new LegacyGrpcTransport({ endpoint: new URL(hub.url).host });
  return name === "rest" ? new LegacyRestTransport({ endpoint: base }) : new LegacyJsonRpcTransport({ endpoint: base });
}

const options = (token?: string) => (token ? { serviceParameters: { authorization: `Bearer ${token}` } } : undefined);

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => expect.unreachable("the call succeeded"),
    (e: unknown) => e,
  );
}

async function collect(stream: AsyncIterable<any>): Promise<any[]> {
  const out: any[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

let open: TestHub;
let tenants: TestHub;
beforeAll(async () => {
  open = await startTestHub();
  // Two agents: the HTTP bindings address one by its base path; v0.3 gRPC has no `tenant`, so it reaches the default (first) one.
  tenants = await startTestHub(tenantHubOptions({ acme: ACME, globex: GLOBEX }, [{ id: "helper" }, { id: "other" }]));
});
afterAll(async () => {
  await open?.stop();
  await tenants?.stop();
});

describe.each([
  { setup: "without tenants", hub: () => open, base: () => open.url.replace(/\/$/, ""), token: undefined as string | undefined },
  { setup: "with tenants (bearer token)", hub: () => tenants, base: () => `${tenants.url}v1/a2a/agents/helper`, token: ACME },
])("the SDK's v0.3 transports, $setup", ({ hub, base, token }) => {
  describe.each(LEGACY)("%s alone", (name) => {
    const client = () => legacyTransport(name, hub(), base());
    const call = () => options(token);

    it("speaks protocol 0.3", () => {
      expect(client().protocolVersion).toBe("0.3");
    });

    it("sends a message and gets the completed task with its artifact", async () => {
      const task: any = await client().sendMessage(sdkSend("hello legacy"), call());
      expect(stateOf(task)).toBe(COMPLETED);
      expect(task.artifacts[0].parts[0].content).toEqual({ $case: "text", value: "hello legacy" });
      expect(task.history.map((m: any) => m.parts[0].content.value)).toContain("hello legacy");
    });

    it("gets a direct Message reply", async () => {
      const reply: any = await client().sendMessage(sdkSend("message"), call());
      expect(reply.role).toBe(2); // ROLE_AGENT
      expect(reply.messageId).toBeTruthy();
    });

    it("streams a task: the Task first, three chunks appended, then COMPLETED with final", async () => {
      const events = await collect(client().sendMessageStream(sdkSend("stream 3"), call()));
      expect(events[0].payload.$case).toBe("task");
      const chunks = events.filter((e) => e.payload.$case === "artifactUpdate").map((e) => e.payload.value);
      expect(chunks.map((c) => c.artifact.parts[0].content.value)).toEqual(["chunk 1\n", "chunk 2\n", "chunk 3\n"]);
      // The SDK's v0.3 proto reader (REST, gRPC) drops `append`; the wire test below reads it raw.
      if (name === "jsonrpc") expect(chunks.map((c) => c.append)).toEqual([false, true, true]);
      expect(events.at(-1).payload.value.status.state).toBe(COMPLETED);
    });

    it("gets a task, with historyLength limiting its history", async () => {
      const sent: any = await client().sendMessage(sdkSend("get me"), call());
      const got: any = await client().getTask({ tenant: "", id: sent.id, historyLength: 1 }, call());
      expect(got.id).toBe(sent.id);
      expect(stateOf(got)).toBe(COMPLETED);
      expect(got.history).toHaveLength(1);
    });

    it("cancels a working task, and a completed one is TaskNotCancelable", async () => {
      const slow: any = await client().sendMessage(sdkSend("slow 5000", {}, returnImmediately), call());
      const canceled: any = await client().cancelTask({ tenant: "", id: slow.id, metadata: undefined }, call());
      expect(stateOf(canceled)).toBe(CANCELED);
      const done: any = await client().sendMessage(sdkSend("done"), call());
      expect(await rejection(client().cancelTask({ tenant: "", id: done.id, metadata: undefined }, call()))).toBeInstanceOf(TaskNotCancelableError);
    });

    it("an unknown task is TaskNotFound", async () => {
      expect(await rejection(client().getTask({ tenant: "", id: `missing-${randomUUID()}`, historyLength: undefined }, call()))).toBeInstanceOf(TaskNotFoundError);
    });

    it("resubscribes to a running task and follows it to COMPLETED", async () => {
      const running: any = await client().sendMessage(sdkSend("slow 400", {}, returnImmediately), call());
      const events = await collect(client().resubscribeTask({ tenant: "", id: running.id }, call()));
      expect(events[0].payload.$case).toBe("task");
      expect(events.at(-1).payload.value.status.state).toBe(COMPLETED);
    });

    it("creates, gets, lists and deletes push configs", async () => {
      const task: any = await client().sendMessage(sdkSend("input-required"), call());
      const config = { tenant: "", taskId: task.id, id: "hook-1", url: "https://example.com/a2a-hook", token: "t0k", authentication: undefined };
      const created: any = await client().createTaskPushNotificationConfig(config, call());
      expect(created).toMatchObject({ taskId: task.id, id: "hook-1", url: "https://example.com/a2a-hook" });
      const got: any = await client().getTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "hook-1" }, call());
      expect(got).toMatchObject({ taskId: task.id, id: "hook-1", url: "https://example.com/a2a-hook" });
      const listed: any = await client().listTaskPushNotificationConfig({ tenant: "", taskId: task.id, pageSize: 0, pageToken: "" }, call());
      expect(listed.configs.map((c: any) => c.id)).toEqual(["hook-1"]);
      await client().deleteTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "hook-1" }, call());
      const after: any = await client().listTaskPushNotificationConfig({ tenant: "", taskId: task.id, pageSize: 0, pageToken: "" }, call());
      expect(after.configs).toEqual([]);
    });

    if (token) {
      it("another tenant's token cannot see the task (TaskNotFound), and no token is refused", async () => {
        const task: any = await client().sendMessage(sdkSend("mine"), call());
        expect(await rejection(client().getTask({ tenant: "", id: task.id, historyLength: undefined }, options(GLOBEX)))).toBeInstanceOf(TaskNotFoundError);
        await expect(client().getTask({ tenant: "", id: task.id, historyLength: undefined })).rejects.toThrow();
      });
    }
  });
});
