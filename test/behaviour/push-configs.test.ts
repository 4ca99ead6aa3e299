import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code } from "@connectrpc/connect";
import { EchoAgent, echoCard } from "../../src/agents/index.js";
import { startTestHub, type TestHub } from "../helpers/test-hub.js";
import { CONNECT_NODE_BINDINGS } from "../helpers/hub-clients.js";
import { taskOf, textRequest } from "../helpers/messages.js";
import { expectA2AError, violatedFields } from "../helpers/errors.js";

let withPush: TestHub;
let withoutPush: TestHub;
beforeAll(async () => {
  withPush = await startTestHub({ agents: [{ id: "echo", executor: new EchoAgent(), card: echoCard({ pushNotifications: true }) }], limits: { pushConfigsPerTask: 3 } });
  withoutPush = await startTestHub({ agents: [{ id: "echo", executor: new EchoAgent(), card: echoCard({ pushNotifications: false }) }] });
});
afterAll(async () => {
  await withPush.stop();
  await withoutPush.stop();
});

describe.each(CONNECT_NODE_BINDINGS)("push notification configs over %s", (transport) => {
  it("create assigns an id; get, list and delete agree; delete is idempotent", async () => {
    const client = withPush.client(transport);
    const task = taskOf(await client.sendMessage(textRequest("input-required")));
    const created = await client.createTaskPushNotificationConfig({ taskId: task.id, url: "https://example.com/hook", token: "tok", authentication: { scheme: "Bearer", credentials: "c" } });
    expect(created.id).not.toBe("");
    expect(created.taskId).toBe(task.id);
    const got = await client.getTaskPushNotificationConfig({ taskId: task.id, id: created.id });
    expect(got.url).toBe("https://example.com/hook");
    expect(got.authentication?.scheme).toBe("Bearer");
    const listed = await client.listTaskPushNotificationConfigs({ taskId: task.id });
    expect(listed.configs.map((c) => c.id)).toEqual([created.id]);
    await client.deleteTaskPushNotificationConfig({ taskId: task.id, id: created.id });
    await client.deleteTaskPushNotificationConfig({ taskId: task.id, id: created.id });
    await expectA2AError(() => client.getTaskPushNotificationConfig({ taskId: task.id, id: created.id }), Code.NotFound, "TASK_NOT_FOUND");
    expect((await client.listTaskPushNotificationConfigs({ taskId: task.id })).configs).toEqual([]);
  });

  it("every push method is PushNotificationNotSupported when the card does not declare it", async () => {
    const client = withoutPush.client(transport);
    const task = taskOf(await client.sendMessage(textRequest("x")));
    const reason = "PUSH_NOTIFICATION_NOT_SUPPORTED";
    await expectA2AError(() => client.createTaskPushNotificationConfig({ taskId: task.id, url: "https://example.com/h" }), Code.FailedPrecondition, reason);
    await expectA2AError(() => client.getTaskPushNotificationConfig({ taskId: task.id, id: "x" }), Code.FailedPrecondition, reason);
    await expectA2AError(() => client.listTaskPushNotificationConfigs({ taskId: task.id }), Code.FailedPrecondition, reason);
    await expectA2AError(() => client.deleteTaskPushNotificationConfig({ taskId: task.id, id: "x" }), Code.FailedPrecondition, reason);
  });
});

describe("push config rules", () => {
  const client = () => withPush.client("grpc");

  it("a config for an unknown task is TaskNotFound", async () => {
    await expectA2AError(() => client().createTaskPushNotificationConfig({ taskId: "nope", url: "https://example.com/h" }), Code.NotFound, "TASK_NOT_FOUND");
  });

  it("a missing or non-http url is InvalidParams naming url", async () => {
    const task = taskOf(await client().sendMessage(textRequest("x")));
    for (const url of ["", "ftp://example.com/x", "not a url"]) {
      const err = await expectA2AError(() => client().createTaskPushNotificationConfig({ taskId: task.id, url }), Code.InvalidArgument, "INVALID_PARAMS");
      expect(violatedFields(err)).toEqual(["url"]);
    }
  });

  it("a task holds at most the configured number of configs", async () => {
    const task = taskOf(await client().sendMessage(textRequest("x")));
    for (let i = 0; i < 3; i++) await client().createTaskPushNotificationConfig({ taskId: task.id, url: `https://example.com/${i}` });
    await expectA2AError(() => client().createTaskPushNotificationConfig({ taskId: task.id, url: "https://example.com/4" }), Code.InvalidArgument, "INVALID_PARAMS");
    // Replacing an existing id is not a new config.
    const [first] = (await client().listTaskPushNotificationConfigs({ taskId: task.id })).configs;
    await client().createTaskPushNotificationConfig({ taskId: task.id, id: first!.id, url: "https://example.com/replaced" });
    expect((await client().getTaskPushNotificationConfig({ taskId: task.id, id: first!.id })).url).toBe("https://example.com/replaced");
  });

  it("SendMessage's configuration.taskPushNotificationConfig is stored with the new task", async () => {
    const task = taskOf(await client().sendMessage(textRequest("x", { configuration: { taskPushNotificationConfig: { url: "https://example.com/inline", id: "inline" } } })));
    const listed = await client().listTaskPushNotificationConfigs({ taskId: task.id });
    expect(listed.configs.map((c) => [c.id, c.url, c.taskId])).toEqual([["inline", "https://example.com/inline", task.id]]);
  });

  it("configs survive a restart on the same data directory", async () => {
    const { startTestHub: start } = await import("../helpers/test-hub.js");
    const agents = [{ id: "echo", executor: new EchoAgent(), card: echoCard({ pushNotifications: true }) }];
    const first = await start({ agents });
    const task = taskOf(await first.client("grpc").sendMessage(textRequest("x")));
    await first.client("grpc").createTaskPushNotificationConfig({ taskId: task.id, id: "durable", url: "https://example.com/d" });
    await first.hub.close();
    const second = await start({ agents, dataDir: first.dataDir });
    expect((await second.client("grpc").getTaskPushNotificationConfig({ taskId: task.id, id: "durable" })).url).toBe("https://example.com/d");
    await second.stop();
    await first.stop();
  });
});
